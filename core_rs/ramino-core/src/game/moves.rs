//! The moves a seat may make now (the Python engine's `moves.py`), found
//! with the kernel's exact search, so that clients and bots need no rules of
//! their own.
//!
//! Every move listed is legal (each is checked by [`decide`] before it is
//! listed). The list is complete for draws and discards (one discard per
//! distinct card); melds, lay-offs and joker swaps are the ones the search
//! proposes, capped: the best opening before a seat has opened; afterwards
//! the melds of the minimum-deadwood partition, together and one by one;
//! every lay-off and swap the kernel finds. `Resign` is always possible and
//! never listed.
//!
//! A search the state cannot feed (an empty or oversized hand, which no
//! folded record gives in these phases) finds nothing here, where the Python
//! engine would raise.

use crate::card::{Card, Suit};
use crate::meld::validate_meld;
use crate::search::{best_opening, joker_swaps, layoff_targets, min_deadwood, MAX_HAND};
use crate::variant::Variant;

use super::decide::{decide, joker_meld};
use super::policy::ids_of;
use super::types::{CardId, Command, Phase, Rules, State};

pub const MAX_MELD_MOVES: usize = 16;
pub const MAX_LAYOFF_MOVES: usize = 48;
pub const MAX_SWAP_MOVES: usize = 16;

/// Whether the rules take `command` from `seat` now (the Python `_legal`).
fn legal(state: &State, rules: &Rules, seat: usize, command: &Command) -> bool {
    i64::try_from(seat).is_ok_and(|s| decide(state, rules, s, command).is_ok())
}

/// The first id of `hand` holding `card`, the ids of `first` preferred (the
/// Python `_Ids.one`).
fn one(hand: &[CardId], rules: &Rules, card: Card, first: &[Option<CardId>]) -> Option<CardId> {
    let preferred = first.iter().flatten().copied().filter(|c| hand.contains(c));
    preferred.chain(hand.iter().copied()).find(|&c| rules.card(c) == card)
}

/// The moves `seat` may make now (empty when it is not its turn).
#[must_use]
pub fn legal_moves(state: &State, rules: &Rules, seat: usize) -> Vec<Command> {
    if state.turn != seat
        || !matches!(state.phase, Phase::Draw | Phase::Play | Phase::Layoff)
        || state.seats[seat].resigned
    {
        return Vec::new();
    }
    if rules.variant.knocking {
        return knocking_moves(state, rules, seat);
    }
    if state.phase == Phase::Draw {
        let draws = [
            Command::DrawFromStock,
            Command::TakeDiscard,
            Command::TurnOverDiscardPile,
        ];
        return draws.into_iter().filter(|c| legal(state, rules, seat, c)).collect();
    }
    let s = &state.seats[seat];
    let hand = &s.hand;
    let v = &rules.variant;
    let hand_cards = rules.cards_of(hand);
    let mut out = Vec::new();

    let first = [state.taken, state.pending_joker];
    let mut melds: Vec<Command> = Vec::new();
    if rules.needs_opening && !s.opened {
        let include = if state.must_open {
            state.taken.map(|t| rules.card(t))
        } else {
            None
        };
        if let Ok(Some(opening)) = best_opening(&hand_cards, v, include) {
            melds.push(Command::lay_melds(&ids_of(hand, rules, &opening.melds, &first)));
        }
    } else {
        if state.pending_joker.is_some() {
            // The search the swap was allowed on: a new meld for the joker
            // that keeps a card that may be discarded.
            if let Some((rest, jm)) = joker_meld(rules, state.taken, hand) {
                let joker_first = [state.pending_joker, state.taken];
                melds.push(Command::lay_melds(&ids_of(&rest, rules, &jm, &joker_first)));
            }
        }
        let partition = min_deadwood(&hand_cards, v).map(|d| d.melds).unwrap_or_default();
        if partition.len() > 1 {
            melds.push(Command::lay_melds(&ids_of(hand, rules, &partition, &first)));
        }
        melds.extend(
            partition
                .iter()
                .map(|m| Command::lay_melds(&ids_of(hand, rules, std::slice::from_ref(m), &first))),
        );
    }
    let mut seen: Vec<Command> = Vec::new();
    for m in melds {
        if !seen.contains(&m) && seen.len() < MAX_MELD_MOVES && legal(state, rules, seat, &m) {
            seen.push(m.clone());
            out.push(m);
        }
    }

    let table: Vec<Vec<Card>> = state.melds.iter().map(|m| rules.cards_of(&m.cards)).collect();
    let may_touch = !table.is_empty() && (s.opened || !rules.needs_opening);
    if may_touch {
        let plain: Vec<CardId> = hand
            .iter()
            .copied()
            .filter(|&c| Some(c) != state.pending_joker)
            .collect();
        let mut count = 0;
        for lo in layoff_targets(&hand_cards, &table, v).unwrap_or_default() {
            if count >= MAX_LAYOFF_MOVES {
                break;
            }
            let Some(card) = one(&plain, rules, lo.card, &[]) else {
                continue;
            };
            let cmd = Command::lay_off(card, lo.meld, lo.end);
            if legal(state, rules, seat, &cmd) {
                out.push(cmd);
                count += 1;
            }
        }
        if v.joker_swap && state.pending_joker.is_none() {
            let mut count = 0;
            for sw in joker_swaps(&hand_cards, &table, v).unwrap_or_default() {
                if count >= MAX_SWAP_MOVES {
                    break;
                }
                let joker = state.melds[sw.meld].cards[sw.joker_index];
                let Some(card) = one(hand, rules, sw.card, &first) else {
                    continue;
                };
                let swap = Command::swap_joker(card, sw.meld, joker);
                if legal(state, rules, seat, &swap) {
                    out.push(swap);
                    count += 1;
                }
            }
        }
    }

    out.extend(discards(state, rules, seat));
    out
}

/// One legal discard per distinct card of the hand, in hand order.
fn discards(state: &State, rules: &Rules, seat: usize) -> Vec<Command> {
    let mut discarded: Vec<Card> = Vec::new();
    let mut out = Vec::new();
    for &c in &state.seats[seat].hand {
        let card = rules.card(c);
        if !discarded.contains(&card) && legal(state, rules, seat, &Command::discard(c)) {
            discarded.push(card);
            out.push(Command::discard(c));
        }
    }
    out
}

// --- knocking play (gin) -----------------------------------------------------

/// Every meld that `cards` hold, for a deck without jokers (a joker is
/// skipped): each set of 3 or 4 of a rank, each run of 3 or more; each
/// checked by the kernel.
///
/// The order is fixed: first the sets, rank by rank from the ace up, each
/// rank's 3-card then 4-card combinations of its suits in the order S, H,
/// D, C (in lexicographic order); then the runs, suit by suit in the order
/// S, H, D, C, each suit's runs by their lowest card then by their length.
#[must_use]
pub fn hand_melds(cards: &[Card], variant: &Variant) -> Vec<Vec<Card>> {
    let mut distinct: Vec<Card> = cards.iter().copied().filter(|c| !c.is_joker()).collect();
    distinct.sort();
    distinct.dedup();
    let mut out: Vec<Vec<Card>> = Vec::new();
    for rank in 1..=13u8 {
        // Suit-major card order: a rank's cards come in suit order S, H, D, C.
        let of_rank: Vec<Card> = distinct.iter().copied().filter(|c| c.rank() == Some(rank)).collect();
        for size in [3, 4] {
            combinations(&of_rank, size, &mut out);
        }
    }
    let top: u8 = if variant.ace_high { 14 } else { 13 };
    for suit in Suit::ALL {
        // Positions 0 (ace) to 12 (king), and 13 for an ace high.
        let mut positions = [false; 14];
        for c in distinct.iter().filter(|c| c.suit() == Some(suit)) {
            if let Some(rank) = c.rank() {
                positions[usize::from(rank - 1)] = true;
            }
        }
        if variant.ace_high && positions[0] {
            positions[13] = true;
        }
        for lo in 0..top {
            let mut hi = lo;
            while hi < top && positions[usize::from(hi)] {
                hi += 1;
                if hi - lo >= 3 {
                    out.push((lo..hi).map(|p| Card::new(p % 13 + 1, suit)).collect());
                }
            }
        }
    }
    out.retain(|m| validate_meld(m, variant).is_ok());
    out
}

/// Pushes every `size`-card combination of `cards` onto `out`, in the order
/// of Python's `itertools.combinations`.
fn combinations(cards: &[Card], size: usize, out: &mut Vec<Vec<Card>>) {
    if size > cards.len() {
        return;
    }
    let mut idx: Vec<usize> = (0..size).collect();
    loop {
        out.push(idx.iter().map(|&i| cards[i]).collect());
        // The rightmost index that can still move right.
        let Some(i) = (0..size).rev().find(|&i| idx[i] != i + cards.len() - size) else {
            return;
        };
        idx[i] += 1;
        for j in i + 1..size {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// The knocks `seat` may make now, best (least unmatched) first: the best
/// knock for each discard that allows one (the melds of the least unmatched
/// total of the rest), and big gin (shown as unmatched -1) where it is on.
#[must_use]
pub fn knocks(state: &State, rules: &Rules, seat: usize) -> Vec<Command> {
    let hand = &state.seats[seat].hand;
    let v = &rules.variant;
    let mut found: Vec<(i64, Command)> = Vec::new();
    let mut tried: Vec<Card> = Vec::new();
    for &d in hand {
        if tried.contains(&rules.card(d)) {
            continue;
        }
        tried.push(rules.card(d));
        let rest: Vec<CardId> = hand.iter().copied().filter(|&c| c != d).collect();
        let Ok(dw) = min_deadwood(&rules.cards_of(&rest), v) else {
            continue;
        };
        if dw.value <= u32::from(v.knock_card) {
            let cmd = Command::knock(Some(d), &ids_of(&rest, rules, &dw.melds, &[]));
            if legal(state, rules, seat, &cmd) {
                found.push((i64::from(dw.value), cmd));
            }
        }
    }
    if v.big_gin && hand.len() <= MAX_HAND {
        if let Ok(dw) = min_deadwood(&rules.cards_of(hand), v) {
            let cmd = Command::knock(None, &ids_of(hand, rules, &dw.melds, &[]));
            if dw.deadwood.is_empty() && legal(state, rules, seat, &cmd) {
                found.push((-1, cmd));
            }
        }
    }
    // A stable sort: equal totals keep the hand's order.
    found.sort_by_key(|f| f.0);
    found.into_iter().map(|(_, k)| k).collect()
}

/// The moves of knocking play: the draws; the discards and knocks; the
/// defender's lay-offs onto the knocker's melds, every meld of its hand, and
/// accepting the layout.
fn knocking_moves(state: &State, rules: &Rules, seat: usize) -> Vec<Command> {
    let hand = &state.seats[seat].hand;
    if state.phase == Phase::Draw {
        let draws = [Command::TakeDiscard, Command::DrawFromStock, Command::PassUpcard];
        return draws.into_iter().filter(|c| legal(state, rules, seat, c)).collect();
    }
    if state.phase == Phase::Play {
        let mut out = discards(state, rules, seat);
        out.extend(knocks(state, rules, seat));
        return out;
    }
    let mut out = Vec::new();
    let hand_cards = rules.cards_of(hand);
    let knock_melds = state.knock_melds.min(state.melds.len());
    let table: Vec<Vec<Card>> = state.melds[..knock_melds]
        .iter()
        .map(|m| rules.cards_of(&m.cards))
        .collect();
    if !table.is_empty() && !hand.is_empty() {
        for lo in layoff_targets(&hand_cards, &table, &rules.variant).unwrap_or_default() {
            let Some(card) = one(hand, rules, lo.card, &[]) else {
                continue;
            };
            let cmd = Command::lay_off(card, lo.meld, lo.end);
            if legal(state, rules, seat, &cmd) {
                out.push(cmd);
            }
        }
    }
    for m in hand_melds(&hand_cards, &rules.variant) {
        let lay = Command::lay_melds(&ids_of(hand, rules, &[m], &[]));
        if legal(state, rules, seat, &lay) {
            out.push(lay);
        }
    }
    out.push(Command::AcceptLayout);
    out
}
