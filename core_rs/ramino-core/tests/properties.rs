//! Property tests of the kernel against a small brute force written from the
//! rules: every partition of a short hand into melds, each group tried in
//! every order.

use proptest::prelude::*;
use ramino_core::{
    best_opening, joker_swaps, layoff_targets, min_deadwood, validate_meld, Card, MeldKind, ParamValue, Variant,
};

mod common;

fn variants() -> Vec<Variant> {
    let two_jokers = Variant::ramino51()
        .with_override("max_jokers_per_meld", ParamValue::Int(2))
        .unwrap();
    let rummy_high = Variant::rummy()
        .with_override("ace_high", ParamValue::Bool(true))
        .unwrap();
    vec![
        Variant::ramino51(),
        Variant::rami51(),
        Variant::rummy(),
        two_jokers,
        rummy_high,
    ]
}

/// A hand of `len` physical cards drawn without replacement from `v`'s deck.
fn hand_strategy(v: &Variant, max_len: usize) -> impl Strategy<Value = Vec<Card>> {
    let deck = v.deck().cards();
    let n = deck.len();
    proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 1..=max_len)
        .prop_shuffle()
        .prop_map(move |ids| ids.into_iter().map(|i| deck[i]).collect())
}

fn permutations(cards: &[Card]) -> Vec<Vec<Card>> {
    if cards.len() <= 1 {
        return vec![cards.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..cards.len() {
        let mut rest = cards.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Best meld value of `group` in any order, if some order is a legal meld.
fn group_value(group: &[Card], v: &Variant) -> Option<(u32, bool)> {
    permutations(group)
        .iter()
        .filter_map(|p| validate_meld(p, v).ok())
        .map(|m| (m.value, m.kind == MeldKind::Run && m.jokers.is_empty()))
        .max()
}

/// Every way to pick disjoint melds from `hand`: (total value, melded cards'
/// penalty, has a pure run, cards left that may be discarded (not the twin
/// of `include`, the card taken from the discard pile), holds `include`).
fn all_choices(hand: &[Card], v: &Variant, include: Option<Card>) -> Vec<(u32, u32, bool, usize, bool)> {
    let n = hand.len();
    let mut out = Vec::new();
    // Assign each card a group label 0 (left over) or 1..=n/3, canonically.
    fn rec(
        i: usize,
        labels: &mut Vec<usize>,
        groups: usize,
        hand: &[Card],
        v: &Variant,
        include: Option<Card>,
        out: &mut Vec<(u32, u32, bool, usize, bool)>,
    ) {
        if i == hand.len() {
            let (mut value, mut weight, mut pure, mut used_include) = (0, 0, false, false);
            for g in 1..=groups {
                let cards: Vec<Card> = (0..hand.len()).filter(|&k| labels[k] == g).map(|k| hand[k]).collect();
                let Some((val, p)) = group_value(&cards, v) else { return };
                value += val;
                weight += v.hand_penalty(&cards);
                pure |= p;
                used_include |= include.is_some_and(|c| cards.contains(&c));
            }
            let left = (0..hand.len())
                .filter(|&k| labels[k] == 0 && include != Some(hand[k]))
                .count();
            out.push((value, weight, pure, left, used_include));
            return;
        }
        for g in 0..=groups + 1 {
            if g > hand.len() / 3 {
                break;
            }
            labels.push(g);
            rec(i + 1, labels, groups.max(g), hand, v, include, out);
            labels.pop();
        }
    }
    rec(0, &mut Vec::with_capacity(n), 0, hand, v, include, &mut out);
    out
}

/// `min_deadwood` and `best_opening` (with `include`) of `hand` against
/// every choice of melds.
fn matches_brute_force(v: &Variant, hand: &[Card], include: Option<Card>) -> Result<(), TestCaseError> {
    let choices = all_choices(hand, v, include);

    let total_penalty = v.hand_penalty(hand);
    let want_dead = choices.iter().map(|c| total_penalty - c.1).min().unwrap();
    let got = min_deadwood(hand, v).unwrap();
    prop_assert_eq!(got.value, want_dead, "min_deadwood of {:?}", hand);

    let want_open = choices
        .iter()
        .filter(|c| c.0 > 0 && c.0 >= u32::from(v.open_threshold))
        .filter(|c| !v.open_requires_pure_run || c.2)
        .filter(|c| !v.must_discard_to_go_out || c.3 >= 1)
        .filter(|c| include.is_none() || c.4)
        .map(|c| c.0)
        .max();
    let got = best_opening(hand, v, include).unwrap().map(|o| o.value);
    prop_assert_eq!(got, want_open, "best_opening of {:?} include {:?}", hand, include);
    Ok(())
}

proptest! {
    #![proptest_config(common::profile(300, 24, "properties"))]

    #[test]
    fn validation_never_panics_and_values_add_up(idx in 0usize..5, cards in proptest::collection::vec(0u8..=52, 0..16)) {
        let v = &variants()[idx];
        let cards: Vec<Card> = cards.into_iter().map(Card::from_index).collect();
        if let Ok(m) = validate_meld(&cards, v) {
            prop_assert!(m.cards.len() >= 3);
            prop_assert!(m.jokers.len() <= v.max_jokers_per_meld as usize);
            if m.kind == MeldKind::Run {
                let sum: u32 = (m.low..=m.high).map(|p| v.position_value(p)).sum();
                prop_assert_eq!(sum, m.value);
            }
        }
    }

    #[test]
    fn search_matches_brute_force_on_short_hands(
        (idx, hand, seed) in (0usize..5).prop_flat_map(|i| (Just(i), hand_strategy(&variants()[i], 7), any::<u64>()))
    ) {
        let include = hand.first().copied().filter(|_| seed % 3 == 0);
        matches_brute_force(&variants()[idx], &hand, include)?;
    }

    /// A discard taken before opening: the opening must use it, and where
    /// going out needs a discard the card kept to discard may not be its
    /// twin (both stay in hand that turn). The hands hold the taken card,
    /// its twin and five of its neighbours (its rank, its suit within three
    /// ranks, jokers), so that most open; the thresholds are low for the
    /// same reason (the rule does not depend on them).
    #[test]
    fn the_card_kept_to_discard_is_not_the_taken_cards_twin(
        idx in 0usize..3,
        picks in proptest::collection::vec(any::<proptest::sample::Index>(), 6),
    ) {
        let v = variants()[[0, 1, 3][idx]]
            .clone()
            .with_override("open_threshold", ParamValue::Int(15))
            .unwrap();
        let deck = v.deck().cards();
        let naturals: Vec<Card> = deck.iter().copied().filter(|c| !c.is_joker()).collect();
        let taken = *picks[0].get(&naturals);
        let near = |c: &Card| {
            c.is_joker()
                || c.rank() == taken.rank()
                || (c.suit() == taken.suit() && c.rank().unwrap_or(0).abs_diff(taken.rank().unwrap_or(0)) <= 3)
        };
        let mut pool: Vec<Card> = deck.iter().copied().filter(near).collect();
        let mut hand = Vec::new();
        for c in [taken, taken] {
            let i = pool.iter().position(|&x| x == c).unwrap();
            hand.push(pool.swap_remove(i));
        }
        for p in &picks[1..] {
            hand.push(pool.swap_remove(p.index(pool.len())));
        }
        matches_brute_force(&v, &hand, Some(taken))?;
    }

    #[test]
    fn opening_melds_are_legal_disjoint_and_from_the_hand(idx in 0usize..5, seed in any::<u64>()) {
        let v = variants()[idx].clone();
        let deck = v.deck().cards();
        let perm = ramino_core::shuffle(&{ let mut s = [0u8; 32]; s[..8].copy_from_slice(&seed.to_le_bytes()); s }, deck.len());
        let hand: Vec<Card> = perm.iter().take(15).map(|&i| deck[i as usize]).collect();
        if let Some(o) = best_opening(&hand, &v, None).unwrap() {
            let mut left = hand.clone();
            let mut total = 0;
            for m in &o.melds {
                total += validate_meld(m, &v).unwrap().value;
                for c in m {
                    let i = left.iter().position(|x| x == c).unwrap();
                    left.remove(i);
                }
            }
            prop_assert_eq!(total, o.value);
            prop_assert!(total >= u32::from(v.open_threshold));
            prop_assert!(!v.must_discard_to_go_out || !left.is_empty());
        }
        let d = min_deadwood(&hand, &v).unwrap();
        prop_assert_eq!(d.value, v.hand_penalty(&d.deadwood));
        let table: Vec<Vec<Card>> = d.melds.clone();
        for l in layoff_targets(&hand, &table, &v).unwrap() {
            prop_assert_eq!(l.result.cards.len(), table[l.meld].len() + 1);
        }
        for s in joker_swaps(&hand, &table, &v).unwrap() {
            prop_assert!(table[s.meld][s.joker_index].is_joker());
        }
    }
}
