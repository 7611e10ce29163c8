//! The round's lifecycle (the Python engine's `rules/round.py` and
//! `deck.py`'s deal): what the state calls for by itself, the deal, and the
//! checks of a game's setup.

use crate::shuffle::{reshuffle_seed, round_seed, shuffle};
use crate::variant::Variant;

use super::reasons;
use super::scoring::{final_total_parts, knock_score_parts, match_winners, round_score_parts, scores_of};
use super::types::{CardId, Ending, Event, GameError, Phase, RoundResult, Rules, Setup, State};

/// A deal: hands in turn order (the first player's first), the upcard, the
/// stock (top card last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    pub hands: Vec<Vec<CardId>>,
    pub upcard: Option<CardId>,
    pub stock: Vec<CardId>,
}

/// Deals `order` (a permutation of card ids) to `players` hands: one card at
/// a time from the first, round the table from the first player, then the
/// first player's `extra` cards, then the upcard (where `upcard`; none from an
/// order too short to turn one), the rest the stock, the next card on top.
///
/// ```
/// let d = ramino_core::game::deal(&[0, 1, 2, 3, 4, 5, 6, 7], 2, 2, 1, true);
/// assert_eq!(d.hands, vec![vec![0, 2, 4], vec![1, 3]]);
/// assert_eq!((d.upcard, d.stock), (Some(5), vec![7, 6]));
/// ```
#[must_use]
pub fn deal(order: &[CardId], players: usize, size: usize, extra: usize, upcard: bool) -> Deal {
    let mut hands = vec![Vec::new(); players];
    let slots = (0..size).flat_map(|_| 0..players).chain(std::iter::repeat_n(0, extra));
    for (p, &card) in slots.zip(order) {
        hands[p].push(card);
    }
    let rest = order.get(players * size + extra..).unwrap_or_default();
    let (up, rest) = match rest.split_first() {
        Some((&first, rest)) if upcard => (Some(first), rest),
        _ => (None, rest),
    };
    Deal {
        hands,
        upcard: up,
        stock: rest.iter().rev().copied().collect(),
    }
}

/// Whether Python's `str.isspace` holds for `c`: Rust's whitespace and the
/// four ASCII separators (U+001C to U+001F), which `str.strip` also strips.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Refuses a game the variant cannot play: player count (`PLAYER_COUNT`),
/// names (`BAD_PLAYER_NAME`), a deck too small for the hands
/// (`DECK_TOO_SMALL`), stacked decks that are not permutations (`BAD_DECK`).
/// The seed's range is the binding's to check.
///
/// # Errors
/// The first of those.
pub fn check_setup(rules: &Rules, players: &[String], decks: &[Vec<CardId>]) -> Result<(), GameError> {
    let v = &rules.variant;
    if !(usize::from(v.min_players)..=usize::from(v.max_players)).contains(&players.len()) {
        return Err(GameError::setup(
            reasons::PLAYER_COUNT,
            format!(
                "{} is played by {} to {} players, not {}",
                v.name,
                v.min_players,
                v.max_players,
                players.len()
            ),
        ));
    }
    if let Some(name) = players.iter().find(|p| p.trim_matches(is_py_space).is_empty()) {
        return Err(GameError::setup(
            reasons::BAD_PLAYER_NAME,
            format!("a player's name is a non-empty string, got {name:?}"),
        ));
    }
    // The count was checked above: it fits a `u8` as `max_players` does.
    for n in 2..=u8::try_from(players.len()).unwrap_or(u8::MAX) {
        let Some(size) = v.hand_size(n) else { continue };
        let dealt =
            usize::from(n) * usize::from(size) + usize::from(v.first_player_extra_cards) + usize::from(v.upcard);
        if dealt + 1 > rules.deck_size {
            return Err(GameError::setup(
                reasons::DECK_TOO_SMALL,
                format!("{n} hands of {size} leave no stock in a deck of {}", rules.deck_size),
            ));
        }
    }
    for d in decks {
        let mut sorted = d.clone();
        sorted.sort_unstable();
        if !sorted.iter().copied().map(usize::from).eq(0..rules.deck_size) {
            return Err(GameError::setup(
                reasons::BAD_DECK,
                format!("a stacked deck is a permutation of the {} card ids", rules.deck_size),
            ));
        }
    }
    Ok(())
}

/// The events the state calls for by itself now (possibly none).
#[must_use]
pub fn follow_up(state: &State, rules: &Rules, setup: &Setup) -> Vec<Event> {
    let v = &rules.variant;
    match state.phase {
        Phase::Over => return Vec::new(),
        Phase::BetweenRounds => {
            if let Some(winners) = match_winners(state, rules) {
                let parts = final_total_parts(state, rules, &winners);
                return vec![Event::MatchEnded {
                    totals: scores_of(&parts),
                    winners,
                    parts,
                }];
            }
            return vec![deal_round(state, rules, setup)];
        }
        Phase::Draw | Phase::Play | Phase::Layoff => {}
    }
    if state.seats.iter().filter(|s| !s.resigned).count() < 2 {
        return vec![round_ended(state, rules, Ending::Resignations, None)];
    }
    if v.knocking {
        if let (true, Some(knocker)) = (state.accepted, state.knocker) {
            return vec![knock_scored(state, rules, knocker)];
        }
        if state.drawn {
            return vec![round_ended(state, rules, Ending::Drawn, None)];
        }
    } else if state.seats[state.turn].hand.is_empty() {
        return vec![round_ended(state, rules, Ending::WentOut, Some(state.turn))];
    }
    let turns: u64 = state.seats.iter().map(|s| u64::from(s.turns)).sum();
    if turns > u64::from(v.max_turns_per_round) {
        return vec![round_ended(state, rules, Ending::TurnLimit, None)];
    }
    if state.phase == Phase::Draw && state.stock.is_empty() {
        let can_rebuild = state.rebuilds < u32::from(v.max_stock_rebuilds);
        if rules.reshuffle {
            if can_rebuild && state.discard.len() >= 2 {
                let rebuild = state.rebuilds + 1;
                let (&kept, pile) = state.discard.split_last().expect("the pile holds two cards");
                let perm = shuffle(&reshuffle_seed(&setup.seed, state.round, rebuild), pile.len());
                let stock: Vec<CardId> = perm.iter().map(|&i| pile[i as usize]).collect();
                return vec![Event::StockReshuffled {
                    rebuild,
                    kept,
                    stock_size: stock.len(),
                    stock: Some(stock),
                }];
            }
            return vec![round_ended(state, rules, Ending::StockExhausted, None)];
        }
        if !can_rebuild || state.discard.is_empty() {
            return vec![round_ended(state, rules, Ending::StockExhausted, None)];
        }
    }
    Vec::new()
}

/// The dealer of the next round: the last seat for the first; then the same
/// dealer after a hand with no winner where the variant says so, the winner
/// of two still in where the winner deals, else the next seat still in.
fn next_dealer(state: &State, v: &Variant) -> usize {
    // A state past its first round has its results (each round's end is
    // folded before the next deal).
    let last = match state.results.last() {
        Some(last) if state.round > 0 => last,
        _ => return state.seats.len() - 1,
    };
    if v.same_dealer_after_draw && last.winner.is_none() {
        return state.dealer;
    }
    if let Some(w) = last.winner {
        if v.winner_deals && state.active().len() == 2 && !state.seats[w].resigned {
            return w;
        }
    }
    state.next_active(state.dealer)
}

/// The next round's deal (`RoundStarted`, every hand and the stock in it).
fn deal_round(state: &State, rules: &Rules, setup: &Setup) -> Event {
    let v = &rules.variant;
    let number = state.round + 1;
    let n = state.seats.len();
    let dealer = next_dealer(state, v);
    let order: Vec<CardId> = match setup.decks.get(number as usize - 1) {
        Some(deck) => deck.clone(),
        // A deck has at most 108 cards: every id fits a `CardId`.
        None => shuffle(&round_seed(&setup.seed, number), rules.deck_size)
            .into_iter()
            .map(|c| c as CardId)
            .collect(),
    };
    let mut seats_in_turn = Vec::new();
    let mut s = dealer;
    for _ in 0..state.active().len() {
        s = state.next_active(s);
        seats_in_turn.push(s);
    }
    let size = u8::try_from(seats_in_turn.len())
        .ok()
        .and_then(|k| v.hand_size(k))
        .expect("match_winners ends a match that cannot be dealt");
    let d = deal(
        &order,
        seats_in_turn.len(),
        usize::from(size),
        usize::from(v.first_player_extra_cards),
        v.upcard,
    );
    let mut hands: Vec<Option<Vec<CardId>>> = vec![Some(Vec::new()); n];
    for (&seat, hand) in seats_in_turn.iter().zip(d.hands) {
        hands[seat] = Some(hand);
    }
    Event::RoundStarted {
        round: number,
        dealer,
        first_player: seats_in_turn[0],
        hand_sizes: hands.iter().map(|h| h.as_ref().map_or(0, Vec::len)).collect(),
        hands,
        upcard: d.upcard,
        stock_size: d.stock.len(),
        stock: Some(d.stock),
    }
}

/// The hands left in every seat, shown at a round's end.
fn hands_left(state: &State) -> Vec<Vec<CardId>> {
    state.seats.iter().map(|s| s.hand.clone()).collect()
}

/// The end of the round with `ending`, won by `winner` (closed in hand when
/// it laid everything in one turn, or never laid before going out).
fn round_ended(state: &State, rules: &Rules, ending: Ending, winner: Option<usize>) -> Event {
    let closed = winner.is_some_and(|w| {
        let first = state.seats[w].first_laid_turn;
        first == 0 || first == state.seats[w].turns
    });
    let parts = round_score_parts(state, rules, winner, closed);
    Event::RoundEnded(RoundResult {
        round: state.round,
        ending,
        winner,
        closed_hand: closed,
        scores: scores_of(&parts),
        hands: hands_left(state),
        parts,
    })
}

/// The end of a knocked hand (the Python engine's `gin.knock_scored`),
/// scored by [`knock_score_parts`].
fn knock_scored(state: &State, rules: &Rules, knocker: usize) -> Event {
    let (winner, ending, parts) = knock_score_parts(state, rules, knocker);
    Event::RoundEnded(RoundResult {
        round: state.round,
        ending,
        winner,
        closed_hand: false,
        scores: scores_of(&parts),
        hands: hands_left(state),
        parts,
    })
}
