//! The greedy policy, written once (a port of the Python greedy bot's
//! `GreedyBot.choose`, `service/ramino/bots/greedy.py`): the bots' playouts
//! ([`crate::playout`]) play every seat by it, and the greedy bot is to call
//! it too.
//!
//! It opens as soon as it can, lays every meld of its least deadwood, lays
//! off what fits, swaps jokers it can use, takes the discard only when the
//! card joins a meld (or is a joker), and discards by the one discard policy
//! ([`super::policy::best_discards`]), ties broken by the caller's `pick`. In
//! gin it takes the upcard when it joins a meld (at the wall: whenever the
//! knock it allows is legal), knocks as soon as it can with the least
//! unmatched total, else discards; as the defender it lays off every card it
//! can, then the melds of its least deadwood, then accepts the layout.
//!
//! It reads what the seat may see: its hand, the table, the discard pile,
//! the stock's size, the card it took, a swapped joker, whether it must open
//! and whether the first upcard is on offer; the rules ([`decide`],
//! [`legal_moves`], [`knocks`]) answer whether a command is legal. Where the
//! Python bot would fail (a hand the search refuses, no legal move at all),
//! which no folded record gives, it proposes nothing.
//!
//! `pick(n)` chooses an index below `n` among equally good discards (the
//! Python bot's `self._rng.choice`); it is called once per choice, even of
//! one, as Python's `choice` draws for it. [`choose_with`] hands the whole
//! choice to the caller instead (the cards it may discard and the best of
//! them): the easy bot, which throws a card at random half the time, plays
//! the greedy policy so.
//!
//! [`choose_among`] is given the seat's legal moves, which a caller may have
//! narrowed (a game played under another rule set, such as OpenSpiel's gin,
//! which extends a knocker's run only next to the run as laid): its
//! lay-offs and joker swaps are then chosen only among the listed ones, and
//! its fallback is the list's. Given [`legal_moves`]' own list it chooses
//! as [`choose_with`] does.

use std::sync::Arc;

use crate::card::Card;
use crate::meld::{extension_fits, validate_meld, End, Meld, MeldKind};
use crate::search::{best_opening, min_deadwood, Deadwood, MAX_HAND};

use super::decide::{decide, joker_meld};
use super::moves::{knocks, legal_moves};
use super::policy::{best_discards, discardable, ids_of, keep_one};
use super::types::{CardId, Command, Event, Phase, Rules, State, TableMeld};

/// The command the greedy policy plays for `seat` now (the seat whose turn
/// it is), or `None` when it has none (see the module's notes).
#[must_use]
pub fn choose(state: &State, rules: &Rules, seat: usize, pick: &mut impl FnMut(usize) -> usize) -> Option<Command> {
    play(state, rules, seat, pick, &mut Memo::default()).map(|(command, _)| command)
}

/// [`choose`], each discard chosen by `discard(allowed, best)`: the cards
/// the policy would let the seat discard and the best of them by the
/// discard policy (never empty). A card it returns outside `allowed` counts
/// as the first of `best`.
#[must_use]
pub fn choose_with(
    state: &State,
    rules: &Rules,
    seat: usize,
    discard: &mut impl FnMut(&[CardId], &[CardId]) -> CardId,
) -> Option<Command> {
    play_with(state, rules, seat, None, discard, &mut Memo::default()).map(|(command, _)| command)
}

/// [`choose_with`], its lay-offs, joker swaps and fallback chosen only among
/// `legal` when it is given: the seat's legal moves now, perhaps fewer than
/// [`legal_moves`] lists (a lay-off the list leaves out is never played,
/// though the rules take it). `None`: the rules' own moves.
#[must_use]
pub fn choose_among(
    state: &State,
    rules: &Rules,
    seat: usize,
    legal: Option<&[Command]>,
    discard: &mut impl FnMut(&[CardId], &[CardId]) -> CardId,
) -> Option<Command> {
    play_with(state, rules, seat, legal, discard, &mut Memo::default()).map(|(command, _)| command)
}

/// [`choose`], with the events [`decide`] gives the command (so that a
/// caller folding them need not decide it again). `memo`: what earlier
/// calls in the same round found (any memo will do: one it does not fit
/// starts afresh).
#[must_use]
pub fn play(
    state: &State,
    rules: &Rules,
    seat: usize,
    pick: &mut impl FnMut(usize) -> usize,
    memo: &mut Memo,
) -> Option<(Command, Vec<Event>)> {
    let mut discard = |_: &[CardId], best: &[CardId]| best[pick(best.len()) % best.len()];
    play_with(state, rules, seat, None, &mut discard, memo)
}

fn play_with(
    state: &State,
    rules: &Rules,
    seat: usize,
    legal: Option<&[Command]>,
    pick: &mut impl FnMut(&[CardId], &[CardId]) -> CardId,
    memo: &mut Memo,
) -> Option<(Command, Vec<Event>)> {
    let seat_id = i64::try_from(seat).ok()?;
    if seat >= state.seats.len() {
        return None;
    }
    let mut g = Greedy {
        state,
        rules,
        seat,
        seat_id,
        hand: &state.seats[seat].hand,
        legal,
        pick,
        memo,
    };
    let proposal = if rules.variant.knocking {
        g.gin()
    } else if state.phase == Phase::Draw {
        g.rummy_draw()
    } else {
        g.rummy_play()
    };
    match proposal {
        Proposal::Checked(checked) => Some(checked),
        Proposal::Unchecked(command) => g.check(command).or_else(|| g.fallback()),
        Proposal::Fallback => g.fallback(),
        Proposal::Nothing => None,
    }
}

/// Card indexes: the naturals and the joker.
const KINDS: usize = Card::NATURALS + 1;

/// What a table meld takes, by card index, not yet searched.
const UNKNOWN: u32 = u32::MAX;

/// The lay-offs and joker swaps of each card onto each table meld, kept
/// from one call of [`play`] to the next. The kernel's search lists them
/// card by card and meld by meld ([`crate::search::layoff_targets`],
/// [`crate::search::joker_swaps`]), each the same whatever else the hand
/// and the table hold, so a card is searched against a meld once, until
/// that meld changes.
///
/// It also keeps the least deadwood of the last few hands searched: a turn
/// searches the same hand more than once (the draw asks of the hand with
/// the discard what the play then asks of the hand that took it).
#[derive(Clone, Debug, Default)]
pub struct Memo {
    melds: Vec<MeldMemo>,
    /// Hands (in hand order) and their least deadwood (`None`: the search
    /// refuses the hand), the latest last.
    deadwoods: Vec<Searched>,
}

/// A hand searched for its least deadwood.
#[derive(Clone, Debug)]
struct Searched {
    /// The hand, in hand order.
    hand: Vec<Card>,
    /// The search's answer (`None`: it refuses the hand).
    deadwood: Option<Arc<Deadwood>>,
    /// The cards of the deadwood (bits by card index; 0 with none).
    loose: u64,
}

/// Hands whose least deadwood the memo keeps.
const DEADWOODS: usize = 4;

/// One table meld's entries.
#[derive(Clone, Debug)]
struct MeldMemo {
    /// The meld's cards the entries are for.
    cards: Vec<CardId>,
    /// The meld, validated as the kernel's search validates the table
    /// (`None`: it is not a meld, and the search lists nothing at all).
    meld: Option<Meld>,
    /// By card index: bit 0, the card is laid off at the start; bit 1, at
    /// the end; [`UNKNOWN`]: not searched.
    layoffs: [u32; KINDS],
    /// By card index: bit `i`, the card may take the joker at position `i`.
    swaps: [u32; KINDS],
}

impl MeldMemo {
    fn entries(&mut self, entry: Entry) -> &mut [u32; KINDS] {
        match entry {
            Entry::Layoffs => &mut self.layoffs,
            Entry::Swaps => &mut self.swaps,
        }
    }
}

impl Memo {
    /// Keeps the entries of the melds of `table` that have not changed.
    fn fit(&mut self, table: &[TableMeld], rules: &Rules) {
        self.melds.truncate(table.len());
        for (i, m) in table.iter().enumerate() {
            let meld = || validate_meld(&rules.cards_of(&m.cards), &rules.variant).ok();
            match self.melds.get_mut(i) {
                Some(memo) if memo.cards == m.cards => {}
                Some(memo) => {
                    memo.cards.clone_from(&m.cards);
                    memo.meld = meld();
                    memo.layoffs = [UNKNOWN; KINDS];
                    memo.swaps = [UNKNOWN; KINDS];
                }
                None => self.melds.push(MeldMemo {
                    cards: m.cards.clone(),
                    meld: meld(),
                    layoffs: [UNKNOWN; KINDS],
                    swaps: [UNKNOWN; KINDS],
                }),
            }
        }
    }
}

/// Which of a meld's entries a search fills.
#[derive(Clone, Copy)]
enum Entry {
    Layoffs,
    Swaps,
}

/// What a step of the policy proposes: a command [`decide`] accepted (with
/// its events), one still to check, the fallback, or nothing.
enum Proposal {
    Checked((Command, Vec<Event>)),
    Unchecked(Command),
    Fallback,
    Nothing,
}

struct Greedy<'a, P> {
    state: &'a State,
    rules: &'a Rules,
    seat: usize,
    seat_id: i64,
    hand: &'a [CardId],
    /// The moves the seat is limited to, when the caller gives them.
    legal: Option<&'a [Command]>,
    pick: &'a mut P,
    memo: &'a mut Memo,
}

impl<P: FnMut(&[CardId], &[CardId]) -> CardId> Greedy<'_, P> {
    /// `command` with its events when the rules take it now (the Python
    /// `_legal`).
    fn check(&self, command: Command) -> Option<(Command, Vec<Event>)> {
        decide(self.state, self.rules, self.seat_id, &command)
            .ok()
            .map(|events| (command, events))
    }

    /// The card of the hand that plays `target` by `command(card)`, never
    /// `except`: the first such id of the hand, or where the caller listed
    /// the legal moves, the first whose command the list holds.
    fn card_for(&self, target: Card, except: Option<CardId>, command: impl Fn(CardId) -> Command) -> Option<CardId> {
        let mut ids = self
            .hand
            .iter()
            .copied()
            .filter(|&c| self.rules.card(c) == target && Some(c) != except);
        match self.legal {
            None => ids.next(),
            Some(listed) => ids.find(|&c| listed.contains(&command(c))),
        }
    }

    /// The least deadwood of `cards` ([`min_deadwood`]'s answer, `None` for
    /// its refusal), from the memo when the hand was searched lately.
    fn deadwood(&mut self, cards: &[Card]) -> Option<Arc<Deadwood>> {
        let memo = &mut self.memo.deadwoods;
        if let Some(s) = memo.iter().find(|s| s.hand == cards) {
            return s.deadwood.clone();
        }
        let kinds = distinct(cards);
        let left_over =
            |s: &Searched| kinds & !s.loose == 0 && s.deadwood.as_ref().is_some_and(|d| within(cards, &d.deadwood));
        let d = match memo.iter().find(|s| left_over(s)) {
            // Cards left over by a least deadwood hold no meld (it would
            // have been laid too, every card weighing something): all loose.
            Some(_) if !cards.is_empty() && cards.iter().all(|c| self.rules.variant.penalty(c) > 0) => {
                Some(Arc::new(Deadwood {
                    value: self.rules.variant.hand_penalty(cards),
                    melds: Vec::new(),
                    deadwood: cards.to_vec(),
                }))
            }
            _ => min_deadwood(cards, &self.rules.variant).ok().map(Arc::new),
        };
        if memo.len() == DEADWOODS {
            memo.remove(0);
        }
        memo.push(Searched {
            hand: cards.to_vec(),
            loose: d.as_ref().map_or(0, |d| distinct(&d.deadwood)),
            deadwood: d.clone(),
        });
        d
    }

    /// The Python `_discard_choice`: among the best discards of `allowed`
    /// (not empty), the one `pick` chooses. `deadwood`: the hand's least
    /// deadwood, when already searched.
    fn discard_choice(&mut self, allowed: &[CardId], deadwood: Option<&Deadwood>) -> Option<CardId> {
        let searched;
        let deadwood = match deadwood {
            Some(d) => d,
            None => {
                // What the policy would search: the hand's least deadwood,
                // or every card loose where the search refuses the hand.
                let cards = self.rules.cards_of(self.hand);
                searched = self.deadwood(&cards).unwrap_or_else(|| {
                    Arc::new(Deadwood {
                        value: 0,
                        melds: Vec::new(),
                        deadwood: cards,
                    })
                });
                &searched
            }
        };
        let best = best_discards(self.rules, self.hand, allowed, Some(deadwood));
        if best.is_empty() {
            return None;
        }
        let chosen = (self.pick)(allowed, &best);
        Some(if allowed.contains(&chosen) { chosen } else { best[0] })
    }

    /// The Python `_fallback`: the best discard among the legal ones, else
    /// the first legal move.
    fn fallback(&mut self) -> Option<(Command, Vec<Event>)> {
        let moves = match self.legal {
            Some(listed) => listed.to_vec(),
            None => legal_moves(self.state, self.rules, self.seat),
        };
        let discards: Vec<CardId> = moves
            .iter()
            .filter_map(|m| match m {
                Command::Discard { card } => CardId::try_from(*card).ok(),
                _ => None,
            })
            .collect();
        if discards.is_empty() {
            let first = moves.into_iter().next()?;
            return self.check(first);
        }
        let best = self.discard_choice(&discards, None)?;
        self.check(Command::discard(best))
    }

    /// The lay-offs of `cards` (the hand's) onto `table`, as the kernel's
    /// [`crate::search::layoff_targets`] lists them: by card (sorted), meld
    /// and end.
    fn layoffs(&mut self, cards: &[Card], table: &[TableMeld]) -> Vec<(Card, usize, End)> {
        if cards.len() > MAX_HAND {
            return Vec::new();
        }
        let kinds = distinct(cards);
        if !self.search(kinds, table, Entry::Layoffs) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for c in each(kinds) {
            for (i, memo) in self.memo.melds.iter().enumerate() {
                let ends = memo.layoffs[c.index()];
                if ends & 1 != 0 {
                    out.push((c, i, End::Start));
                }
                if ends & 2 != 0 {
                    out.push((c, i, End::End));
                }
            }
        }
        out
    }

    /// The joker swaps of `cards` (the hand's) on `table`, as the kernel's
    /// [`crate::search::joker_swaps`] lists them: by natural card (sorted),
    /// meld and joker.
    fn swaps(&mut self, cards: &[Card], table: &[TableMeld]) -> Vec<(Card, usize, usize)> {
        if cards.len() > MAX_HAND {
            return Vec::new();
        }
        let kinds = distinct(cards) & !(1 << Card::JOKER.index());
        if !self.search(kinds, table, Entry::Swaps) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for c in each(kinds) {
            for (i, memo) in self.memo.melds.iter().enumerate() {
                let mut jokers = memo.swaps[c.index()];
                while jokers != 0 {
                    out.push((c, i, jokers.trailing_zeros() as usize));
                    jokers &= jokers - 1;
                }
            }
        }
        out
    }

    /// Fills the memo's `entry` of the cards `kinds` (bits by card index)
    /// against every meld of `table`, searching each meld for the cards not
    /// yet searched against it, as the kernel's search does (`extend_meld`
    /// at each end a run has, one end of a set; `swap_joker` on each joker):
    /// false when the search refuses the table (it then lists nothing at
    /// all).
    fn search(&mut self, kinds: u64, table: &[TableMeld], entry: Entry) -> bool {
        let rules = self.rules;
        let v = &rules.variant;
        self.memo.fit(table, rules);
        for memo in &mut self.memo.melds {
            let entries = memo.entries(entry);
            let missing = each(kinds)
                .filter(|c| entries[c.index()] == UNKNOWN)
                .fold(0u64, |bits, c| bits | 1 << c.index());
            if missing == 0 {
                continue;
            }
            let Some(meld) = &memo.meld else {
                return false;
            };
            let entries = match entry {
                Entry::Layoffs => &mut memo.layoffs,
                Entry::Swaps => &mut memo.swaps,
            };
            for c in each(missing) {
                // Each card's bits: the ends, or the joker positions.
                let bits = match entry {
                    Entry::Layoffs => {
                        let fits = |end| extension_fits(&meld.cards, meld.kind, c, end, v).is_ok();
                        let start = meld.kind == MeldKind::Run && fits(End::Start);
                        u32::from(start) | u32::from(fits(End::End)) << 1
                    }
                    Entry::Swaps => meld
                        .jokers
                        .iter()
                        .filter(|role| c.rank() == Some(role.rank) && c.suit().is_some_and(|s| role.suits.contains(&s)))
                        .fold(0, |bits, role| bits | 1 << role.index),
                };
                entries[c.index()] = bits;
            }
        }
        true
    }

    // --- knocking play (gin) -------------------------------------------------

    /// The Python `_gin`, its legal moves asked for one at a time (the same
    /// answers as the whole list).
    fn gin(&mut self) -> Proposal {
        match self.state.phase {
            Phase::Draw => self.gin_draw(),
            Phase::Play => self.gin_play(),
            _ => self.gin_defend(),
        }
    }

    fn gin_draw(&mut self) -> Proposal {
        let (state, rules) = (self.state, self.rules);
        let take = self.check(Command::TakeDiscard);
        let draw = self.check(Command::DrawFromStock);
        if let (Some(&top), true) = (state.discard.last(), take.is_some()) {
            let top = rules.card(top);
            let mut cards = rules.cards_of(self.hand);
            cards.push(top);
            let joins = self.deadwood(&cards).is_some_and(|d| !d.deadwood.contains(&top));
            let wall = draw.is_none() && !state.first_upcard;
            if wall || joins {
                return take.map_or(Proposal::Nothing, Proposal::Checked);
            }
        }
        // Else the stock, else a pass, else the discard after all.
        draw.or_else(|| self.check(Command::PassUpcard))
            .or(take)
            .map_or(Proposal::Nothing, Proposal::Checked)
    }

    fn gin_play(&mut self) -> Proposal {
        let (state, rules) = (self.state, self.rules);
        let deadwood = self.deadwood(&rules.cards_of(self.hand));
        let knock = match &deadwood {
            Some(d) => self.best_knock(d),
            None => knocks(state, rules, self.seat)
                .into_iter()
                .next()
                .and_then(|k| self.check(k)),
        };
        if let Some(checked) = knock {
            return Proposal::Checked(checked);
        }
        // The legal discards: one per distinct card, the first of the hand.
        // The rules answer a discard of any card of the hand alike (the card
        // is only checked to be in hand), so they are asked once.
        let mut legal: Vec<CardId> = Vec::new();
        let discards = self
            .hand
            .first()
            .is_some_and(|&c| decide(state, rules, self.seat_id, &Command::discard(c)).is_ok());
        for &c in self.hand {
            let card = rules.card(c);
            if discards && !legal.iter().any(|&l| rules.card(l) == card) {
                legal.push(c);
            }
        }
        let allowed: Vec<CardId> = discardable(rules, self.hand, state.taken, None)
            .into_iter()
            .filter(|c| legal.contains(c))
            .collect();
        if allowed.is_empty() {
            // The Python bot would fail here (no legal discard and no knock).
            return Proposal::Nothing;
        }
        match self.discard_choice(&allowed, deadwood.as_deref()) {
            Some(c) => Proposal::Unchecked(Command::discard(c)),
            None => Proposal::Nothing,
        }
    }

    /// The first of the kernel's [`knocks`] (the least unmatched total, the
    /// first in hand order among equals; big gin first), with its events;
    /// `deadwood` is the hand's least deadwood.
    ///
    /// Only the discards that may beat the best found are searched: a hand
    /// less one card keeps at least its least deadwood less that card's
    /// penalty, exactly that when the card is loose in it. Should the rules
    /// refuse that knock, the kernel's whole list answers.
    fn best_knock(&self, deadwood: &Deadwood) -> Option<(Command, Vec<Event>)> {
        let (state, rules) = (self.state, self.rules);
        let v = &rules.variant;
        let hand = self.hand;
        if v.big_gin && hand.len() <= MAX_HAND && deadwood.deadwood.is_empty() {
            let melds = ids_of(hand, rules, &deadwood.melds, &[]);
            if let Some(checked) = self.check(Command::knock(None, &melds)) {
                return Some(checked);
            }
        }
        let knock_card = u32::from(v.knock_card);
        // Each distinct card (its first id) that may knock: the least total
        // its discard can leave, and whether that is the total.
        let mut tried: Vec<Card> = Vec::new();
        let mut bounds: Vec<(u32, usize, CardId, bool)> = Vec::new();
        for &d in hand {
            let card = rules.card(d);
            if tried.contains(&card) {
                continue;
            }
            tried.push(card);
            let floor = deadwood.value.saturating_sub(rules.penalties[d as usize]);
            if floor <= knock_card {
                bounds.push((floor, tried.len(), d, deadwood.deadwood.contains(&card)));
            }
        }
        bounds.sort_unstable();
        // (total, order, discard, the rest's melds)
        let mut best: Option<(u32, usize, CardId, Vec<Vec<Card>>)> = None;
        for (floor, order, d, exact) in bounds {
            if best.as_ref().is_some_and(|b| (floor, order) >= (b.0, b.1)) {
                break;
            }
            let Ok(rest) = min_deadwood(&rules.cards_of(&without(hand, d)), v) else {
                continue;
            };
            debug_assert!(!exact || rest.value == floor);
            if rest.value <= knock_card && best.as_ref().is_none_or(|b| (rest.value, order) < (b.0, b.1)) {
                best = Some((rest.value, order, d, rest.melds));
            }
        }
        let (_, _, d, melds) = best?;
        let rest = without(hand, d);
        self.check(Command::knock(Some(d), &ids_of(&rest, rules, &melds, &[])))
            .or_else(|| knocks(state, rules, self.seat).into_iter().find_map(|k| self.check(k)))
    }

    fn gin_defend(&mut self) -> Proposal {
        let (state, rules) = (self.state, self.rules);
        let hand_cards = rules.cards_of(self.hand);
        // The first legal lay-off, in the order of the legal moves.
        let knock_melds = state.knock_melds.min(state.melds.len());
        if knock_melds > 0 && !self.hand.is_empty() {
            for (target, meld, end) in self.layoffs(&hand_cards, &state.melds[..knock_melds]) {
                let Some(card) = self.card_for(target, None, |c| Command::lay_off(c, meld, end)) else {
                    continue;
                };
                if let Some(checked) = self.check(Command::lay_off(card, meld, end)) {
                    return Proposal::Checked(checked);
                }
            }
        }
        if !self.hand.is_empty() {
            if let Some(d) = self.deadwood(&hand_cards) {
                if let Some(first) = d.melds.first() {
                    let melds = ids_of(self.hand, rules, std::slice::from_ref(first), &[]);
                    return Proposal::Unchecked(Command::lay_melds(&melds));
                }
            }
        }
        Proposal::Unchecked(Command::AcceptLayout)
    }

    // --- rummy ---------------------------------------------------------------

    /// The Python `_draw`: the discard when it joins a meld (or is a joker)
    /// and may be taken, else the stock, else the pile turned over.
    fn rummy_draw(&mut self) -> Proposal {
        let (state, rules) = (self.state, self.rules);
        if let Some(&top) = state.discard.last() {
            let card = rules.card(top);
            let mut wanted = card.is_joker();
            if !wanted {
                let mut cards = rules.cards_of(self.hand);
                cards.push(card);
                wanted = self.deadwood(&cards).is_some_and(|d| !d.deadwood.contains(&card));
            }
            if wanted {
                if let Some(checked) = self.check(Command::TakeDiscard) {
                    return Proposal::Checked(checked);
                }
            }
        }
        if state.stock.is_empty() {
            Proposal::Unchecked(Command::TurnOverDiscardPile)
        } else {
            Proposal::Unchecked(Command::DrawFromStock)
        }
    }

    /// The Python `_play`: open with the best opening; lay a swapped
    /// joker's meld; lay the melds of the least deadwood (one card kept
    /// back where going out needs a discard); the first legal lay-off (a
    /// joker only as one of the last two cards); the first legal joker
    /// swap; else discard.
    fn rummy_play(&mut self) -> Proposal {
        let (state, rules) = (self.state, self.rules);
        let v = &rules.variant;
        let s = &state.seats[self.seat];
        let hand_cards = rules.cards_of(self.hand);
        let first = [state.taken, state.pending_joker];

        if rules.needs_opening && !s.opened {
            let include = if state.must_open {
                state.taken.map(|t| rules.card(t))
            } else {
                None
            };
            if let Ok(Some(opening)) = best_opening(&hand_cards, v, include) {
                let melds = ids_of(self.hand, rules, &opening.melds, &first);
                if let Some(checked) = self.check(Command::lay_melds(&melds)) {
                    return Proposal::Checked(checked);
                }
            }
            return self.choose_discard(None);
        }

        if state.pending_joker.is_some() {
            if let Some((rest, jm)) = joker_meld(rules, state.taken, self.hand) {
                return Proposal::Unchecked(Command::lay_melds(&ids_of(&rest, rules, &jm, &first)));
            }
        }

        let deadwood = self.deadwood(&hand_cards);
        if let Some(d) = deadwood.as_ref().filter(|d| !d.melds.is_empty()) {
            let melds = if d.deadwood.is_empty() && rules.must_discard {
                keep_one(&d.melds, v)
            } else {
                d.melds.clone()
            };
            if !melds.is_empty() {
                let ids = ids_of(self.hand, rules, &melds, &first);
                if let Some(checked) = self.check(Command::lay_melds(&ids)) {
                    return Proposal::Checked(checked);
                }
            }
        }

        if !state.melds.is_empty() {
            for (target, meld, end) in self.layoffs(&hand_cards, &state.melds) {
                if target.is_joker() && self.hand.len() > 2 {
                    continue;
                }
                let lay_off = |c| Command::lay_off(c, meld, end);
                let Some(card) = self.card_for(target, state.pending_joker, lay_off) else {
                    continue;
                };
                if let Some(checked) = self.check(Command::lay_off(card, meld, end)) {
                    return Proposal::Checked(checked);
                }
            }
            if v.joker_swap && state.pending_joker.is_none() {
                for (target, meld, joker_index) in self.swaps(&hand_cards, &state.melds) {
                    let joker = state.melds[meld].cards[joker_index];
                    let swap = |c| Command::swap_joker(c, meld, joker);
                    let Some(card) = self.card_for(target, None, swap) else {
                        continue;
                    };
                    if let Some(checked) = self.check(Command::swap_joker(card, meld, joker)) {
                        return Proposal::Checked(checked);
                    }
                }
            }
        }
        self.choose_discard(deadwood.as_deref())
    }

    /// The Python `_choose_discard`: the best of the cards worth offering,
    /// the fallback when there is none.
    fn choose_discard(&mut self, deadwood: Option<&Deadwood>) -> Proposal {
        let allowed = discardable(self.rules, self.hand, self.state.taken, self.state.pending_joker);
        if allowed.is_empty() {
            return Proposal::Fallback;
        }
        match self.discard_choice(&allowed, deadwood) {
            Some(c) => Proposal::Unchecked(Command::discard(c)),
            None => Proposal::Fallback,
        }
    }
}

/// `hand` less the card `id`.
fn without(hand: &[CardId], id: CardId) -> Vec<CardId> {
    hand.iter().copied().filter(|&c| c != id).collect()
}

/// Whether `part` is part of `whole` (as many copies of each card at most).
fn within(part: &[Card], whole: &[Card]) -> bool {
    if part.len() > whole.len() {
        return false;
    }
    let mut counts = [0u8; KINDS];
    for c in whole {
        counts[c.index()] += 1;
    }
    part.iter().all(|c| {
        let n = &mut counts[c.index()];
        let had = *n > 0;
        *n = n.saturating_sub(1);
        had
    })
}

/// The distinct cards of `cards`: bit `i` for the card of index `i`.
fn distinct(cards: &[Card]) -> u64 {
    cards.iter().fold(0, |bits, c| bits | 1 << c.index())
}

/// The cards of `kinds` (bits by card index), sorted (the order of the
/// kernel's search).
fn each(kinds: u64) -> impl Iterator<Item = Card> {
    let mut left = kinds;
    std::iter::from_fn(move || {
        let i = left.trailing_zeros();
        left &= left.wrapping_sub(1);
        // A card index is below 53 (`left` is 0 past the last one).
        (i < 64).then(|| Card::from_index(i as u8))
    })
}
