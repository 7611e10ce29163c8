//! The playouts of the searching bots: the budget, determinism, input
//! errors, and the kernel's round underneath.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use ramino_core::{evaluate, Action, Budget, Card, ParamValue, PlayoutError, SeatSeen, Seen, Variant};

fn variants() -> Vec<Variant> {
    vec![
        Variant::ramino51(),
        Variant::rami51(),
        Variant::rummy(),
        Variant::gin(),
        Variant::rummy()
            .with_override("ace_high", ParamValue::Bool(true))
            .unwrap(),
    ]
}

fn seat(hand_size: usize, known: Vec<Card>, opened: bool) -> SeatSeen {
    SeatSeen {
        hand_size,
        known,
        opened,
        had_turn: true,
        discarded: vec![],
        laid_any: opened,
    }
}

/// Seat 0 holds `mine`, the other seats `size` unknown cards each, the rest
/// of the deck is the stock (the discard pile holds `discard`).
fn seen_for(v: &Variant, mine: &str, discard: &str, others: usize, size: usize) -> Seen {
    let mine = Card::parse_list(mine).unwrap();
    let discard = Card::parse_list(discard).unwrap();
    let mut unseen = v.deck().cards();
    for c in mine.iter().chain(&discard) {
        let i = unseen.iter().position(|u| u == c).unwrap();
        unseen.remove(i);
    }
    let mut seats = vec![seat(mine.len(), mine, false)];
    seats.extend((0..others).map(|_| seat(size, vec![], false)));
    Seen {
        seat: 0,
        stock_size: unseen.len() - others * size,
        seats,
        discard,
        table: vec![],
        unseen,
        taken: None,
        rebuilds_left: 3,
        turns_left: 300,
        no_draw_seat: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, rng_seed: RngSeed::Fixed(24), .. ProptestConfig::default() })]

    /// An iteration budget runs exactly that many playouts of every action,
    /// and the same seed gives the same figures.
    #[test]
    fn the_iteration_budget_is_exact_and_deterministic(vi in 0usize..4, n in 1u32..12, seed in any::<[u8; 32]>()) {
        let v = &variants()[vi];
        let (mine, size) = match v.hand_size(2) {
            Some(10) => ("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH", 10),
            _ => ("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH 7C 7D 8S 2H", 14),
        };
        let seen = seen_for(v, mine, "", 1, size);
        let actions = [Action::Discard("KC".parse().unwrap()), Action::Discard("AS".parse().unwrap())];
        let a = evaluate(v, &seen, &actions, &Budget::iterations(n), seed).unwrap();
        let b = evaluate(v, &seen, &actions, &Budget::iterations(n), seed).unwrap();
        prop_assert_eq!(&a, &b);
        for e in &a {
            prop_assert_eq!(e.playouts, n);
            prop_assert!(e.wins <= n);
            prop_assert!(e.mean.is_finite());
        }
    }
}

#[test]
fn a_hand_one_card_from_gin_knocks_rather_than_breaks_a_meld() {
    let v = Variant::gin();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D 9H KC 2D", "", 1, 10);
    let actions = [
        Action::Knock("KC".parse().unwrap()),
        Action::Discard("9C".parse().unwrap()),
    ];
    let e = evaluate(&v, &seen, &actions, &Budget::iterations(200), [1; 32]).unwrap();
    // Knocking with 2 points wins almost every hand at once.
    assert!(e[0].mean > e[1].mean, "{e:?}");
    assert!(e[0].wins > 150, "{e:?}");
}

#[test]
fn four_seats_of_ramino51_play_to_an_end() {
    let v = Variant::ramino51();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH 7C 7D 8S 2H", "", 3, 14);
    let actions = [
        Action::Discard("KC".parse().unwrap()),
        Action::Discard("2H".parse().unwrap()),
    ];
    let e = evaluate(&v, &seen, &actions, &Budget::iterations(20), [3; 32]).unwrap();
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|x| x.playouts == 20 && x.mean.is_finite()));
}

#[test]
fn bad_inputs_are_named() {
    let v = Variant::gin();
    let good = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH", "", 1, 10);
    let go = |s: &Seen, a: &[Action]| evaluate(&v, s, a, &Budget::iterations(1), [0; 32]).unwrap_err();
    let discard = [Action::Discard("KC".parse().unwrap())];

    let mut s = good.clone();
    s.stock_size += 1;
    assert_eq!(go(&s, &discard).reason(), "UNSEEN_COUNT");
    let mut s = good.clone();
    s.seats[1].known = Card::parse_list("KS KH").unwrap();
    s.seats[1].hand_size = 1;
    assert!(matches!(
        go(&s, &discard),
        PlayoutError::KnownExceedsHand { seat: 1, .. }
    ));
    let mut s = good.clone();
    s.seats[0].hand_size = 12;
    assert_eq!(go(&s, &discard).reason(), "OWN_HAND_UNKNOWN");
    let mut s = good.clone();
    s.unseen[0] = "AS".parse().unwrap();
    assert_eq!(
        go(&s, &discard).to_string(),
        "AS appears more often than the deck holds it"
    );
    assert_eq!(go(&good, &[]).reason(), "NO_ACTIONS");
    assert_eq!(
        go(&good, &[Action::Discard("7H".parse().unwrap())]).reason(),
        "BAD_ACTION"
    );
    assert_eq!(go(&good, &[Action::TakeDiscard]).reason(), "BAD_ACTION");
    let mut s = good.clone();
    s.seat = 5;
    assert_eq!(go(&s, &discard).reason(), "NO_SUCH_SEAT");
    let mut s = good;
    s.table = vec![Card::parse_list("2C 3C 5C").unwrap()];
    assert_eq!(go(&s, &discard).reason(), "BAD_TABLE");
    let r51 = Variant::ramino51();
    let s = seen_for(&r51, "AS 2S 3S", "", 1, 3);
    let e = evaluate(
        &r51,
        &s,
        &[Action::Knock("AS".parse().unwrap())],
        &Budget::iterations(1),
        [0; 32],
    );
    assert_eq!(e.unwrap_err().reason(), "BAD_ACTION");
}

/// The margin weight changes what a playout is worth, not how it is played:
/// at 0 a playout is worth its win alone (+1, -1 or 0), and past that the
/// means move in proportion to the weight, by the same mean margin.
#[test]
fn the_margin_weight_scales_the_points_beside_the_win() {
    let v = Variant::ramino51();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH 7C 7D 8S 2H", "", 1, 13);
    let actions = [
        Action::Discard("KC".parse().unwrap()),
        Action::Discard("2H".parse().unwrap()),
    ];
    let at = |w: f64| {
        let budget = Budget {
            margin_weight: w,
            ..Budget::iterations(60)
        };
        evaluate(&v, &seen, &actions, &budget, [5; 32]).unwrap()
    };
    let (none, small, large) = (at(0.0), at(0.001), at(0.01));
    for (i, e) in none.iter().enumerate() {
        let sum = e.mean * f64::from(e.playouts);
        assert!((sum - sum.round()).abs() < 1e-9, "{e:?}");
        assert!(e.mean.abs() <= 1.0, "{e:?}");
        assert_eq!(e.wins, small[i].wins);
        assert_eq!(e.wins, large[i].wins);
        let margin = (large[i].mean - e.mean) / 0.01;
        assert!(
            margin.abs() > 1.0,
            "a mean margin of {margin} points: the playouts ended level"
        );
        assert!(((small[i].mean - e.mean) / 0.001 - margin).abs() < 1e-6, "{e:?}");
    }
}

/// Racing: an action far behind the leader is played out no more once the
/// standing says so, the first action plays every iteration, and an action
/// as good as the leader (here the same action twice) stays to the end.
#[test]
fn a_clearly_beaten_action_leaves_the_race_and_the_first_stays() {
    let v = Variant::gin();
    let seen = seen_for(&v, "AS 2S 3S 4H 5H 6H 9C 9D 9H KC 2D", "", 1, 10);
    let knock = Action::Knock("KC".parse().unwrap());
    let actions = [knock, Action::Discard("9C".parse().unwrap()), knock];
    let e = evaluate(&v, &seen, &actions, &Budget::iterations(200), [2; 32]).unwrap();
    assert_eq!(e[0].playouts, 200, "{e:?}");
    assert!((32..200).contains(&e[1].playouts), "{e:?}");
    assert_eq!(e[2].playouts, 200, "{e:?}");
    assert!(e[1].advantage < 0.0 && e[2].advantage == 0.0, "{e:?}");
}
