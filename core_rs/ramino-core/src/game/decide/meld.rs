//! After the draw (the Python engine's `rules/meld.py`): opening and laying
//! melds, laying off, swapping a joker; none may leave a turn that cannot
//! end.

use crate::card::Card;
use crate::meld::{extension_fits, validate_form, validate_meld, End};
use crate::search::{best_opening, layoff_targets, min_deadwood, MAX_HAND};

use super::super::reasons as r;
use super::super::types::{CardId, Event, MeldDescription, Refusal, Rules, State};
use super::discard::undiscardable;
use super::shape::in_hand;

/// Refuses a play that would leave `left` in hand and a turn that cannot
/// end. `table` gives the table after the play (to see whether a last
/// undiscardable card can still be laid off where going out needs no
/// discard; built only then).
fn check_leftover(
    state: &State,
    rules: &Rules,
    left: &[CardId],
    pending: Option<CardId>,
    table: impl FnOnce() -> Vec<Vec<Card>>,
) -> Result<(), Refusal> {
    if left.is_empty() {
        if rules.must_discard {
            return Err(Refusal::illegal(
                r::LAST_CARD_MUST_BE_DISCARDED,
                "keep a card: going out needs a discard",
            ));
        }
        return Ok(());
    }
    if pending.is_some_and(|p| left.contains(&p)) {
        if !joker_still_meldable(state, rules, left) {
            return Err(Refusal::illegal(
                r::SWAPPED_JOKER_NOT_MELDED,
                "the swapped joker could no longer be laid in a new meld",
            ));
        }
        return Ok(());
    }
    if left.iter().all(|&c| undiscardable(rules, state.taken, c)) {
        // The last card can still be laid off: going out. (The table's melds
        // are all legal, so the search cannot fail.)
        if !rules.must_discard && left.len() == 1 && layoff_exists(&rules.cards_of(left), &table(), &rules.variant) {
            return Ok(());
        }
        return Err(Refusal::illegal(
            r::NO_CARD_LEFT_TO_DISCARD,
            "only the card taken from the discard pile (or its twin) would be left, and it cannot be discarded",
        ));
    }
    Ok(())
}

/// Whether `table` is not empty and the search lists a lay-off of `cards` on it.
fn layoff_exists(cards: &[Card], table: &[Vec<Card>], v: &crate::Variant) -> bool {
    !table.is_empty() && layoff_targets(cards, table, v).is_ok_and(|t| !t.is_empty())
}

/// Whether a hand holding a swapped joker can lay it in a new meld and still
/// end the turn: keep a card it may discard, or, where going out needs no
/// discard, meld everything. The meld may use the card taken from the
/// discard pile.
fn joker_still_meldable(state: &State, rules: &Rules, hand: &[CardId]) -> bool {
    joker_meld(rules, state.taken, hand).is_some()
        || (!rules.must_discard
            && hand.len() <= MAX_HAND
            && min_deadwood(&rules.cards_of(hand), &rules.variant).is_ok_and(|d| d.deadwood.is_empty()))
}

/// A way to lay a swapped joker of `hand` in new melds and keep a card that
/// may be discarded: the cards searched (`hand` less the kept card) and the
/// melds by card; `None` when there is none (or the hand is too large for
/// the search).
#[must_use]
pub fn joker_meld(rules: &Rules, taken: Option<CardId>, hand: &[CardId]) -> Option<(Vec<CardId>, Vec<Vec<Card>>)> {
    if !hand.iter().any(|&c| rules.card(c).is_joker()) || hand.len() > MAX_HAND + 1 {
        return None;
    }
    let mut tried: Vec<Card> = Vec::new();
    for (i, &keep) in hand.iter().enumerate() {
        let card = rules.card(keep);
        if tried.contains(&card) || card.is_joker() || undiscardable(rules, taken, keep) {
            continue;
        }
        tried.push(card);
        let mut rest = hand.to_vec();
        rest.remove(i);
        // `rest` holds the joker and at most `MAX_HAND` cards: the search
        // cannot fail.
        if let Ok(Some(o)) = best_opening(&rules.cards_of(&rest), &rules.joker_meld_variant, Some(Card::JOKER)) {
            return Some((rest, o.melds));
        }
    }
    None
}

/// The table after a play, by card.
fn table_cards(state: &State, rules: &Rules) -> Vec<Vec<Card>> {
    state.melds.iter().map(|m| rules.cards_of(&m.cards)).collect()
}

/// Laying melds (opening with them where the seat has not opened).
pub(super) fn lay_melds(
    state: &State,
    rules: &Rules,
    seat: usize,
    melds: Vec<Vec<CardId>>,
) -> Result<Vec<Event>, Refusal> {
    let s = &state.seats[seat];
    let hand = &s.hand;
    for &c in melds.iter().flatten() {
        in_hand(hand, c)?;
    }
    let v = &rules.variant;
    let mut total = 0;
    let mut pure_run = false;
    let mut described = Vec::with_capacity(melds.len());
    for meld in &melds {
        let m = validate_meld(&rules.cards_of(meld), v)
            .map_err(|e| Refusal::illegal_detail(r::INVALID_MELD, format!("not a meld: {e}"), e.reason()))?;
        total += m.value;
        pure_run = pure_run || m.is_pure_run();
        described.push(MeldDescription::of(&m));
    }
    let opening = rules.needs_opening && !s.opened;
    if opening {
        if state.must_open && !state.taken.is_some_and(|t| melds.iter().any(|m| m.contains(&t))) {
            return Err(Refusal::illegal(
                r::MUST_OPEN_WITH_TAKEN_DISCARD,
                "the opening must use the card you took",
            ));
        }
        if total < u32::from(v.open_threshold) {
            return Err(Refusal::illegal(
                r::OPENING_BELOW_THRESHOLD,
                format!("an opening needs {}, these melds are worth {total}", v.open_threshold),
            ));
        }
        if v.open_requires_pure_run && !pure_run {
            return Err(Refusal::illegal(
                r::OPENING_NEEDS_PURE_RUN,
                "the opening needs a run of 3 or more without a joker",
            ));
        }
    }
    let used = |c: &CardId| melds.iter().any(|m| m.contains(c));
    let left: Vec<CardId> = hand.iter().copied().filter(|c| !used(c)).collect();
    let pending = state.pending_joker.filter(|p| !used(p));
    let table = || {
        let mut table = table_cards(state, rules);
        table.extend(melds.iter().map(|m| rules.cards_of(m)));
        table
    };
    check_leftover(state, rules, &left, pending, table)?;
    Ok(vec![Event::MeldsLaid {
        seat,
        melds,
        opening,
        described,
    }])
}

/// Refuses a play on the table melds (a lay-off, a swap) by a seat that has
/// not opened, or on its opening turn where the variant forbids it then.
fn may_touch_table(state: &State, rules: &Rules, seat: usize, opening_reason: &'static str) -> Result<(), Refusal> {
    if rules.needs_opening && !state.seats[seat].opened {
        if state.must_open {
            return Err(Refusal::illegal(
                r::MUST_OPEN_WITH_TAKEN_DISCARD,
                "open first, with the card you took",
            ));
        }
        return Err(Refusal::illegal(r::NOT_OPENED, "you have not opened yet"));
    }
    if state.opened_this_turn && !rules.variant.layoff_on_opening_turn {
        return Err(Refusal::illegal(opening_reason, "not on the turn you open"));
    }
    Ok(())
}

/// Refuses a table meld index beyond the table.
pub(super) fn table_meld(state: &State, index: usize) -> Result<(), Refusal> {
    if index >= state.melds.len() {
        return Err(Refusal::illegal(
            r::NO_SUCH_MELD,
            format!("there is no table meld {index}"),
        ));
    }
    Ok(())
}

/// The table meld `cards` with `card` laid off at `end` (its cards), or the
/// meld kernel's reason why not (`validate_meld`, then `extend_meld`).
pub(super) fn extended(rules: &Rules, cards: &[CardId], card: CardId, end: End) -> Result<Vec<Card>, Refusal> {
    let v = &rules.variant;
    let mut meld = rules.cards_of(cards);
    validate_form(&meld, v)
        .and_then(|kind| extension_fits(&meld, kind, rules.card(card), end, v))
        .map(|()| {
            if end == End::Start {
                meld.insert(0, rules.card(card));
            } else {
                meld.push(rules.card(card));
            }
            meld
        })
        .map_err(|e| {
            Refusal::illegal_detail(
                r::CANNOT_LAY_OFF,
                format!("the card does not fit there: {e}"),
                e.reason(),
            )
        })
}

/// The description of the table meld `cards` a play makes, or a refusal
/// for `reason` should they not be one (the checks before make them one).
pub(super) fn describe(rules: &Rules, cards: &[Card], reason: &'static str) -> Result<MeldDescription, Refusal> {
    validate_meld(cards, &rules.variant)
        .map(|m| MeldDescription::of(&m))
        .map_err(|e| Refusal::illegal_detail(reason, format!("not a meld: {e}"), e.reason()))
}

/// Laying `card` off on table meld `index` at `end`.
pub(super) fn lay_off(
    state: &State,
    rules: &Rules,
    seat: usize,
    card: CardId,
    index: usize,
    end: End,
) -> Result<Vec<Event>, Refusal> {
    may_touch_table(state, rules, seat, r::NO_LAYOFF_ON_OPENING_TURN)?;
    let hand = &state.seats[seat].hand;
    in_hand(hand, card)?;
    table_meld(state, index)?;
    if Some(card) == state.pending_joker {
        return Err(Refusal::illegal(
            r::SWAPPED_JOKER_NOT_MELDED,
            "the swapped joker goes into a new meld",
        ));
    }
    let meld = &state.melds[index];
    if meld.closed {
        return Err(Refusal::illegal(r::MELD_CLOSED, "a set of four is closed"));
    }
    let after = extended(rules, &meld.cards, card, end)?;
    let described = describe(rules, &after, r::CANNOT_LAY_OFF)?;
    let left: Vec<CardId> = hand.iter().copied().filter(|&c| c != card).collect();
    let table = || {
        let mut table = table_cards(state, rules);
        table[index] = after;
        table
    };
    check_leftover(state, rules, &left, state.pending_joker, table)?;
    Ok(vec![Event::LaidOff {
        seat,
        card,
        meld: index,
        end,
        described: Some(described),
    }])
}

/// Giving `card` for the joker `joker` of table meld `index`.
pub(super) fn swap(
    state: &State,
    rules: &Rules,
    seat: usize,
    card: CardId,
    index: usize,
    joker: CardId,
) -> Result<Vec<Event>, Refusal> {
    if !rules.variant.joker_swap {
        return Err(Refusal::illegal(
            r::JOKER_SWAP_NOT_ALLOWED,
            "this variant has no joker swap",
        ));
    }
    may_touch_table(state, rules, seat, r::NO_SWAP_ON_OPENING_TURN)?;
    if state.pending_joker.is_some() {
        return Err(Refusal::illegal(
            r::SWAPPED_JOKER_NOT_MELDED,
            "lay the joker you swapped before swapping another",
        ));
    }
    let hand = &state.seats[seat].hand;
    in_hand(hand, card)?;
    if rules.card(card).is_joker() {
        return Err(Refusal::illegal(
            r::SWAP_NEEDS_NATURAL_CARD,
            "a joker is swapped for a natural card",
        ));
    }
    table_meld(state, index)?;
    let Some((_, stands_for)) = state.melds[index].jokers.iter().find(|(j, _)| *j == joker) else {
        return Err(Refusal::illegal(
            r::NO_SUCH_JOKER,
            format!("card {joker} is not a joker of that meld"),
        ));
    };
    if !stands_for.contains(&rules.card(card)) {
        let names: Vec<String> = stands_for.iter().map(Card::to_string).collect();
        return Err(Refusal::illegal(
            r::JOKER_STANDS_FOR_OTHER_CARD,
            format!("that joker stands for {}", names.join(" or ")),
        ));
    }
    let mut after: Vec<CardId> = hand.iter().copied().filter(|&c| c != card).collect();
    after.push(joker);
    if !joker_still_meldable(state, rules, &after) {
        return Err(Refusal::illegal(
            r::SWAPPED_JOKER_CANNOT_BE_MELDED,
            "you could not lay the joker in a new meld this turn",
        ));
    }
    let swapped: Vec<CardId> = state.melds[index]
        .cards
        .iter()
        .map(|&c| if c == joker { card } else { c })
        .collect();
    let described = describe(rules, &rules.cards_of(&swapped), r::JOKER_STANDS_FOR_OTHER_CARD)?;
    Ok(vec![Event::JokerSwapped {
        seat,
        card,
        meld: index,
        joker,
        described: Some(described),
    }])
}
