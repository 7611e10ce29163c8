//! Arbitrary text through the card parser, then whatever parses through the
//! meld validator under every preset: errors are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramino_core::{validate_meld, Card, Variant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(cards) = Card::parse_list(text) else { return };
    for v in [Variant::ramino51(), Variant::rami51(), Variant::rummy()] {
        if let Ok(m) = validate_meld(&cards, &v) {
            assert_eq!(m.cards, cards);
            let again = validate_meld(&m.cards, &v).expect("a valid meld stays valid");
            assert_eq!(again.value, m.value);
        }
    }
});
