//! The shuffle is pinned: these vectors must never change, or recorded games
//! would replay differently.

fn seed_bytes(decimal: &str) -> [u8; 32] {
    // Decimal to 256-bit little-endian, by repeated multiply-add on bytes.
    let mut out = [0u8; 32];
    for digit in decimal.bytes() {
        let mut carry = u32::from(digit - b'0');
        for b in out.iter_mut() {
            let x = u32::from(*b) * 10 + carry;
            *b = (x & 0xff) as u8;
            carry = x >> 8;
        }
        assert_eq!(carry, 0, "seed over 256 bits");
    }
    out
}

#[test]
fn shuffle_matches_pinned_vectors() {
    let text = include_str!("vectors/shuffle.txt");
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut parts = line.split_whitespace();
        let seed = seed_bytes(parts.next().unwrap());
        let n: usize = parts.next().unwrap().parse().unwrap();
        let want: Vec<u32> = parts.map(|p| p.parse().unwrap()).collect();
        assert_eq!(ramino_core::shuffle(&seed, n), want, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 35);
}
