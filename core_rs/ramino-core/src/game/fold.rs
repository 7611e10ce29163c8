//! The fold: one event applied to the state (the Python engine's
//! `state.py`). It trusts the rules that produced the events but checks what
//! is cheap to check (the card is where the event says), so a corrupted
//! record fails loudly instead of drifting.

use crate::meld::{validate_meld, End};

use super::scoring::scores_of;
use super::types::{CardId, Event, GameError, Phase, Rules, State, TableMeld};

/// A table meld with what the kernel says about it (kind, jokers, value).
///
/// # Errors
/// The cards are not a meld (a corrupt record).
pub fn meld_info(owner: usize, cards: Vec<CardId>, rules: &Rules) -> Result<TableMeld, GameError> {
    let m = validate_meld(&rules.cards_of(&cards), &rules.variant)
        .map_err(|e| GameError::corrupt(format!("the table meld {cards:?} is not a meld: {e}")))?;
    let jokers = m.jokers.iter().map(|j| (cards[j.index], j.cards())).collect();
    Ok(TableMeld {
        owner,
        kind: m.kind,
        closed: m.is_closed(),
        jokers,
        value: m.value,
        cards,
    })
}

/// Whether taking the discard now obliges `seat` to open with it.
#[must_use]
pub fn obliged_to_open(state: &State, seat: usize, rules: &Rules) -> bool {
    let s = &state.seats[seat];
    rules.needs_opening && rules.variant.discard_take_requires_open && !s.opened && s.turns > 1
}

/// Knocking play: whether the stock is down to the wall.
#[must_use]
pub fn at_wall(state: &State, rules: &Rules) -> bool {
    let v = &rules.variant;
    v.knocking && 0 < v.wall_stock_size && state.stock.len() <= usize::from(v.wall_stock_size)
}

/// Starts `seat`'s turn in `phase`, clearing what a turn remembers.
fn start_turn(state: &mut State, seat: usize, phase: Phase) {
    state.turn = seat;
    state.seats[seat].turns += 1;
    state.phase = phase;
    state.taken = None;
    state.must_open = false;
    state.pending_joker = None;
    state.opened_this_turn = false;
    state.wall_take = false;
}

/// Removes `card` (its first copy) from `hand`.
fn take_from_hand(hand: &mut Vec<CardId>, card: CardId) -> Result<(), GameError> {
    let i = hand
        .iter()
        .position(|&c| c == card)
        .ok_or_else(|| GameError::corrupt(format!("card {card} is not in the hand")))?;
    hand.remove(i);
    Ok(())
}

/// `seat` put cards on the table this turn: it has opened, and its first
/// laying turn is known.
fn laid(state: &mut State, seat: usize) {
    let s = &mut state.seats[seat];
    s.opened = true;
    if s.first_laid_turn == 0 {
        s.first_laid_turn = s.turns;
    }
}

/// Refuses an event of `seat` when it is not that seat's turn in `phase`
/// (so that a seat past this check indexes the seats).
fn check_turn(state: &State, seat: usize, phase: Phase) -> Result<(), GameError> {
    if state.turn != seat || state.phase != phase {
        return Err(GameError::corrupt(format!("seat {seat} acted out of turn or phase")));
    }
    Ok(())
}

/// Takes `melds`' cards from `seat`'s hand and lays them on the table, meld
/// by meld: whether one of them holds `pending` (a swapped joker).
fn lay(
    state: &mut State,
    seat: usize,
    melds: &[Vec<CardId>],
    pending: Option<CardId>,
    rules: &Rules,
) -> Result<bool, GameError> {
    let mut laid_pending = false;
    for meld in melds {
        for &c in meld {
            take_from_hand(&mut state.seats[seat].hand, c)?;
        }
        state.melds.push(meld_info(seat, meld.clone(), rules)?);
        laid_pending |= pending.is_some_and(|j| meld.contains(&j));
    }
    Ok(laid_pending)
}

/// The table meld `meld` of an event, which must exist.
fn table_meld(state: &State, meld: usize) -> Result<&TableMeld, GameError> {
    state
        .melds
        .get(meld)
        .ok_or_else(|| GameError::corrupt(format!("no table meld {meld}")))
}

/// Folds `event` into `state` (in place); the version counts it.
///
/// # Errors
/// The event does not fit the state; the state is then unspecified (callers
/// fold a copy, or drop the game).
pub fn apply_event(state: &mut State, event: &Event, rules: &Rules) -> Result<(), GameError> {
    match event {
        Event::DrewFromStock { seat, card } => {
            check_turn(state, *seat, Phase::Draw)?;
            match state.stock.last() {
                Some(&top) if Some(top) == *card => {}
                _ => return Err(GameError::corrupt("the drawn card is not the top of the stock")),
            }
            let top = state.stock.pop().expect("the stock's top was just read");
            state.seats[*seat].hand.push(top);
            state.phase = Phase::Play;
            state.first_upcard = false;
        }
        Event::Discarded { seat, card } => {
            check_turn(state, *seat, Phase::Play)?;
            take_from_hand(&mut state.seats[*seat].hand, *card)?;
            state.discard.push(*card);
            if rules.variant.knocking {
                // Taking the upcard and discarding it back, twice in
                // succession, is a draw.
                let back = Some(*card) == state.taken;
                state.drawn = back && state.repeated;
                state.repeated = back;
            }
            if !state.seats[*seat].hand.is_empty() {
                let next = state.next_active(*seat);
                start_turn(state, next, Phase::Draw);
            }
        }
        Event::TookDiscard { seat, card } => {
            check_turn(state, *seat, Phase::Draw)?;
            if state.discard.last() != Some(card) {
                return Err(GameError::corrupt("the taken card is not the top of the discard pile"));
            }
            state.must_open = obliged_to_open(state, *seat, rules);
            state.wall_take = at_wall(state, rules);
            state.discard.pop();
            state.seats[*seat].hand.push(*card);
            state.taken = Some(*card);
            state.phase = Phase::Play;
            state.first_upcard = false;
        }
        Event::PassedUpcard { seat } => {
            check_turn(state, *seat, Phase::Draw)?;
            if state.first_upcard {
                state.passes += 1;
                let next = state.next_active(*seat);
                start_turn(state, next, Phase::Draw);
            } else {
                state.drawn = true;
            }
        }
        Event::Knocked {
            seat, discard, melds, ..
        } => {
            check_turn(state, *seat, Phase::Play)?;
            if let Some(d) = discard {
                take_from_hand(&mut state.seats[*seat].hand, *d)?;
                state.discard.push(*d);
            }
            lay(state, *seat, melds, None, rules)?;
            state.knocker = Some(*seat);
            state.knock_melds = melds.len();
            state.big_gin = discard.is_none();
            state.turn = state.next_active(*seat);
            state.phase = Phase::Layoff;
            state.taken = None;
            state.wall_take = false;
        }
        Event::LayoutAccepted { seat } => {
            check_turn(state, *seat, Phase::Layoff)?;
            state.accepted = true;
        }
        Event::MeldsLaid { seat, melds, .. } if state.phase == Phase::Layoff => {
            check_turn(state, *seat, Phase::Layoff)?;
            lay(state, *seat, melds, None, rules)?;
            state.defender_melded = true;
        }
        Event::MeldsLaid {
            seat, melds, opening, ..
        } => {
            check_turn(state, *seat, Phase::Play)?;
            if lay(state, *seat, melds, state.pending_joker, rules)? {
                state.pending_joker = None;
            }
            if *opening {
                state.opened_this_turn = true;
                state.must_open = false;
            }
            laid(state, *seat);
        }
        Event::LaidOff {
            seat, card, meld, end, ..
        } => {
            let phase = if state.phase == Phase::Layoff {
                Phase::Layoff
            } else {
                Phase::Play
            };
            check_turn(state, *seat, phase)?;
            take_from_hand(&mut state.seats[*seat].hand, *card)?;
            let old = table_meld(state, *meld)?;
            let cards = match end {
                End::Start => std::iter::once(*card).chain(old.cards.iter().copied()).collect(),
                End::End => old.cards.iter().copied().chain(std::iter::once(*card)).collect(),
            };
            state.melds[*meld] = meld_info(old.owner, cards, rules)?;
            laid(state, *seat);
        }
        Event::JokerSwapped {
            seat,
            card,
            meld,
            joker,
            ..
        } => {
            check_turn(state, *seat, Phase::Play)?;
            take_from_hand(&mut state.seats[*seat].hand, *card)?;
            let old = table_meld(state, *meld)?;
            if !old.jokers.iter().any(|(j, _)| j == joker) {
                return Err(GameError::corrupt(format!(
                    "card {joker} is not a joker of meld {meld}"
                )));
            }
            let cards = old.cards.iter().map(|&c| if c == *joker { *card } else { c }).collect();
            state.melds[*meld] = meld_info(old.owner, cards, rules)?;
            state.seats[*seat].hand.push(*joker);
            state.pending_joker = Some(*joker);
        }
        Event::DiscardPileTurnedOver { seat, rebuild } => {
            check_turn(state, *seat, Phase::Draw)?;
            if !state.stock.is_empty() || state.discard.is_empty() {
                return Err(GameError::corrupt(
                    "the discard pile is turned over only when the stock is empty",
                ));
            }
            state.discard.reverse();
            state.stock = std::mem::take(&mut state.discard);
            state.rebuilds = *rebuild;
        }
        Event::StockReshuffled {
            rebuild, kept, stock, ..
        } => {
            let Some(stock) = stock else {
                return Err(GameError::corrupt("a record's reshuffle carries the stock"));
            };
            if !state.stock.is_empty() || state.discard.last() != Some(kept) {
                return Err(GameError::corrupt("the reshuffle does not match the discard pile"));
            }
            let mut given = stock.clone();
            given.sort_unstable();
            let mut pile = state.discard[..state.discard.len() - 1].to_vec();
            pile.sort_unstable();
            if given != pile {
                return Err(GameError::corrupt("the reshuffled stock is not the discard pile"));
            }
            state.stock = stock.clone();
            state.discard = vec![*kept];
            state.rebuilds = *rebuild;
        }
        Event::Resigned { seat } => {
            let Some(s) = state.seats.get_mut(*seat) else {
                return Err(GameError::corrupt(format!("no seat {seat}")));
            };
            if s.resigned {
                return Err(GameError::corrupt(format!("seat {seat} resigned twice")));
            }
            s.resigned = true;
            if state.in_round() && state.turn == *seat {
                let next = state.next_active(*seat);
                if next != *seat {
                    start_turn(state, next, Phase::Draw);
                }
            }
        }
        Event::RoundStarted {
            round,
            dealer,
            first_player,
            hands,
            upcard,
            stock,
            ..
        } => {
            round_started(
                state,
                rules,
                *round,
                *dealer,
                *first_player,
                hands,
                *upcard,
                stock.as_deref(),
            )?;
        }
        Event::RoundEnded(result) => {
            if !state.in_round() || result.round != state.round {
                return Err(GameError::corrupt("a round ended that was not being played"));
            }
            if result.scores.len() != state.seats.len() {
                return Err(GameError::corrupt("the round's scores do not match the players"));
            }
            // A round logged before the kernel gave the parts has none.
            if !result.parts.is_empty() && scores_of(&result.parts) != result.scores {
                return Err(GameError::corrupt("the round's score parts do not sum to its scores"));
            }
            for (s, score) in state.seats.iter_mut().zip(&result.scores) {
                s.total += score;
            }
            state.results.push(result.clone());
            state.phase = Phase::BetweenRounds;
        }
        Event::MatchEnded { totals, winners, parts } => {
            if state.phase != Phase::BetweenRounds {
                return Err(GameError::corrupt("the match ended during a round"));
            }
            if totals.len() != state.seats.len() {
                return Err(GameError::corrupt("the match's totals do not match the players"));
            }
            if !parts.is_empty() && &scores_of(parts) != totals {
                return Err(GameError::corrupt("the match's total parts do not sum to its totals"));
            }
            state.winners.clone_from(winners);
            for (s, total) in state.seats.iter_mut().zip(totals) {
                s.total = *total;
            }
            state.phase = Phase::Over;
        }
    }
    state.version += 1;
    Ok(())
}

/// A deal folded: the hands, the stock and the upcard, every per-round
/// field reset, the first player's turn started.
#[allow(clippy::too_many_arguments)]
fn round_started(
    state: &mut State,
    rules: &Rules,
    round: u32,
    dealer: usize,
    first_player: usize,
    hands: &[Option<Vec<CardId>>],
    upcard: Option<CardId>,
    stock: Option<&[CardId]>,
) -> Result<(), GameError> {
    if state.phase != Phase::BetweenRounds || Some(round) != state.round.checked_add(1) {
        return Err(GameError::corrupt("a round started while another was being played"));
    }
    let Some(stock) = stock.filter(|_| hands.iter().all(Option::is_some)) else {
        return Err(GameError::corrupt("a record's deal carries every hand and the stock"));
    };
    if hands.len() != state.seats.len() {
        return Err(GameError::corrupt("the deal does not match the players"));
    }
    // Beyond the engine's checks: a seat or a card id out of range would
    // index past the seats or the deck later on.
    if dealer >= state.seats.len() || first_player >= state.seats.len() {
        return Err(GameError::corrupt("the deal's dealer or first player is not a seat"));
    }
    let mut dealt = hands.iter().flatten().flatten().chain(stock).chain(upcard.as_ref());
    if let Some(c) = dealt.find(|&&c| usize::from(c) >= rules.deck_size) {
        return Err(GameError::corrupt(format!("unknown card id {c} in the deal")));
    }
    state.round = round;
    state.dealer = dealer;
    state.first_player = first_player;
    for (s, hand) in state.seats.iter_mut().zip(hands) {
        s.hand = hand.clone().unwrap_or_default();
        s.opened = false;
        s.first_laid_turn = 0;
        s.turns = 0;
    }
    state.stock = stock.to_vec();
    state.discard = upcard.into_iter().collect();
    state.melds = Vec::new();
    state.rebuilds = 0;
    state.first_upcard = rules.variant.knocking && upcard.is_some();
    state.passes = 0;
    state.repeated = false;
    state.drawn = false;
    state.knocker = None;
    state.knock_melds = 0;
    state.big_gin = false;
    state.defender_melded = false;
    state.accepted = false;
    let phase = if rules.variant.first_turn_draws {
        Phase::Draw
    } else {
        Phase::Play
    };
    start_turn(state, first_player, phase);
    Ok(())
}

/// Every way in which the cards are not each in exactly one place.
#[must_use]
pub fn conservation_errors(state: &State, deck_size: usize) -> Vec<String> {
    let mut seen = vec![0usize; deck_size];
    let mut errors = Vec::new();
    let places = [&state.stock, &state.discard]
        .into_iter()
        .chain(state.seats.iter().map(|s| &s.hand))
        .chain(state.melds.iter().map(|m| &m.cards));
    for place in places {
        for &c in place {
            match seen.get_mut(usize::from(c)) {
                Some(k) => *k += 1,
                None => errors.push(format!("unknown card id {c}")),
            }
        }
    }
    if state.round == 0 {
        return errors;
    }
    for (c, k) in seen.iter().enumerate() {
        if *k != 1 {
            errors.push(format!("card {c} is in {k} places"));
        }
    }
    errors
}
