//! The shape of a command, checked before the state (the Python engine's
//! `rules/shape.py`): card ids of the deck, meld indexes, ends; and the
//! refusal every phase gives for a card not in hand.

use crate::meld::End;

use super::super::reasons as r;
use super::super::types::{CardId, Command, Raw, RawEnd, Refusal, Rules, BAD_VALUE};

/// A command whose fields have their shape: card ids of the deck, meld
/// indexes, ends. `Resign` never gets here (it needs no shape).
#[derive(Debug)]
pub(super) enum Shaped {
    DrawFromStock,
    TakeDiscard,
    TurnOverDiscardPile,
    PassUpcard,
    AcceptLayout,
    Knock {
        discard: Option<CardId>,
        melds: Vec<Vec<CardId>>,
    },
    Discard(CardId),
    LayOff {
        card: CardId,
        meld: usize,
        end: End,
    },
    SwapJoker {
        card: CardId,
        meld: usize,
        joker: CardId,
    },
    LayMelds(Vec<Vec<CardId>>),
}

/// A raw field as a message shows it ([`BAD_VALUE`] is not a number).
fn render(value: Raw) -> String {
    if value == BAD_VALUE {
        "a non-integer".to_owned()
    } else {
        value.to_string()
    }
}

/// A card id of the deck.
fn card_id(value: Raw, rules: &Rules) -> Result<CardId, Refusal> {
    if value == BAD_VALUE {
        return Err(Refusal::malformed(
            r::BAD_FIELD,
            format!("a card id is an integer, got {}", render(value)),
        ));
    }
    match CardId::try_from(value) {
        Ok(id) if usize::from(id) < rules.deck_size => Ok(id),
        _ => Err(Refusal::malformed(
            r::UNKNOWN_CARD,
            format!("no card {value} in a deck of {}", rules.deck_size),
        )),
    }
}

/// A non-negative index (of a table meld).
fn index(value: Raw, what: &str) -> Result<usize, Refusal> {
    if value == BAD_VALUE || value < 0 {
        return Err(Refusal::malformed(
            r::BAD_FIELD,
            format!("{what} is a non-negative integer, got {}", render(value)),
        ));
    }
    // An index beyond the address space is beyond every table: no such meld.
    Ok(usize::try_from(value).unwrap_or(usize::MAX))
}

/// Refuses a card that is not in `hand`.
pub(super) fn in_hand(hand: &[CardId], card: CardId) -> Result<(), Refusal> {
    if hand.contains(&card) {
        Ok(())
    } else {
        Err(Refusal::illegal(
            r::CARD_NOT_IN_HAND,
            format!("card {card} is not in your hand"),
        ))
    }
}

/// The melds' card ids: a list of melds (at least one unless `allow_empty`),
/// each card of the deck and given once. A meld's ids are all checked before
/// its duplicates, as the engine does.
fn meld_ids(melds: Option<&[Vec<Raw>]>, rules: &Rules, allow_empty: bool) -> Result<Vec<Vec<CardId>>, Refusal> {
    let melds = match melds {
        Some(m) if allow_empty || !m.is_empty() => m,
        _ => return Err(Refusal::malformed(r::NO_MELDS, "lay at least one meld")),
    };
    let mut seen = vec![false; rules.deck_size];
    let mut out = Vec::with_capacity(melds.len());
    for meld in melds {
        let ids = meld.iter().map(|&c| card_id(c, rules)).collect::<Result<Vec<_>, _>>()?;
        for &c in &ids {
            if std::mem::replace(&mut seen[usize::from(c)], true) {
                return Err(Refusal::malformed(
                    r::DUPLICATE_CARD,
                    format!("card {c} is given twice"),
                ));
            }
        }
        out.push(ids);
    }
    Ok(out)
}

/// `command` with its fields checked (card ids in the deck, meld indexes,
/// ends).
///
/// # Errors
/// The `MalformedCommand` refusal of the first bad field.
pub(super) fn shape(command: &Command, rules: &Rules) -> Result<Shaped, Refusal> {
    Ok(match command {
        Command::DrawFromStock => Shaped::DrawFromStock,
        Command::TakeDiscard => Shaped::TakeDiscard,
        Command::TurnOverDiscardPile => Shaped::TurnOverDiscardPile,
        Command::PassUpcard => Shaped::PassUpcard,
        Command::AcceptLayout => Shaped::AcceptLayout,
        Command::Knock { discard, melds } => Shaped::Knock {
            discard: discard.map(|d| card_id(d, rules)).transpose()?,
            melds: meld_ids(melds.as_deref(), rules, true)?,
        },
        Command::Discard { card } => Shaped::Discard(card_id(*card, rules)?),
        Command::LayOff { card, meld, end } => {
            let end = match end {
                RawEnd::Start => End::Start,
                RawEnd::End => End::End,
                RawEnd::Bad(text) => {
                    return Err(Refusal::malformed(
                        r::BAD_END,
                        format!("end is 'start' or 'end', got {text:?}"),
                    ))
                }
            };
            Shaped::LayOff {
                card: card_id(*card, rules)?,
                meld: index(*meld, "meld")?,
                end,
            }
        }
        Command::SwapJoker { card, meld, joker } => Shaped::SwapJoker {
            card: card_id(*card, rules)?,
            meld: index(*meld, "meld")?,
            joker: card_id(*joker, rules)?,
        },
        Command::LayMelds { melds } => Shaped::LayMelds(meld_ids(melds.as_deref(), rules, false)?),
        Command::Unknown(text) => {
            return Err(Refusal::malformed(r::UNKNOWN_COMMAND, format!("not a command: {text}")));
        }
        // `decide` answers a resignation before any shape: it has none.
        Command::Resign => {
            return Err(Refusal::malformed(r::UNKNOWN_COMMAND, "not a command: Resign()"));
        }
    })
}
