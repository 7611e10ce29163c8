//! Exact meld search: the best opening and the minimum deadwood of a hand,
//! lay-off targets and joker swaps against a table.
//!
//! The hand is a multiset of card kinds held in two bit planes (kinds held at
//! least once, kinds held twice) and a joker count. Every meld the hand could
//! form is listed once, filed under its lowest natural card. The search then
//! takes the lowest card left and either leaves it out of every meld or lays
//! one of the melds filed under it; results are memoised per remaining hand,
//! so the answer is the true optimum over all partitions, never a heuristic.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::card::{Card, Suit};
use crate::error::HandError;
use crate::meld::{extend_meld, position_rank, swap_joker, validate_meld, End, Meld};
use crate::variant::Variant;

/// Largest hand the search accepts.
pub const MAX_HAND: usize = 30;

/// A multiset of cards: kinds held at least once, kinds held twice, jokers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
struct Counts {
    one: u64,
    two: u64,
    jokers: u8,
}

impl Counts {
    fn of(cards: &[Card]) -> Counts {
        let mut c = Counts::default();
        for card in cards {
            if card.is_joker() {
                c.jokers += 1;
            } else {
                let bit = 1u64 << card.index();
                if c.one & bit != 0 {
                    c.two |= bit;
                } else {
                    c.one |= bit;
                }
            }
        }
        c
    }

    #[inline]
    fn contains(self, m: &Counts) -> bool {
        m.one & !self.one == 0 && m.two & !self.two == 0 && m.jokers <= self.jokers
    }

    /// Removes one copy of each kind in `kinds` (all held).
    #[inline]
    fn remove_once(self, kinds: u64) -> Counts {
        Counts {
            one: self.one & !(kinds & !self.two),
            two: self.two & !kinds,
            jokers: self.jokers,
        }
    }

    #[inline]
    fn remove(self, m: &Counts) -> Counts {
        let mut c = self.remove_once(m.one).remove_once(m.two);
        c.jokers -= m.jokers;
        c
    }

    #[inline]
    fn key(self, flags: u8) -> u128 {
        (self.one as u128) | ((self.two as u128) << 52) | ((self.jokers as u128) << 104) | ((flags as u128) << 112)
    }
}

/// The cards of a candidate meld, kept compact: the card list is built only
/// for the melds of the answer.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// A set of `rank`: the suits in the bit set `suits`, then `jokers` jokers.
    Set { rank: u8, suits: u8, jokers: u8 },
    /// A run of `suit` from position `start`, `len` cards; bit `i` of
    /// `joker_mask` set where position `start + i` is a joker.
    Run {
        suit: Suit,
        start: u8,
        len: u8,
        joker_mask: u16,
    },
}

impl Shape {
    fn cards(self) -> Vec<Card> {
        match self {
            Shape::Set { rank, suits, jokers } => Suit::ALL
                .into_iter()
                .filter(|&s| suits & (1 << s as u8) != 0)
                .map(|s| Card::new(rank, s))
                .chain(std::iter::repeat_n(Card::JOKER, jokers as usize))
                .collect(),
            Shape::Run {
                suit,
                start,
                len,
                joker_mask,
            } => (0..len)
                .map(|i| {
                    if joker_mask & (1 << i) != 0 {
                        Card::JOKER
                    } else {
                        natural(start + i, suit)
                    }
                })
                .collect(),
        }
    }
}

impl Shape {
    /// The highest meld value a joker of this meld stands for.
    fn best_joker_value(self, v: &Variant) -> u32 {
        match self {
            Shape::Set { rank, .. } => v.set_card_value(rank),
            Shape::Run {
                start, len, joker_mask, ..
            } => (0..len)
                .filter(|i| joker_mask & (1 << i) != 0)
                .map(|i| v.position_value(start + i))
                .max()
                .unwrap_or(0),
        }
    }
}

/// A meld the hand could form, before any other meld is taken.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    uses: Counts,
    /// Meld value (toward an opening).
    value: u32,
    /// Penalty of the cards it takes out of the hand.
    weight: u32,
    pure_run: bool,
    shape: Shape,
}

fn natural(pos: u8, suit: Suit) -> Card {
    Card::new(position_rank(pos), suit)
}

/// Every set and run the hand's cards can form under `v`, jokers standing
/// anywhere they are allowed (also where the hand holds the natural card).
fn candidates(hand: Counts, v: &Variant, out: &mut Vec<Candidate>) {
    let max_j = (v.max_jokers_per_meld).min(hand.jokers);
    let jp = v.penalty(&Card::JOKER);
    let suit_ranks = |suit: u32| (hand.one >> (suit * 13)) & 0x1FFF;
    let (s0, s1, s2, s3) = (suit_ranks(0), suit_ranks(1), suit_ranks(2), suit_ranks(3));
    // Ranks held in two suits or more: the only ones a set can be of.
    let mut pairs = (s0 & (s1 | s2 | s3)) | (s1 & (s2 | s3)) | (s2 & s3);
    while pairs != 0 {
        let rank = pairs.trailing_zeros() as u8 + 1;
        pairs &= pairs - 1;
        let bit = |suit: u32| ((hand.one >> (suit * 13 + u32::from(rank) - 1)) & 1) as u8;
        let present = bit(0) | bit(1) << 1 | bit(2) << 2 | bit(3) << 3;
        let per = v.set_card_value(rank);
        let penalty = v.penalty(&Card::new(rank, Suit::Spades));
        // Every subset of two or more of the present suits.
        let mut suits = present;
        while suits != 0 {
            let naturals = suits.count_ones() as u8;
            if naturals >= 2 {
                let one = (0..4u32)
                    .filter(|s| suits & (1 << s) != 0)
                    .fold(0u64, |m, s| m | 1 << (s * 13 + u32::from(rank) - 1));
                for jokers in 0..=max_j {
                    let len = naturals + jokers;
                    if (3..=4).contains(&len) {
                        out.push(Candidate {
                            uses: Counts { one, two: 0, jokers },
                            value: per * u32::from(len),
                            weight: penalty * u32::from(naturals) + jp * u32::from(jokers),
                            pure_run: false,
                            shape: Shape::Set { rank, suits, jokers },
                        });
                    }
                }
            }
            suits = (suits - 1) & present;
        }
    }
    let top = v.top_position();
    // Most hands hold no run: the run tables are filled for the first suit
    // that can.
    let mut run: Option<RunSearch> = None;
    for suit in Suit::ALL {
        let ranks = (hand.one >> (suit as u32 * 13)) & 0x1FFF;
        // Run positions held: bit p for position p (1..=14, 14 the ace again).
        let positions = ranks << 1 | if top == 14 { (ranks & 1) << 14 } else { 0 };
        let mut starts = run_starts(positions, max_j, top);
        if starts == 0 {
            continue;
        }
        let run = run.get_or_insert_with(|| RunSearch::new(v, max_j, jp));
        run.set_suit(hand, suit);
        while starts != 0 {
            let start = starts.trailing_zeros() as u8;
            starts &= starts - 1;
            run.extend(start, start, 0, 0, Counts::default(), 0, 0, out);
        }
    }
}

/// The positions (bits 1..=`top`) where a run of the held `positions` can
/// start: without jokers, three in a row; with up to `max_j` jokers, two
/// naturals within the first `max_j + 2` positions, as the jokers before and
/// between the first two naturals are at most `max_j`.
fn run_starts(positions: u64, max_j: u8, top: u8) -> u64 {
    if max_j == 0 {
        return positions & positions >> 1 & positions >> 2;
    }
    let window = (1u64 << (max_j + 2)) - 1;
    (1..=top)
        .filter(|&start| (positions >> start & window).count_ones() >= 2)
        .fold(0, |starts, start| starts | 1 << start)
}

/// Run enumeration for one suit, by position 1 (ace low) to 14 (ace high).
struct RunSearch {
    suit: Suit,
    top: u8,
    max_j: u8,
    held: [u8; 15],
    /// The bit of the natural card at each position, in `Counts` planes.
    bits: [u64; 15],
    value: [u32; 15],
    penalty: [u32; 15],
    jp: u32,
}

impl RunSearch {
    /// The run values and penalties by position under `v`, no suit set yet.
    fn new(v: &Variant, max_j: u8, jp: u32) -> RunSearch {
        let top = v.top_position();
        let mut run = RunSearch {
            suit: Suit::Spades,
            top,
            max_j,
            held: [0; 15],
            bits: [0; 15],
            value: [0; 15],
            penalty: [0; 15],
            jp,
        };
        for pos in 1..=top {
            run.value[pos as usize] = v.position_value(pos);
            run.penalty[pos as usize] = v.penalty(&natural(pos, Suit::Spades));
        }
        run
    }

    /// Runs of `suit` from now on, with the copies of it the hand holds.
    fn set_suit(&mut self, hand: Counts, suit: Suit) {
        self.suit = suit;
        for pos in 1..=self.top {
            let bit = 1u64 << (suit as u32 * 13 + u32::from(position_rank(pos)) - 1);
            self.bits[pos as usize] = bit;
            self.held[pos as usize] = u8::from(hand.one & bit != 0) + u8::from(hand.two & bit != 0);
        }
    }

    /// Extends the run from `start` whose cards so far end before `pos`.
    #[allow(clippy::too_many_arguments)]
    fn extend(
        &self,
        start: u8,
        pos: u8,
        jokers: u8,
        joker_mask: u16,
        uses: Counts,
        value: u32,
        weight: u32,
        out: &mut Vec<Candidate>,
    ) {
        if pos > self.top {
            return;
        }
        let len = pos - start + 1;
        let value = value + self.value[pos as usize];
        // An ace at both ends of A..K..A takes two copies of that ace.
        let need = if pos == 14 && start == 1 && joker_mask & 1 == 0 {
            2
        } else {
            1
        };
        let emit = |out: &mut Vec<Candidate>, jokers: u8, joker_mask: u16, uses: Counts, weight: u32| {
            if len >= 3 && len - jokers >= 2 {
                out.push(Candidate {
                    uses: Counts { jokers, ..uses },
                    value,
                    weight,
                    pure_run: jokers == 0,
                    shape: Shape::Run {
                        suit: self.suit,
                        start,
                        len,
                        joker_mask,
                    },
                });
            }
        };
        if self.held[pos as usize] >= need {
            let bit = self.bits[pos as usize];
            let uses = if uses.one & bit != 0 {
                Counts {
                    two: uses.two | bit,
                    ..uses
                }
            } else {
                Counts {
                    one: uses.one | bit,
                    ..uses
                }
            };
            let weight = weight + self.penalty[pos as usize];
            emit(out, jokers, joker_mask, uses, weight);
            self.extend(start, pos + 1, jokers, joker_mask, uses, value, weight, out);
        }
        if jokers < self.max_j {
            let (jokers, joker_mask, weight) = (jokers + 1, joker_mask | 1 << (pos - start), weight + self.jp);
            emit(out, jokers, joker_mask, uses, weight);
            self.extend(start, pos + 1, jokers, joker_mask, uses, value, weight, out);
        }
    }
}

const NONE: i32 = i32::MIN / 2;
/// Candidate count above which the search memoises.
const MEMO_FROM: usize = 6;
const NEED_PURE: u8 = 1;
const NEED_LEFTOVER: u8 = 2;
const NEED_INCLUDE: u8 = 4;

#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u128(&mut self, k: u128) {
        let x = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 ^= self.0 >> 32;
    }
}

/// What the search maximises over the melded cards.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Objective {
    /// Total meld value (best opening).
    Value,
    /// Total penalty taken out of the hand (minimum deadwood).
    Weight,
}

/// Per state: a score, and whether it is exact (else an upper bound).
type Memo = HashMap<u128, (i32, bool), BuildHasherDefault<KeyHasher>>;

thread_local! {
    /// Buffers reused across searches on a thread, so a search allocates
    /// nothing once warm.
    static SCRATCH: std::cell::RefCell<(Vec<Candidate>, Vec<Hot>, Memo)> = std::cell::RefCell::default();
}

/// What the search loop reads of a candidate, packed for the cache.
#[derive(Clone, Copy, Debug)]
struct Hot {
    uses: Counts,
    score: i32,
    /// What laying it takes from the `potential` of the hand.
    potential: i32,
    pure_run: bool,
}

struct Search {
    /// Candidates sorted by their lowest natural card.
    candidates: Vec<Candidate>,
    /// `hot[i]` is what the search needs of `candidates[i]`.
    hot: Vec<Hot>,
    /// `candidates[first[k]..first[k + 1]]` are filed under card kind `k`.
    first: [u32; 53],
    include: Option<Card>,
    memo: Memo,
    /// Kinds that some candidate melds.
    meldable: u64,
    /// Kinds that some candidate is filed under.
    filed: u64,
    /// The most a natural kind can add to the score in any candidate.
    card_gain: [i32; 52],
    /// The most a joker can add to the score.
    joker_gain: i32,
    /// Whether some candidate holds a joker.
    jokers_meld: bool,
    /// Whether to memoise: with a few candidates the search is small
    /// enough that the table costs more than it saves.
    memoize: bool,
    /// The kinds a card kept to discard may not be (a set of bits, the
    /// joker's bit 52): with `include`, the card taken from the discard
    /// pile, whose twin stays in hand this turn like the card itself.
    kept_not: u64,
}

impl Drop for Search {
    fn drop(&mut self) {
        let mut memo = std::mem::take(&mut self.memo);
        memo.clear();
        let all = std::mem::take(&mut self.candidates);
        let hot = std::mem::take(&mut self.hot);
        SCRATCH.with(|s| *s.borrow_mut() = (all, hot, memo));
    }
}

impl Search {
    fn new(hand: &[Card], v: &Variant, objective: Objective, include: Option<Card>) -> (Search, Counts) {
        let counts = Counts::of(hand);
        let (mut all, mut hot, mut memo) = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        all.clear();
        if memo.capacity() > 1 << 14 {
            // Clearing a table costs its capacity: keep only small ones.
            memo = Memo::default();
        }
        candidates(counts, v, &mut all);
        let score = |c: &Candidate| match objective {
            Objective::Value => c.value,
            Objective::Weight => c.weight,
        };
        // File each candidate under its lowest natural card, in one flat list,
        // the best scoring first within each card.
        all.sort_by_key(|c| (c.uses.one.trailing_zeros(), std::cmp::Reverse(score(c))));
        let mut first = [0u32; 53];
        let (mut meldable, mut filed, mut joker_value) = (0u64, 0u64, None);
        for c in &all {
            first[c.uses.one.trailing_zeros() as usize + 1] += 1;
            meldable |= c.uses.one;
            filed |= c.uses.one & c.uses.one.wrapping_neg();
            if c.uses.jokers > 0 {
                joker_value = joker_value.max(Some(c.shape.best_joker_value(v)));
            }
        }
        // What one card can add at most: its penalty, or its best meld value.
        let mut card_gain = [0i32; 52];
        let mut kinds = meldable;
        while kinds != 0 {
            let k = kinds.trailing_zeros() as usize;
            kinds &= kinds - 1;
            let card = Card::from_index(k as u8);
            let rank = card.rank().expect("natural");
            card_gain[k] = match objective {
                Objective::Weight => v.penalty(&card),
                Objective::Value if rank == 1 => v.position_value(1).max(v.position_value(14)).max(v.set_card_value(1)),
                Objective::Value => v.position_value(rank),
            } as i32;
        }
        let joker_gain = match (joker_value, objective) {
            (None, _) => 0,
            (Some(_), Objective::Weight) => v.penalty(&Card::JOKER) as i32,
            (Some(value), Objective::Value) => value as i32,
        };
        for i in 1..53 {
            first[i] += first[i - 1];
        }
        let memoize = all.len() > MEMO_FROM;
        let mut search = Search {
            memoize,
            hot: Vec::new(),
            candidates: all,
            first,
            include,
            memo,
            meldable,
            filed,
            card_gain,
            joker_gain,
            jokers_meld: joker_value.is_some(),
            kept_not: include.map_or(0, |c| if c.is_joker() { 1 << 52 } else { 1 << c.index() }),
        };
        // A candidate's potential reads the gains just filled in.
        hot.clear();
        hot.extend(search.candidates.iter().map(|c| Hot {
            uses: c.uses,
            score: score(c) as i32,
            potential: search.potential(c.uses),
            pure_run: c.pure_run,
        }));
        search.hot = hot;
        (search, counts)
    }

    fn filed_under(&self, low: usize) -> std::ops::Range<usize> {
        self.first[low] as usize..self.first[low + 1] as usize
    }

    fn flags_after(&self, flags: u8, c: &Hot) -> u8 {
        let mut f = flags;
        if c.pure_run {
            f &= !NEED_PURE;
        }
        if let Some(inc) = self.include {
            let has = if inc.is_joker() {
                c.uses.jokers > 0
            } else {
                c.uses.one & (1 << inc.index()) != 0
            };
            if has {
                f &= !NEED_INCLUDE;
            }
        }
        f
    }

    /// The flags once the natural kinds `left` (bits) and `jokers` jokers
    /// are left in hand: a card kept to discard is no longer needed when one
    /// of them may be discarded (not the taken card's twin).
    fn after_leaving(&self, flags: u8, left: u64, jokers: u8) -> u8 {
        let joker_kept = jokers > 0 && self.kept_not & (1 << 52) == 0;
        if left & !self.kept_not != 0 || joker_kept {
            flags & !NEED_LEFTOVER
        } else {
            flags
        }
    }

    /// May the lowest card `low` be left out of every meld under `flags`?
    fn may_leave(&self, s: Counts, low: usize, flags: u8) -> bool {
        !(flags & NEED_INCLUDE != 0 && self.include.is_some_and(|c| c.index() == low) && s.two & (1 << low) == 0)
    }

    /// `s` without the cards that no candidate melds (they are left over
    /// whatever the melds), or `None` when the opening must use one of them.
    fn strip_dead(&self, s: Counts, flags: u8) -> Option<(Counts, u8)> {
        let dead = (s.one | s.two) & !self.meldable;
        let dead_jokers = if self.jokers_meld { 0 } else { s.jokers };
        if dead == 0 && dead_jokers == 0 {
            return Some((s, flags));
        }
        if flags & NEED_INCLUDE != 0 {
            match self.include {
                Some(c) if c.is_joker() && dead_jokers > 0 => return None,
                Some(c) if !c.is_joker() && dead & (1 << c.index()) != 0 => return None,
                _ => {}
            }
        }
        let kept = Counts {
            one: s.one & !dead,
            two: s.two & !dead,
            jokers: s.jokers - dead_jokers,
        };
        Some((kept, self.after_leaving(flags, dead, dead_jokers)))
    }

    /// The most the cards of `s` can add to the score, each at its best.
    fn potential(&self, s: Counts) -> i32 {
        let mut total = i32::from(s.jokers) * self.joker_gain;
        for plane in [s.one, s.two] {
            let mut bits = plane;
            while bits != 0 {
                total += self.card_gain[bits.trailing_zeros() as usize];
                bits &= bits - 1;
            }
        }
        total
    }

    /// The least a card of `s` can add to the score.
    fn least_gain(&self, s: Counts) -> i32 {
        let mut least = if s.jokers > 0 { self.joker_gain } else { i32::MAX };
        let mut bits = s.one;
        while bits != 0 {
            least = least.min(self.card_gain[bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
        least
    }

    /// `s` without its lowest cards while no candidate is filed under them:
    /// those can only be left over, and a state per card left would cost
    /// more than the rest of a small search. `None` when the opening must
    /// use one of them.
    fn skip_unfiled(&self, s: Counts, flags: u8, potential: i32) -> Option<(Counts, u8, i32)> {
        let filed = s.one & self.filed;
        // The kinds below the lowest filed one, all of them when none is.
        let below = s.one & filed.wrapping_sub(1) & !filed;
        if below == 0 {
            return Some((s, flags, potential));
        }
        let needed = |c: Card| !c.is_joker() && below & (1 << c.index()) != 0;
        if flags & NEED_INCLUDE != 0 && self.include.is_some_and(needed) {
            return None;
        }
        let left = Counts {
            one: below,
            two: s.two & below,
            jokers: 0,
        };
        let rest = s.remove(&left);
        Some((
            rest,
            self.after_leaving(flags, below, 0),
            potential - self.potential(left),
        ))
    }

    /// The best score of the melds of `s` under `flags` when it is above
    /// `floor`; otherwise a value no greater than `floor` that bounds it
    /// from above (branch and bound, with exact results memoised). Every
    /// card of `s` is meldable (see `strip_dead`).
    fn best(&mut self, s: Counts, flags: u8, floor: i32) -> i32 {
        self.bounded(s, flags, floor, self.potential(s))
    }

    /// `best`, given the `potential` of `s`, which the recursion keeps up
    /// to date rather than recount at each state.
    fn bounded(&mut self, s: Counts, flags: u8, floor: i32, potential: i32) -> i32 {
        let Some((s, flags, potential)) = self.skip_unfiled(s, flags, potential) else {
            return NONE;
        };
        if s.one == 0 {
            let pending_joker = flags & NEED_INCLUDE != 0;
            if flags & NEED_PURE != 0 || pending_joker || self.after_leaving(flags, 0, s.jokers) & NEED_LEFTOVER != 0 {
                return NONE;
            }
            return 0;
        }
        let key = s.key(flags);
        if self.memoize {
            if let Some(&(v, exact)) = self.memo.get(&key) {
                if exact || v <= floor {
                    return v;
                }
            }
        }
        // Every card melded at its best, but for the one that must be kept to
        // discard when every card could be melded (all can: none is dead).
        let upper = if flags & NEED_LEFTOVER != 0 {
            potential - self.least_gain(s)
        } else {
            potential
        };
        if upper <= floor {
            return upper;
        }
        let low = s.one.trailing_zeros() as usize;
        let mut best = NONE;
        // Melds first, the richest first, so that good answers come early and
        // the bound cuts the rest.
        for i in self.filed_under(low) {
            if best >= upper {
                break;
            }
            let c = self.hot[i];
            if !s.contains(&c.uses) {
                continue;
            }
            let (next, f, gain) = (s.remove(&c.uses), self.flags_after(flags, &c), c.score);
            let r = self.bounded(next, f, floor.max(best) - gain, potential - c.potential);
            if r != NONE && r + gain > best {
                best = r + gain;
            }
        }
        if best < upper && self.may_leave(s, low, flags) {
            let (next, f) = (s.remove_once(1 << low), self.after_leaving(flags, 1 << low, 0));
            let r = self.bounded(next, f, floor.max(best), potential - self.card_gain[low]);
            best = best.max(r);
        }
        // Above the floor the best child was exact; at or below it, every child
        // gave an upper bound of itself, so `best` bounds this state.
        if self.memoize {
            self.memo.insert(key, (best, best > floor));
        }
        best
    }

    /// The melds of an answer worth exactly `target` from `s`, which is the
    /// best score of `s` under `flags`.
    fn melds(&mut self, mut s: Counts, mut flags: u8, mut target: i32) -> Vec<Vec<Card>> {
        let mut out = Vec::new();
        while s.one != 0 {
            let low = s.one.trailing_zeros() as usize;
            let mut found = false;
            for i in self.filed_under(low) {
                let c = self.hot[i];
                if !s.contains(&c.uses) {
                    continue;
                }
                let (next, f, gain) = (s.remove(&c.uses), self.flags_after(flags, &c), c.score);
                let r = self.best(next, f, target - gain - 1);
                if r != NONE && r + gain == target {
                    out.push(self.candidates[i].shape.cards());
                    (s, flags, target) = (next, f, r);
                    found = true;
                    break;
                }
            }
            if !found {
                assert!(self.may_leave(s, low, flags), "search memo is inconsistent");
                s = s.remove_once(1 << low);
                flags = self.after_leaving(flags, 1 << low, 0);
            }
        }
        out
    }
}

/// Checks a hand for the search: not empty, not too large, possible in the deck.
pub fn check_hand(hand: &[Card], v: &Variant) -> Result<(), HandError> {
    if hand.is_empty() {
        return Err(HandError::Empty);
    }
    if hand.len() > MAX_HAND {
        return Err(HandError::TooLarge {
            len: hand.len(),
            max: MAX_HAND,
        });
    }
    v.deck().check_hand(hand)?;
    Ok(())
}

/// The best opening: disjoint melds meeting the opening rule with the highest
/// total value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub value: u32,
    pub melds: Vec<Vec<Card>>,
}

/// Disjoint melds that meet `v`'s opening rule (threshold, a pure run where
/// required, a card kept to discard where going out needs a discard) with the
/// highest total value, or `None`. With `include`, the opening must use that
/// card (a discard taken before opening), and the card kept to discard is
/// not its twin, which may not be discarded that turn either.
///
/// ```
/// use ramino_core::{best_opening, Card, Variant};
/// let hand = Card::parse_list("6S 7S 8S TD TC TH 2C").unwrap();
/// let o = best_opening(&hand, &Variant::ramino51(), None).unwrap().unwrap();
/// assert_eq!(o.value, 51);
/// ```
pub fn best_opening(hand: &[Card], v: &Variant, include: Option<Card>) -> Result<Option<Opening>, HandError> {
    check_hand(hand, v)?;
    if let Some(inc) = include {
        if !hand.contains(&inc) {
            return Err(HandError::NotInHand { card: inc.to_string() });
        }
    }
    let (mut search, counts) = Search::new(hand, v, Objective::Value, include);
    let mut flags = 0;
    if v.open_requires_pure_run {
        flags |= NEED_PURE;
    }
    if v.must_discard_to_go_out {
        flags |= NEED_LEFTOVER;
    }
    if include.is_some() {
        flags |= NEED_INCLUDE;
    }
    let Some((counts, flags)) = search.strip_dead(counts, flags) else {
        return Ok(None);
    };
    // Only openings worth the threshold (and more than nothing) matter.
    let floor = i32::from(v.open_threshold).max(1) - 1;
    let best = search.best(counts, flags, floor);
    if best <= floor {
        return Ok(None);
    }
    let melds = search.melds(counts, flags, best);
    Ok(Some(Opening {
        value: best as u32,
        melds,
    }))
}

/// The minimum deadwood: disjoint melds leaving the least penalty in hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadwood {
    /// Penalty of the cards left over.
    pub value: u32,
    pub melds: Vec<Vec<Card>>,
    /// The cards left over, in hand order.
    pub deadwood: Vec<Card>,
}

/// Disjoint melds that minimise the penalty of the cards left over.
///
/// ```
/// use ramino_core::{min_deadwood, Card, Variant};
/// let hand = Card::parse_list("AS 2S 3S KD").unwrap();
/// assert_eq!(min_deadwood(&hand, &Variant::rummy()).unwrap().value, 10);
/// ```
pub fn min_deadwood(hand: &[Card], v: &Variant) -> Result<Deadwood, HandError> {
    check_hand(hand, v)?;
    let (mut search, counts) = Search::new(hand, v, Objective::Weight, None);
    let (counts, _) = search.strip_dead(counts, 0).expect("no constraint to fail");
    let taken = search.best(counts, 0, NONE);
    let melds = search.melds(counts, 0, taken);
    let mut left = hand.to_vec();
    for card in melds.iter().flatten() {
        let i = left
            .iter()
            .position(|c| c == card)
            .expect("melded card comes from the hand");
        left.remove(i);
    }
    let value = v.hand_penalty(hand) - taken as u32;
    debug_assert_eq!(value, v.hand_penalty(&left));
    Ok(Deadwood {
        value,
        melds,
        deadwood: left,
    })
}

/// Where a hand card can be laid off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayOff {
    pub card: Card,
    /// Index of the table meld.
    pub meld: usize,
    pub end: End,
    /// The meld after the lay-off.
    pub result: Meld,
}

/// A hand card that can take the place of a table joker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JokerSwap {
    pub card: Card,
    pub meld: usize,
    /// Index of the joker in the meld's card list.
    pub joker_index: usize,
    pub result: Meld,
}

/// Validates every table meld.
pub fn check_table(table: &[Vec<Card>], v: &Variant) -> Result<Vec<Meld>, HandError> {
    table
        .iter()
        .enumerate()
        .map(|(index, m)| validate_meld(m, v).map_err(|error| HandError::BadTableMeld { index, error }))
        .collect()
}

fn distinct(hand: &[Card]) -> Vec<Card> {
    let mut d: Vec<Card> = hand.to_vec();
    d.sort();
    d.dedup();
    d
}

/// For each distinct card of the hand, the table melds that accept it and where.
pub fn layoff_targets(hand: &[Card], table: &[Vec<Card>], v: &Variant) -> Result<Vec<LayOff>, HandError> {
    if hand.len() > MAX_HAND {
        return Err(HandError::TooLarge {
            len: hand.len(),
            max: MAX_HAND,
        });
    }
    let melds = check_table(table, v)?;
    let mut out = Vec::new();
    for card in distinct(hand) {
        for (i, m) in melds.iter().enumerate() {
            let ends: &[End] = if m.kind == crate::MeldKind::Run {
                &[End::Start, End::End]
            } else {
                &[End::End]
            };
            for &end in ends {
                if let Ok(result) = extend_meld(m, card, end, v) {
                    out.push(LayOff {
                        card,
                        meld: i,
                        end,
                        result,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// For each distinct card of the hand, the table jokers it can replace.
pub fn joker_swaps(hand: &[Card], table: &[Vec<Card>], v: &Variant) -> Result<Vec<JokerSwap>, HandError> {
    if hand.len() > MAX_HAND {
        return Err(HandError::TooLarge {
            len: hand.len(),
            max: MAX_HAND,
        });
    }
    let melds = check_table(table, v)?;
    let mut out = Vec::new();
    for card in distinct(hand).into_iter().filter(|c| !c.is_joker()) {
        for (i, m) in melds.iter().enumerate() {
            for role in &m.jokers {
                if let Some(result) = swap_joker(m, role.index, card) {
                    out.push(JokerSwap {
                        card,
                        meld: i,
                        joker_index: role.index,
                        result,
                    });
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(t: &str) -> Vec<Card> {
        Card::parse_list(t).unwrap()
    }

    #[test]
    fn opening_of_the_rules_example() {
        let o = best_opening(&hand("6S 7S 8S TD TC TH 2C"), &Variant::ramino51(), None)
            .unwrap()
            .unwrap();
        assert_eq!(o.value, 51);
        assert_eq!(o.melds.len(), 2);
    }

    #[test]
    fn opening_keeps_a_card_to_discard() {
        // All nine cards meld for 51, but one must be kept to discard.
        let v = Variant::ramino51();
        assert!(best_opening(&hand("6S 7S 8S TD TC TH"), &v, None).unwrap().is_none());
    }

    #[test]
    fn rami51_opening_needs_a_pure_run() {
        let v = Variant::rami51();
        assert!(best_opening(&hand("KS KH KD KC QS QH QD 2C"), &v, None)
            .unwrap()
            .is_none());
        assert!(best_opening(&hand("KS KH KD QS QH QD 2C 3C 4C 9H"), &v, None)
            .unwrap()
            .is_some());
    }

    #[test]
    fn include_forces_the_card_into_the_opening() {
        let v = Variant::ramino51();
        let h = hand("KS KH KD QS QH QD 9C 2H");
        assert!(best_opening(&h, &v, Some("KS".parse().unwrap())).unwrap().is_some());
        assert!(best_opening(&h, &v, Some("2H".parse().unwrap())).unwrap().is_none());
    }

    #[test]
    fn deadwood_prefers_high_cards_in_melds() {
        let d = min_deadwood(&hand("7S 8S 9S 9H 9D"), &Variant::rummy()).unwrap();
        assert_eq!(d.value, 15);
    }

    #[test]
    fn bad_hands_are_refused() {
        let v = Variant::rummy();
        assert_eq!(min_deadwood(&[], &v).unwrap_err(), HandError::Empty);
        assert!(matches!(
            min_deadwood(&hand("AS AS 2S"), &v).unwrap_err(),
            HandError::Card(_)
        ));
        let big = vec![Card::new(2, Suit::Spades); 31];
        assert!(matches!(
            min_deadwood(&big, &Variant::ramino51()).unwrap_err(),
            HandError::TooLarge { .. }
        ));
    }

    #[test]
    fn layoffs_and_swaps() {
        let v = Variant::ramino51();
        let table = vec![hand("5H 6H JK"), hand("9S 9D 9C")];
        let l = layoff_targets(&hand("4H 8H 9H JK"), &table, &v).unwrap();
        let names: Vec<String> = l.iter().map(|x| format!("{}@{}{:?}", x.card, x.meld, x.end)).collect();
        assert_eq!(names, ["4H@0Start", "8H@0End", "9H@1End", "JK@1End"]);
        let s = joker_swaps(&hand("7H 7S"), &table, &v).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].card.to_string(), "7H");
    }
}
