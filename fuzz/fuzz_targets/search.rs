//! Arbitrary bytes as a hand (one card kind per byte) through the searches:
//! refused hands are fine; accepted ones give consistent answers, never a
//! panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramino_core::{best_opening, layoff_targets, min_deadwood, validate_meld, Card, Variant};

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else { return };
    let v = match which % 3 {
        0 => Variant::ramino51(),
        1 => Variant::rami51(),
        _ => Variant::rummy(),
    };
    let hand: Vec<Card> = rest.iter().map(|b| Card::from_index(b % 53)).collect();
    let Ok(d) = min_deadwood(&hand, &v) else { return };
    assert_eq!(d.value, v.hand_penalty(&d.deadwood));
    for m in &d.melds {
        validate_meld(m, &v).expect("search melds are legal");
    }
    if let Some(o) = best_opening(&hand, &v, None).expect("hand already accepted") {
        assert!(o.value >= u32::from(v.open_threshold));
    }
    let _ = layoff_targets(&hand, &d.melds, &v).expect("table of legal melds");
});
