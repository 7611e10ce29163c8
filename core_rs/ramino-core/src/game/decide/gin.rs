//! Knocking play (gin; the Python engine's `rules/gin.py`): the first
//! upcard, the wall, the knock, the defender's lay-offs and melds. The score
//! of a knocked hand is the round's (`knock_scored`).

use crate::card::Card;
use crate::meld::validate_meld;
use crate::search::min_deadwood;

use super::super::fold::at_wall;
use super::super::reasons as r;
use super::super::types::{CardId, Event, MeldDescription, Phase, Refusal, Rules, State};
use super::meld::{describe, extended, table_meld};
use super::shape::{in_hand, Shaped};

/// What [`knock_deadwood`] answers for no card at all (the engine's `10**9`).
const NO_KNOCK: u32 = 1_000_000_000;

/// Whether `seat`'s hand with the upcard could knock (its best ten of eleven
/// cards leave at most `knock_card` unmatched).
#[must_use]
pub fn wall_knock_possible(state: &State, rules: &Rules, seat: usize) -> bool {
    let Some(&top) = state.discard.last() else {
        return false;
    };
    let mut cards = rules.cards_of(&state.seats[seat].hand);
    cards.push(rules.card(top));
    knock_deadwood(&cards, rules) <= u32::from(rules.variant.knock_card)
}

/// The least unmatched total of `cards` less one discard. A rest too large
/// for the search counts as no knock (no hand of a real deal is that large).
#[must_use]
pub fn knock_deadwood(cards: &[Card], rules: &Rules) -> u32 {
    let mut best = NO_KNOCK;
    for i in 0..cards.len() {
        let mut rest = cards.to_vec();
        rest.remove(i);
        if rest.is_empty() {
            best = 0;
        } else if let Ok(d) = min_deadwood(&rest, &rules.variant) {
            best = best.min(d.value);
        }
    }
    best
}

/// A command of the seat whose turn it is, in knocking play.
pub(super) fn knocking(state: &State, rules: &Rules, seat: usize, command: Shaped) -> Result<Vec<Event>, Refusal> {
    let v = &rules.variant;
    if state.phase == Phase::Layoff {
        return defend(state, rules, seat, command);
    }
    let wall = at_wall(state, rules) && !state.first_upcard;
    if state.phase == Phase::Draw {
        return match command {
            Shaped::PassUpcard => {
                if (state.first_upcard && state.passes < 2) || wall {
                    Ok(vec![Event::PassedUpcard { seat }])
                } else {
                    Err(Refusal::illegal(
                        r::CANNOT_PASS,
                        "pass only on the first upcard or at the wall",
                    ))
                }
            }
            Shaped::TakeDiscard => {
                let Some(&card) = state.discard.last() else {
                    return Err(Refusal::illegal(r::DISCARD_PILE_EMPTY, "the discard pile is empty"));
                };
                if state.first_upcard && state.passes >= 2 {
                    return Err(Refusal::illegal(
                        r::UPCARD_PASSED,
                        "both passed the upcard: draw from the stock",
                    ));
                }
                if wall && !wall_knock_possible(state, rules, seat) {
                    return Err(Refusal::illegal(
                        r::WALL_NEEDS_KNOCK,
                        format!(
                            "at the wall the upcard is taken only to knock (at most {})",
                            v.knock_card
                        ),
                    ));
                }
                Ok(vec![Event::TookDiscard { seat, card }])
            }
            Shaped::DrawFromStock => {
                if state.first_upcard && state.passes < 2 {
                    return Err(Refusal::illegal(
                        r::TAKE_OR_PASS_UPCARD,
                        "take the first upcard or pass",
                    ));
                }
                if wall {
                    return Err(Refusal::illegal(
                        r::WALL_REACHED,
                        "the stock is at the wall: knock with the upcard or pass",
                    ));
                }
                match state.stock.last() {
                    Some(&card) => Ok(vec![Event::DrewFromStock { seat, card: Some(card) }]),
                    None => Err(Refusal::illegal(r::STOCK_EMPTY, "the stock is empty")),
                }
            }
            Shaped::TurnOverDiscardPile => Err(Refusal::illegal(
                r::TURN_OVER_NOT_ALLOWED,
                "the discard pile is never turned over here",
            )),
            _ => Err(Refusal::illegal(r::MUST_DRAW_FIRST, "draw a card first")),
        };
    }
    match command {
        Shaped::DrawFromStock | Shaped::TakeDiscard | Shaped::TurnOverDiscardPile | Shaped::PassUpcard => {
            Err(Refusal::illegal(r::ALREADY_DREW, "you have drawn this turn"))
        }
        Shaped::AcceptLayout => Err(Refusal::illegal(
            r::DEFENDER_TO_PLAY,
            "only the defender accepts a layout",
        )),
        Shaped::Discard(card) => {
            in_hand(&state.seats[seat].hand, card)?;
            if state.wall_take {
                return Err(Refusal::illegal(
                    r::MUST_KNOCK,
                    "the upcard taken at the wall obliges a knock",
                ));
            }
            Ok(vec![Event::Discarded { seat, card }])
        }
        Shaped::Knock { discard, melds } => knock(state, rules, seat, discard, melds),
        _ => Err(Refusal::illegal(
            r::MELDS_ONLY_BY_KNOCKING,
            "in gin, melds are laid only by knocking",
        )),
    }
}

/// A knock: `discard` (`None`: big gin) and the melds of the rest; what is
/// left unmatched may total at most the knock card.
fn knock(
    state: &State,
    rules: &Rules,
    seat: usize,
    discard: Option<CardId>,
    melds: Vec<Vec<CardId>>,
) -> Result<Vec<Event>, Refusal> {
    let v = &rules.variant;
    let mut hand = state.seats[seat].hand.clone();
    match discard {
        None => {
            if !v.big_gin {
                return Err(Refusal::illegal(
                    r::BIG_GIN_NOT_ALLOWED,
                    "a knock discards a card (big gin is off)",
                ));
            }
        }
        Some(d) => {
            in_hand(&hand, d)?;
            if let Some(i) = hand.iter().position(|&c| c == d) {
                hand.remove(i);
            }
        }
    }
    let mut described = Vec::with_capacity(melds.len());
    for meld in &melds {
        if let Some(c) = meld.iter().find(|c| !hand.contains(c)) {
            return Err(Refusal::illegal(
                r::CARD_NOT_IN_HAND,
                format!("card {c} is not in your hand after the discard"),
            ));
        }
        let m = validate_meld(&rules.cards_of(meld), v)
            .map_err(|e| Refusal::illegal_detail(r::INVALID_MELD, format!("not a meld: {e}"), e.reason()))?;
        described.push(MeldDescription::of(&m));
    }
    let left: Vec<CardId> = hand
        .iter()
        .copied()
        .filter(|c| !melds.iter().any(|m| m.contains(c)))
        .collect();
    let deadwood = rules.penalty(&left);
    if discard.is_none() && !left.is_empty() {
        return Err(Refusal::illegal(r::BIG_GIN_MELDS_ALL, "big gin melds all eleven cards"));
    }
    if deadwood > u32::from(v.knock_card) {
        return Err(Refusal::illegal(
            r::KNOCK_TOO_HIGH,
            format!(
                "the unmatched cards total {deadwood}, more than the knock card {}",
                v.knock_card
            ),
        ));
    }
    Ok(vec![Event::Knocked {
        seat,
        discard,
        melds,
        deadwood,
        described,
    }])
}

/// The defender's play after a knock: lay off on the knocker's melds, then
/// its own melds, then accept the layout.
fn defend(state: &State, rules: &Rules, seat: usize, command: Shaped) -> Result<Vec<Event>, Refusal> {
    let v = &rules.variant;
    let hand = &state.seats[seat].hand;
    match command {
        Shaped::AcceptLayout => Ok(vec![Event::LayoutAccepted { seat }]),
        Shaped::LayMelds(melds) => {
            let mut described = Vec::with_capacity(melds.len());
            for meld in &melds {
                for &c in meld {
                    in_hand(hand, c)?;
                }
                let m = validate_meld(&rules.cards_of(meld), v)
                    .map_err(|e| Refusal::illegal_detail(r::INVALID_MELD, format!("not a meld: {e}"), e.reason()))?;
                described.push(MeldDescription::of(&m));
            }
            Ok(vec![Event::MeldsLaid {
                seat,
                melds,
                opening: false,
                described,
            }])
        }
        Shaped::LayOff { card, meld, end } => {
            in_hand(hand, card)?;
            table_meld(state, meld)?;
            // A layoff phase always has its knocker.
            let gin = state.knocker.is_some_and(|k| state.seats[k].hand.is_empty());
            if gin && !state.big_gin {
                return Err(Refusal::illegal(r::NO_LAYOFF_ON_GIN, "no lay-offs on gin"));
            }
            if state.big_gin {
                return Err(Refusal::illegal(r::NO_LAYOFF_ON_GIN, "no lay-offs on big gin"));
            }
            if meld >= state.knock_melds {
                return Err(Refusal::illegal(
                    r::LAYOFF_ONLY_ON_KNOCKERS_MELDS,
                    "lay off only on the knocker's melds",
                ));
            }
            if state.defender_melded {
                return Err(Refusal::illegal(
                    r::NO_LAYOFF_AFTER_MELDS,
                    "lay-offs come before your own melds",
                ));
            }
            let after = extended(rules, &state.melds[meld].cards, card, end)?;
            let described = Some(describe(rules, &after, r::CANNOT_LAY_OFF)?);
            Ok(vec![Event::LaidOff {
                seat,
                card,
                meld,
                end,
                described,
            }])
        }
        _ => Err(Refusal::illegal(
            r::DEFENDER_TO_PLAY,
            "the defender lays off, melds, or accepts the layout",
        )),
    }
}
