//! Self-play data for training a policy and a value (issue 49, item 1):
//! every seat plays by the greedy policy ([`crate::game::greedy`]), or with
//! [`Config::search`] by the kernel's playouts where the searching bots
//! search, and each decision becomes a row of what the seat to move could
//! see, the move it chose, the moves it could have made, the search's value
//! of each move it weighed, and how the hand ended for the seat.
//!
//! A row holds only what the seat may see ([`features`], [`Shown`]): its
//! own hand, the discard pile, the table, what each other seat took from
//! the discard pile (or by a joker swap) and still holds, threw away or let
//! pass, the stock's size, the hand sizes, the scores and the variant's
//! state (opened, an opening owed, the first upcard, a swapped joker
//! waiting, the knock). Cards are counted by kind ([`KINDS`]: 52 naturals
//! and the joker), so two decks give counts of two. A move is an index of a
//! fixed encoding ([`action_index`]), and the legal moves a mask over it.
//!
//! Hands are played in blocks of [`BLOCK`] hands, each block from its own
//! seeds, so the data are the same whatever the number of threads; a match
//! goes on across hands (the scores change) until it ends, then the next
//! game of the block starts. [`run`] writes the rows block by block to
//! [`Files`]: flat little-endian arrays a trainer maps with
//! `numpy.fromfile`, described by [`header`] (`docs/selfplay.md`).
//!
//! ```
//! use ramino_core::selfplay::{play_block, Config};
//! use ramino_core::Variant;
//! let config = Config::new(Variant::gin(), 2, 7);
//! let block = play_block(&config, 0, 3);
//! assert_eq!(block.hands, 3);
//! assert_eq!(block.features.len(), block.rows() * config.width());
//! ```

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use crate::card::Card;
use crate::game::greedy::{self, Memo};
use crate::game::policy::discard_scores;
use crate::game::{decide, knocks, legal_moves, CardId, Command, Event, Game, Phase, RawEnd, Rules, Setup, State};
use crate::playout::{evaluate, Action, Budget, SeatSeen, Seen};
use crate::shuffle::ChaCha20;
use crate::variant::{Scoring, Variant};

/// Card kinds: the 52 naturals (suit-major, `Card::index`) and the joker.
pub const KINDS: usize = Card::NATURALS + 1;

/// Hands a block plays: blocks are the unit of work and of the seeds.
pub const BLOCK: u64 = 32;

/// The moves without a card: their indexes in the encoding.
pub const DRAW_FROM_STOCK: usize = 0;
pub const TAKE_DISCARD: usize = 1;
pub const PASS_UPCARD: usize = 2;
pub const TURN_OVER_DISCARD_PILE: usize = 3;
pub const ACCEPT_LAYOUT: usize = 4;
/// Laying melds (which melds is not encoded: the policy lays its least
/// deadwood's).
pub const LAY_MELDS: usize = 5;
/// Big gin: a knock with no discard.
pub const BIG_GIN: usize = 6;
/// `DISCARD + k`: discard a card of kind `k`.
pub const DISCARD: usize = 7;
/// `KNOCK + k`: knock, discarding a card of kind `k`.
pub const KNOCK: usize = DISCARD + KINDS;
/// `LAY_OFF + k`: lay off a card of kind `k` (onto which meld, and at which
/// end, is not encoded).
pub const LAY_OFF: usize = KNOCK + KINDS;
/// `SWAP_JOKER + k`: give a card of kind `k` for a table joker.
pub const SWAP_JOKER: usize = LAY_OFF + KINDS;
/// Moves in the encoding.
pub const ACTIONS: usize = SWAP_JOKER + KINDS;

/// Columns of the outcome file: won (1 or 0), the seat's points this hand
/// (higher better: a penalty's sign turned), and its margin over the best
/// other seat (same sign).
pub const OUTCOMES: usize = 3;

/// Columns of the meta file: game (unique in the run: block x [`BLOCK`] +
/// the game's number in its block), hand within the game, seat, decision
/// within the hand, and whether a search chose the move (1) or the greedy
/// policy (0).
pub const METAS: usize = 5;

/// The search that chooses a move where the searching bots search (see
/// [`candidates`]): the kernel's playouts ([`evaluate`]) at a fixed number
/// of iterations, so that the data stay deterministic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    /// Deals sampled a decision.
    pub iterations: u32,
    /// The most discards weighed (the hard bot's `width`).
    pub width: usize,
    /// Standard errors by which a move must beat the greedy one to be
    /// chosen (the bots' `confidence`).
    pub confidence: f64,
}

impl Default for Search {
    /// The hard bot's width and confidence, 200 deals.
    fn default() -> Search {
        Search {
            iterations: 200,
            width: 6,
            confidence: 1.0,
        }
    }
}

/// What to play.
#[derive(Clone, Debug)]
pub struct Config {
    pub variant: Variant,
    pub players: usize,
    pub seed: u64,
    /// Write each row's legal-move mask.
    pub legal_mask: bool,
    /// Choose by the search where the searching bots would, and write its
    /// values; `None`: the greedy policy everywhere.
    pub search: Option<Search>,
}

impl Config {
    #[must_use]
    pub fn new(variant: Variant, players: usize, seed: u64) -> Config {
        Config {
            variant,
            players,
            seed,
            legal_mask: true,
            search: None,
        }
    }

    /// The feature vector's layout: (name, offset, width), in order.
    #[must_use]
    pub fn layout(&self) -> Vec<(String, usize, usize)> {
        let p = self.players;
        let mut parts: Vec<(String, usize)> = vec![
            ("hand".into(), KINDS),
            ("discard_pile".into(), KINDS),
            ("discard_top".into(), KINDS),
            ("table".into(), KINDS),
            ("taken_this_turn".into(), KINDS),
        ];
        for o in 1..p {
            parts.push((format!("opponent{o}_known_in_hand"), KINDS));
            parts.push((format!("opponent{o}_discarded"), KINDS));
            parts.push((format!("opponent{o}_passed"), KINDS));
        }
        parts.extend([
            ("stock_size".into(), 1),
            ("discard_size".into(), 1),
            ("hand_sizes".into(), p),
            ("opened".into(), p),
            ("totals".into(), p),
            ("phase_draw_play_layoff".into(), 3),
            ("must_open".into(), 1),
            ("pending_joker".into(), 1),
            ("first_upcard".into(), 1),
            ("defending".into(), 1),
            ("turns".into(), 1),
            ("rebuilds".into(), 1),
        ]);
        let mut offset = 0;
        parts
            .into_iter()
            .map(|(name, width)| {
                let at = offset;
                offset += width;
                (name, at, width)
            })
            .collect()
    }

    /// The feature vector's width (the end of [`Config::layout`]).
    #[must_use]
    pub const fn width(&self) -> usize {
        let p = self.players;
        5 * KINDS + 3 * KINDS * p.saturating_sub(1) + 2 + 3 * p + 3 + 6
    }
}

/// What each seat did in the open this hand, by seat.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    /// Cards (ids) each seat took from the discard pile, and table jokers
    /// it took by a swap.
    took: Vec<Vec<CardId>>,
    /// Cards each seat discarded, by kind.
    discarded: Vec<[u8; KINDS]>,
    /// Discard tops each seat let pass (drew from the stock, or passed the
    /// upcard, with it on top), by kind.
    passed: Vec<[u8; KINDS]>,
    /// Whether each seat has started a turn.
    had_turn: Vec<bool>,
    /// Draws this hand, every seat's.
    draws: u32,
}

impl Shown {
    #[must_use]
    pub fn new(players: usize) -> Shown {
        Shown {
            took: vec![Vec::new(); players],
            discarded: vec![[0; KINDS]; players],
            passed: vec![[0; KINDS]; players],
            had_turn: vec![false; players],
            draws: 0,
        }
    }

    /// The cards (ids) `seat` took from the discard pile or by a joker swap
    /// this hand.
    #[must_use]
    pub fn took(&self, seat: usize) -> &[CardId] {
        &self.took[seat]
    }

    /// The cards of `hand` (seat `seat`'s) that every seat knows are there:
    /// those it took and has not been seen to part with (every way out of
    /// a hand is shown to all).
    pub fn known(&self, seat: usize, hand: &[CardId]) -> impl Iterator<Item = CardId> + '_ {
        let hand = hand.to_vec();
        self.took[seat].iter().copied().filter(move |c| hand.contains(c))
    }

    /// `card` went into `seat`'s hand in the open (once: the same card may
    /// come back to a hand that threw it).
    fn learn(&mut self, seat: usize, card: CardId) {
        if !self.took[seat].contains(&card) {
            self.took[seat].push(card);
        }
    }

    /// Takes in the events of one command, `top` the discard pile's top
    /// before it.
    pub fn observe(&mut self, rules: &Rules, top: Option<CardId>, events: &[Event]) {
        for e in events {
            match *e {
                Event::RoundStarted { .. } => *self = Shown::new(self.took.len()),
                Event::TookDiscard { seat, card } => {
                    self.learn(seat, card);
                    self.had_turn[seat] = true;
                    self.draws += 1;
                }
                Event::JokerSwapped { seat, joker, .. } => self.learn(seat, joker),
                Event::DrewFromStock { seat, .. } | Event::PassedUpcard { seat } => {
                    if let Some(top) = top {
                        self.passed[seat][rules.card(top).index()] += 1;
                    }
                    self.had_turn[seat] = true;
                    self.draws += u32::from(matches!(e, Event::DrewFromStock { .. }));
                }
                Event::Discarded { seat, card }
                | Event::Knocked {
                    seat,
                    discard: Some(card),
                    ..
                } => {
                    self.discarded[seat][rules.card(card).index()] += 1;
                    self.had_turn[seat] = true;
                }
                _ => {}
            }
        }
    }

    /// What `seat`, to move in `state`, has seen, as the playouts take it
    /// (the searching bots' `observe`).
    #[must_use]
    pub fn seen(&self, rules: &Rules, state: &State, seat: usize) -> Seen {
        let cards = |ids: &mut dyn Iterator<Item = CardId>| ids.map(|c| rules.card(c)).collect::<Vec<Card>>();
        let mut visible = vec![false; rules.deck_size];
        let mut mark = |c: CardId| visible[usize::from(c)] = true;
        state.seats[seat].hand.iter().copied().for_each(&mut mark);
        state.discard.iter().copied().for_each(&mut mark);
        state
            .melds
            .iter()
            .flat_map(|m| m.cards.iter().copied())
            .for_each(&mut mark);
        let seats = state
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let known: Vec<CardId> = if i == seat {
                    s.hand.clone()
                } else {
                    self.known(i, &s.hand).collect()
                };
                if i != seat {
                    known.iter().for_each(|&c| visible[usize::from(c)] = true);
                }
                let discarded = (0..KINDS)
                    .flat_map(|k| std::iter::repeat_n(Card::from_index(k as u8), usize::from(self.discarded[i][k])))
                    .collect();
                SeatSeen {
                    hand_size: s.hand.len(),
                    known: cards(&mut known.into_iter()),
                    opened: s.opened,
                    had_turn: self.had_turn[i],
                    discarded,
                    laid_any: if i == seat {
                        s.opened && !state.opened_this_turn
                    } else {
                        s.opened
                    },
                }
            })
            .collect();
        let v = &rules.variant;
        Seen {
            seat,
            seats,
            discard: cards(&mut state.discard.iter().copied()),
            table: state
                .melds
                .iter()
                .map(|m| cards(&mut m.cards.iter().copied()))
                .collect(),
            unseen: (0..rules.deck_size)
                .filter(|&i| !visible[i])
                .map(|i| rules.cards[i])
                .collect(),
            stock_size: state.stock.len(),
            taken: state.taken.map(|c| rules.card(c)),
            rebuilds_left: v
                .max_stock_rebuilds
                .saturating_sub(u8::try_from(state.rebuilds).unwrap_or(u8::MAX)),
            turns_left: v
                .max_turns_per_round
                .saturating_sub(u16::try_from(self.draws).unwrap_or(u16::MAX))
                .max(1),
            no_draw_seat: None,
        }
    }
}

/// The row of `seat` in `state`: only what the seat may see (see the
/// module's notes). `out` gets [`Config::width`] values.
pub fn features(config: &Config, rules: &Rules, state: &State, seen: &Shown, seat: usize, out: &mut Vec<f32>) {
    let p = config.players;
    let start = out.len();
    out.resize(start + config.width(), 0.0);
    let row = &mut out[start..];
    let kinds = |row: &mut [f32], at: usize, ids: &mut dyn Iterator<Item = CardId>| {
        for c in ids {
            row[at + rules.card(c).index()] += 1.0;
        }
    };
    let mine = state.turn == seat;
    kinds(row, 0, &mut state.seats[seat].hand.iter().copied());
    kinds(row, KINDS, &mut state.discard.iter().copied());
    kinds(row, 2 * KINDS, &mut state.discard.last().copied().into_iter());
    kinds(
        row,
        3 * KINDS,
        &mut state.melds.iter().flat_map(|m| m.cards.iter().copied()),
    );
    if mine {
        kinds(row, 4 * KINDS, &mut state.taken.into_iter());
    }
    let mut at = 5 * KINDS;
    for o in 1..p {
        let other = (seat + o) % p;
        let hand = &state.seats[other].hand;
        kinds(row, at, &mut seen.known(other, hand));
        for k in 0..KINDS {
            row[at + KINDS + k] = f32::from(seen.discarded[other][k]);
            row[at + 2 * KINDS + k] = f32::from(seen.passed[other][k]);
        }
        at += 3 * KINDS;
    }
    let deck = rules.deck_size as f32;
    row[at] = state.stock.len() as f32 / deck;
    row[at + 1] = state.discard.len() as f32 / deck;
    at += 2;
    for o in 0..p {
        let s = &state.seats[(seat + o) % p];
        row[at + o] = s.hand.len() as f32 / 16.0;
        row[at + p + o] = f32::from(u8::from(s.opened));
        row[at + 2 * p + o] = s.total as f32 / 100.0;
    }
    at += 3 * p;
    match state.phase {
        Phase::Draw => row[at] = 1.0,
        Phase::Play => row[at + 1] = 1.0,
        Phase::Layoff => row[at + 2] = 1.0,
        _ => {}
    }
    at += 3;
    let flag = |b: bool| f32::from(u8::from(b));
    row[at] = flag(mine && state.must_open);
    row[at + 1] = flag(mine && state.pending_joker.is_some());
    row[at + 2] = flag(state.first_upcard);
    row[at + 3] = flag(state.knocker.is_some_and(|k| k != seat));
    row[at + 4] = state.seats[seat].turns as f32 / f32::from(config.variant.max_turns_per_round.max(1));
    row[at + 5] = state.rebuilds as f32 / f32::from(config.variant.max_stock_rebuilds.max(1));
}

/// The index of `command` in the fixed encoding (the module's constants),
/// `None` for a command it does not encode (a resignation, a malformed one).
#[must_use]
pub fn action_index(rules: &Rules, command: &Command) -> Option<usize> {
    let kind = |raw: i64| {
        let id = usize::try_from(raw).ok().filter(|&i| i < rules.deck_size)?;
        Some(rules.cards[id].index())
    };
    Some(match command {
        Command::DrawFromStock => DRAW_FROM_STOCK,
        Command::TakeDiscard => TAKE_DISCARD,
        Command::PassUpcard => PASS_UPCARD,
        Command::TurnOverDiscardPile => TURN_OVER_DISCARD_PILE,
        Command::AcceptLayout => ACCEPT_LAYOUT,
        Command::LayMelds { melds: Some(_) } => LAY_MELDS,
        Command::Knock { discard: None, .. } => BIG_GIN,
        Command::Discard { card } => DISCARD + kind(*card)?,
        Command::Knock {
            discard: Some(card), ..
        } => KNOCK + kind(*card)?,
        Command::LayOff {
            card,
            end: RawEnd::Start | RawEnd::End,
            ..
        } => LAY_OFF + kind(*card)?,
        Command::SwapJoker { card, .. } => SWAP_JOKER + kind(*card)?,
        _ => return None,
    })
}

/// The rows of one block of hands, in play order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// Hands played.
    pub hands: u64,
    /// Rows x [`Config::width`].
    pub features: Vec<f32>,
    /// Rows: the chosen move's index.
    pub actions: Vec<i32>,
    /// Rows x [`ACTIONS`]: 1 where the move is legal: the kernel's
    /// [`legal_moves`] and the move chosen (empty without
    /// [`Config::legal_mask`]).
    pub legal: Vec<u8>,
    /// Rows x [`ACTIONS`]: the search's mean utility of each candidate
    /// move, NaN for a move it did not weigh (every move of a row the
    /// greedy policy chose); empty without [`Config::search`].
    pub values: Vec<f32>,
    /// Rows x [`OUTCOMES`].
    pub outcomes: Vec<f32>,
    /// Rows x [`METAS`].
    pub meta: Vec<i32>,
    /// Decisions the playouts refused to weigh (the greedy policy chose).
    pub refused: u64,
}

impl Block {
    #[must_use]
    pub fn rows(&self) -> usize {
        self.actions.len()
    }

    /// Keeps the first `rows` rows (those of whole hands).
    fn truncate(&mut self, rows: usize, width: usize) {
        self.features.truncate(rows * width);
        self.actions.truncate(rows);
        if !self.legal.is_empty() {
            self.legal.truncate(rows * ACTIONS);
        }
        if !self.values.is_empty() {
            self.values.truncate(rows * ACTIONS);
        }
        self.outcomes.truncate(rows * OUTCOMES);
        self.meta.truncate(rows * METAS);
    }
}

/// 32 seed bytes from `words` (splitmix64 of each, chained).
fn seed_bytes(words: &[u64]) -> [u8; 32] {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for &w in words {
        x ^= w;
        x = splitmix(x);
    }
    let mut out = [0u8; 32];
    for chunk in out.chunks_mut(8) {
        x = splitmix(x);
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    out
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays `hands` hands of block `index`: games from the block's own seeds,
/// each match played on across hands until it ends.
#[must_use]
pub fn play_block(config: &Config, index: u64, hands: u64) -> Block {
    let rules = Arc::new(Rules::new(config.variant.clone()));
    let players: Vec<String> = (0..config.players).map(|i| format!("p{i}")).collect();
    let mut block = Block::default();
    let mut game_no = 0u64;
    while block.hands < hands {
        let setup = Setup {
            seed: seed_bytes(&[config.seed, index, game_no]),
            decks: Vec::new(),
        };
        let mut rng = ChaCha20::from_seed(&seed_bytes(&[config.seed, index, game_no, 1]));
        let Ok((mut game, _)) = Game::new(rules.clone(), &players, setup) else {
            return block;
        };
        let mut hand_no = 0;
        while block.hands < hands
            && play_hand(
                config,
                &mut game,
                &mut rng,
                [index * BLOCK + game_no, hand_no],
                &mut block,
            )
        {
            block.hands += 1;
            hand_no += 1;
        }
        game_no += 1;
        if hand_no == 0 {
            // A game that deals no hand would never end the block.
            return block;
        }
    }
    block
}

/// Plays the hand of `game` now to its end, its rows into `block`; false
/// when there is none (the match is over).
fn play_hand(config: &Config, game: &mut Game, rng: &mut ChaCha20, ids: [u64; 2], block: &mut Block) -> bool {
    let rules = game.rules.clone();
    let first_row = block.rows();
    let mut shown = Shown::new(config.players);
    let mut memo = Memo::default();
    let mut ties = ChaCha20::from_seed(&seed_bytes(&[config.seed, ids[0], ids[1], 2]));
    let mut pick = |n: usize| ties.below(u32::try_from(n).unwrap_or(u32::MAX)) as usize;
    let mut seats: Vec<usize> = Vec::new();
    let mut decision = 0i32;
    let result = loop {
        let Some(seat) = game.turn_now() else {
            block.truncate(first_row, config.width());
            return false;
        };
        let Some((mut command, _)) = greedy::play(&game.state, &rules, seat, &mut pick, &mut memo) else {
            block.truncate(first_row, config.width());
            return false;
        };
        let mut values = [f32::NAN; ACTIONS];
        let mut searched = false;
        if let Some(search) = &config.search {
            let choices = candidates(&game.state, &rules, seat, &command, search.width);
            if choices.len() > 1 {
                let mut seed = [0u8; 32];
                for chunk in seed.chunks_mut(4) {
                    chunk.copy_from_slice(&rng.next_u32().to_le_bytes());
                }
                let weighed = weigh(config, search, &shown.seen(&rules, &game.state, seat), &choices, seed);
                block.refused += u64::from(weighed.is_none());
                if let Some((best, evals)) = weighed {
                    for ((c, _), v) in choices.iter().zip(&evals) {
                        if let Some(a) = action_index(&rules, c) {
                            values[a] = *v as f32;
                        }
                    }
                    command = choices[best].0.clone();
                    searched = true;
                }
            }
        }
        if let Some(action) = action_index(&rules, &command) {
            features(config, &rules, &game.state, &shown, seat, &mut block.features);
            block.actions.push(action as i32);
            if config.legal_mask {
                let start = block.legal.len();
                block.legal.resize(start + ACTIONS, 0);
                for m in legal_moves(&game.state, &rules, seat) {
                    if let Some(a) = action_index(&rules, &m) {
                        block.legal[start + a] = 1;
                    }
                }
                // The kernel's list gives the melds of the least deadwood, not
                // those the policy lays keeping one card back to discard.
                block.legal[start + action] = 1;
            }
            if config.search.is_some() {
                block.values.extend(values);
            }
            block
                .meta
                .extend([ids[0] as i32, ids[1] as i32, seat as i32, decision, i32::from(searched)]);
            seats.push(seat);
            decision += 1;
        }
        let top = game.state.discard.last().copied();
        let Ok(events) = game.apply(seat as i64, &command) else {
            block.truncate(first_row, config.width());
            return false;
        };
        shown.observe(&rules, top, &events);
        if let Some(result) = events.iter().find_map(|e| match e {
            Event::RoundEnded(r) => Some(r.clone()),
            _ => None,
        }) {
            break result;
        }
    };
    let sign = match config.variant.scoring {
        Scoring::Penalty => -1.0,
        Scoring::WinnerCollects => 1.0,
    };
    let points: Vec<f32> = result.scores.iter().map(|&s| sign * s as f32).collect();
    for &seat in &seats {
        let best_other = points
            .iter()
            .enumerate()
            .filter(|&(s, _)| s != seat)
            .map(|(_, &p)| p)
            .fold(f32::NEG_INFINITY, f32::max);
        block.outcomes.extend([
            f32::from(u8::from(result.winner == Some(seat))),
            points[seat],
            points[seat] - best_other,
        ]);
    }
    debug_assert_eq!(block.rows() - first_row, seats.len());
    true
}

/// The moves the searching bots weigh for `seat` now (`SearchBot._candidates`),
/// the greedy policy's (`greedy`) first, each with its playout action: in the
/// draw phase the legal draws (taking the discard, the stock, passing the
/// upcard); in the play phase, where the policy would discard or knock, the
/// knocks (one a discard) and the `width` best discards by the discard
/// policy's scores. Fewer than two: nothing to weigh.
#[must_use]
pub fn candidates(state: &State, rules: &Rules, seat: usize, greedy: &Command, width: usize) -> Vec<(Command, Action)> {
    let Ok(seat_id) = i64::try_from(seat) else {
        return Vec::new();
    };
    let legal = |c: &Command| decide(state, rules, seat_id, c).is_ok();
    let card_of = |raw: i64| {
        CardId::try_from(raw)
            .ok()
            .filter(|&c| usize::from(c) < rules.deck_size)
            .map(|c| rules.card(c))
    };
    let mut out: Vec<(Command, Action)> = Vec::new();
    match state.phase {
        Phase::Draw => {
            for (c, a) in [
                (Command::TakeDiscard, Action::TakeDiscard),
                (Command::DrawFromStock, Action::DrawFromStock),
                (Command::PassUpcard, Action::PassUpcard),
            ] {
                if legal(&c) {
                    out.push((c, a));
                }
            }
        }
        Phase::Play if matches!(greedy, Command::Discard { .. } | Command::Knock { .. }) => {
            let hand = &state.seats[seat].hand;
            let id = |raw: i64| CardId::try_from(raw).ok();
            for k in knocks(state, rules, seat) {
                match k {
                    Command::Knock { discard: None, .. } => return Vec::new(),
                    Command::Knock { discard: Some(d), .. } => {
                        let Some(d) = id(d) else { continue };
                        let card = rules.card(d);
                        if !out.iter().any(|(_, a)| *a == Action::Knock(card)) {
                            out.push((k.clone(), Action::Knock(card)));
                        }
                    }
                    _ => {}
                }
            }
            let mut allowed: Vec<CardId> = Vec::new();
            for &c in hand {
                if !allowed.iter().any(|&a| rules.card(a) == rules.card(c)) && legal(&Command::discard(c)) {
                    allowed.push(c);
                }
            }
            let scores = discard_scores(rules, hand, &allowed, None);
            // A stable sort: equal scores keep the hand's order.
            allowed.sort_by_key(|c| std::cmp::Reverse(scores[c]));
            let first = match *greedy {
                Command::Discard { card } => card_of(card),
                _ => None,
            };
            let mut discards = 0;
            for c in allowed {
                if discards >= width && Some(rules.card(c)) != first {
                    continue;
                }
                out.push((Command::discard(c), Action::Discard(rules.card(c))));
                discards += 1;
            }
        }
        _ => {}
    }
    // The policy's own move, first (a card's copy as the policy chose it,
    // its knock's melds as it laid them); not one the search weighs:
    // nothing to weigh.
    let mine = match *greedy {
        Command::TakeDiscard => Some(Action::TakeDiscard),
        Command::DrawFromStock => Some(Action::DrawFromStock),
        Command::PassUpcard => Some(Action::PassUpcard),
        Command::Discard { card } => card_of(card).map(Action::Discard),
        Command::Knock {
            discard: Some(card), ..
        } => card_of(card).map(Action::Knock),
        _ => None,
    };
    let Some(i) = out.iter().position(|(_, a)| Some(*a) == mine) else {
        return Vec::new();
    };
    out.remove(i);
    out.insert(0, (greedy.clone(), mine.expect("found")));
    out
}

/// The search over `choices` (the greedy policy's first): the index chosen
/// (the greedy move stands unless another beats it by more than
/// `confidence` standard errors) and each choice's mean utility; `None`
/// when the playouts refuse the position.
fn weigh(
    config: &Config,
    search: &Search,
    seen: &Seen,
    choices: &[(Command, Action)],
    seed: [u8; 32],
) -> Option<(usize, Vec<f64>)> {
    let actions: Vec<Action> = choices.iter().map(|(_, a)| *a).collect();
    let v = &config.variant;
    let budget = Budget {
        margin_weight: if v.max_rounds == 1 { 0.001 } else { 0.01 },
        horizon: Some(HORIZON),
        ..Budget::iterations(search.iterations)
    };
    let evals = evaluate(v, seen, &actions, &budget, seed).ok()?;
    let best = evals
        .iter()
        .enumerate()
        .filter(|(i, e)| *i == 0 || e.advantage > search.confidence * e.stderr)
        .max_by(|(i, a), (j, b)| a.mean.total_cmp(&b.mean).then(j.cmp(i)))
        .map_or(0, |(i, _)| i);
    Some((best, evals.iter().map(|e| e.mean).collect()))
}

/// Turns of every seat a playout runs before the hands score it (the
/// searching bots' `KNOCKING_HORIZON` and `RUMMY_HORIZON`, both 4).
const HORIZON: u32 = 4;

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub hands: u64,
    pub rows: u64,
    /// Decisions the playouts refused to weigh.
    pub refused: u64,
}

/// Plays `hands` hands on `threads` threads, blocks handed out in turn, and
/// writes each block's rows to the files of `out` in block order (the data
/// do not depend on `threads`).
///
/// # Errors
/// A file that cannot be written.
pub fn run(config: &Config, hands: u64, threads: usize, out: &mut Files) -> io::Result<Written> {
    let blocks = hands.div_ceil(BLOCK);
    let next = AtomicU64::new(0);
    let (send, receive) = mpsc::sync_channel::<(u64, Block)>(threads.max(1) * 2);
    let mut written = Written::default();
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..threads.max(1) {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= blocks {
                    return;
                }
                let size = BLOCK.min(hands - b * BLOCK);
                if send.send((b, play_block(config, b, size))).is_err() {
                    return;
                }
            });
        }
        drop(send);
        let mut waiting: BTreeMap<u64, Block> = BTreeMap::new();
        let mut due = 0;
        for (b, block) in receive {
            waiting.insert(b, block);
            while let Some(block) = waiting.remove(&due) {
                written.hands += block.hands;
                written.rows += block.rows() as u64;
                written.refused += block.refused;
                out.append(&block)?;
                due += 1;
            }
        }
        Ok(())
    })?;
    Ok(written)
}

/// The data files of a run, appended block by block.
pub struct Files {
    features: io::BufWriter<std::fs::File>,
    actions: io::BufWriter<std::fs::File>,
    legal: io::BufWriter<std::fs::File>,
    outcomes: io::BufWriter<std::fs::File>,
    meta: io::BufWriter<std::fs::File>,
    values: Option<io::BufWriter<std::fs::File>>,
}

/// The files' names in the output directory.
pub const FILES: [&str; 5] = ["features.f32", "actions.i32", "legal.u8", "outcome.f32", "meta.i32"];

/// The search's values, written with [`Config::search`].
pub const VALUES_FILE: &str = "values.f32";

impl Files {
    /// Creates (truncates) the files of `config` in `dir`.
    ///
    /// # Errors
    /// A file that cannot be created.
    pub fn create(dir: &Path, config: &Config) -> io::Result<Files> {
        std::fs::create_dir_all(dir)?;
        let open = |name: &str| std::fs::File::create(dir.join(name)).map(io::BufWriter::new);
        Ok(Files {
            features: open(FILES[0])?,
            actions: open(FILES[1])?,
            legal: open(FILES[2])?,
            outcomes: open(FILES[3])?,
            meta: open(FILES[4])?,
            values: if config.search.is_some() {
                Some(open(VALUES_FILE)?)
            } else {
                let _ = std::fs::remove_file(dir.join(VALUES_FILE));
                None
            },
        })
    }

    fn append(&mut self, block: &Block) -> io::Result<()> {
        put(&mut self.features, block.features.iter().map(|x| x.to_le_bytes()))?;
        put(&mut self.actions, block.actions.iter().map(|x| x.to_le_bytes()))?;
        self.legal.write_all(&block.legal)?;
        put(&mut self.outcomes, block.outcomes.iter().map(|x| x.to_le_bytes()))?;
        put(&mut self.meta, block.meta.iter().map(|x| x.to_le_bytes()))?;
        if let Some(values) = &mut self.values {
            put(values, block.values.iter().map(|x| x.to_le_bytes()))?;
        }
        Ok(())
    }

    /// Flushes every file.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn finish(mut self) -> io::Result<()> {
        self.features.flush()?;
        self.actions.flush()?;
        self.legal.flush()?;
        self.outcomes.flush()?;
        if let Some(values) = &mut self.values {
            values.flush()?;
        }
        self.meta.flush()
    }
}

/// Writes the bytes of `numbers` to `w` at once.
fn put<const N: usize>(w: &mut impl Write, numbers: impl ExactSizeIterator<Item = [u8; N]>) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(numbers.len() * N);
    numbers.for_each(|b| bytes.extend_from_slice(&b));
    w.write_all(&bytes)
}

/// The header (`header.json`) of a run: shapes, dtypes, the feature layout
/// and the action encoding, the variant, the seed and the command.
#[must_use]
pub fn header(config: &Config, written: Written, command: &str) -> String {
    let rows = written.rows;
    let width = config.width();
    let layout: Vec<String> = config
        .layout()
        .iter()
        .map(|(name, at, w)| format!("    {{\"name\": {}, \"offset\": {at}, \"width\": {w}}}", json_str(name)))
        .collect();
    let legal_rows = if config.legal_mask { rows } else { 0 };
    let file = |name: &str, dtype: &str, shape: String| {
        format!("    {}: {{\"dtype\": \"{dtype}\", \"shape\": {shape}}}", json_str(name))
    };
    let mut files = vec![
        file(FILES[0], "<f4", format!("[{rows}, {width}]")),
        file(FILES[1], "<i4", format!("[{rows}]")),
        file(FILES[2], "|u1", format!("[{legal_rows}, {ACTIONS}]")),
        file(FILES[3], "<f4", format!("[{rows}, {OUTCOMES}]")),
        file(FILES[4], "<i4", format!("[{rows}, {METAS}]")),
    ];
    let policy = match &config.search {
        None => "\"greedy\"".to_owned(),
        Some(s) => {
            files.push(file(VALUES_FILE, "<f4", format!("[{rows}, {ACTIONS}]")));
            format!(
                "{{\"search\": {{\"iterations\": {}, \"width\": {}, \"confidence\": {}, \"horizon\": {HORIZON}}}, \
                 \"elsewhere\": \"greedy\"}}",
                s.iterations, s.width, s.confidence
            )
        }
    };
    let actions = [
        ("draw_from_stock", DRAW_FROM_STOCK, 1),
        ("take_discard", TAKE_DISCARD, 1),
        ("pass_upcard", PASS_UPCARD, 1),
        ("turn_over_discard_pile", TURN_OVER_DISCARD_PILE, 1),
        ("accept_layout", ACCEPT_LAYOUT, 1),
        ("lay_melds", LAY_MELDS, 1),
        ("big_gin", BIG_GIN, 1),
        ("discard", DISCARD, KINDS),
        ("knock", KNOCK, KINDS),
        ("lay_off", LAY_OFF, KINDS),
        ("swap_joker", SWAP_JOKER, KINDS),
    ]
    .map(|(name, at, w)| format!("    {{\"name\": \"{name}\", \"offset\": {at}, \"width\": {w}}}"));
    let kinds: Vec<String> = (0..KINDS)
        .map(|k| format!("\"{}\"", Card::from_index(k as u8)))
        .collect();
    format!(
        "{{\n  \"format\": \"ramino-selfplay\",\n  \"version\": 1,\n  \"variant\": {},\n  \"players\": {},\n  \
         \"seed\": {},\n  \"policy\": {},\n  \"block_hands\": {BLOCK},\n  \"hands\": {},\n  \"rows\": {rows},\n  \"search_refused\": {},\n  \
         \"command\": {},\n  \"files\": {{\n{}\n  }},\n  \"features\": [\n{}\n  ],\n  \"actions\": [\n{}\n  ],\n  \
         \"card_kinds\": [{}],\n  \"outcome_columns\": [\"won\", \"points\", \"margin\"],\n  \
         \"meta_columns\": [\"game\", \"hand\", \"seat\", \"decision\", \"searched\"]\n}}\n",
        json_str(config.variant.name),
        config.players,
        config.seed,
        policy,
        written.hands,
        written.refused,
        json_str(command),
        files.join(",\n"),
        layout.join(",\n"),
        actions.join(",\n"),
        kinds.join(", "),
    )
}

/// `s` as a JSON string.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
