//! Determinized Monte Carlo for the searching bots (`hard`, `expert`).
//!
//! A seat that must choose between a few actions (take the discard or draw,
//! which card to discard, knock or play on) knows its own hand, the table, the
//! discard pile, how many cards every other seat holds, and which cards those
//! seats took from the discard pile and still hold ([`Seen`]). Everything
//! else is unseen. One *iteration* deals the unseen cards at random to the
//! other hands and the stock, consistently with what is known ([`Seen`]'s
//! counts and known cards, weighted by what each seat collects and throws
//! away), then plays every candidate action on that same deal to the end of
//! the round with a fast greedy policy for every seat, and scores the round
//! under the variant. The action with the best mean utility wins. Every few
//! iterations the actions are raced: one that trails the leader by more than
//! three standard errors is played out no more, and the deals left go to the
//! actions still in contention (the first, against which the others are
//! paired, always stays).
//!
//! The playout follows the variant's parameters, never its name: opening
//! threshold and pure run, taking the discard before opening, the card taken
//! not discarded back, lay-offs (natural cards), going out with or without a
//! discard, the stock rebuilt or turned over, the turn limit, and knocking
//! play (knock, gin, lay-offs of the defender, undercut, the wall). It does
//! not swap jokers or lay jokers off: a policy, not a rules engine.
//!
//! ```
//! use ramino_core::{evaluate, Action, Budget, Card, Seen, SeatSeen, Variant};
//! let v = Variant::gin();
//! let mine = Card::parse_list("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH").unwrap();
//! let all = v.deck().cards();
//! let mut unseen = all.clone();
//! for c in &mine { let i = unseen.iter().position(|u| u == c).unwrap(); unseen.remove(i); }
//! let seen = Seen {
//!     seat: 0,
//!     seats: vec![
//!         SeatSeen { hand_size: 11, known: mine.clone(), opened: false, had_turn: true, discarded: vec![], laid_any: false },
//!         SeatSeen { hand_size: 10, known: vec![], opened: false, had_turn: true, discarded: vec![], laid_any: false },
//!     ],
//!     discard: vec![],
//!     table: vec![],
//!     unseen: unseen.clone(),
//!     stock_size: unseen.len() - 10,
//!     taken: None,
//!     rebuilds_left: 0,
//!     turns_left: 200,
//!     no_draw_seat: None,
//! };
//! let kc = "KC".parse().unwrap();
//! let actions = [Action::Discard(kc), Action::Discard("4H".parse().unwrap())];
//! let evals = evaluate(&v, &seen, &actions, &Budget::iterations(50), [7; 32]).unwrap();
//! assert_eq!(evals.len(), 2);
//! assert_eq!(evals[0].playouts, 50);
//! // Throwing the king keeps the two runs; breaking a run is worse.
//! assert!(evals[0].mean > evals[1].mean);
//! ```

use std::time::{Duration, Instant};

use thiserror::Error;

use crate::card::Card;
use crate::meld::{position_rank, validate_meld, Meld, MeldKind};
use crate::search::{best_opening, min_deadwood};
use crate::shuffle::ChaCha20;
use crate::variant::{Scoring, StockExhausted, Variant};

/// What the deciding seat knows of one seat (itself included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatSeen {
    /// Cards in that seat's hand now.
    pub hand_size: usize,
    /// Cards known to be in that hand: the deciding seat's whole hand; for
    /// another seat, what it took from the discard pile and still holds.
    pub known: Vec<Card>,
    pub opened: bool,
    /// Whether the seat has started a turn this round.
    pub had_turn: bool,
    /// What the seat threw to the discard pile this round (an inference of
    /// what it does not collect).
    pub discarded: Vec<Card>,
    /// Whether the seat put any card on the table this round before the
    /// current turn (closing in hand and going rummy need none).
    pub laid_any: bool,
}

/// Everything the deciding seat may see, as the playouts need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The deciding seat, whose turn it is.
    pub seat: usize,
    /// Every seat in turn order (index = seat number).
    pub seats: Vec<SeatSeen>,
    /// The discard pile, bottom first.
    pub discard: Vec<Card>,
    /// The melds on the table.
    pub table: Vec<Vec<Card>>,
    /// The cards the seat has not seen: the other hands' unknown cards and
    /// the stock.
    pub unseen: Vec<Card>,
    pub stock_size: usize,
    /// The card the deciding seat took from the discard pile this turn.
    pub taken: Option<Card>,
    /// Times the stock may still be rebuilt this round.
    pub rebuilds_left: u8,
    /// Turns left before the round ends with no winner.
    pub turns_left: u16,
    /// A seat whose first turn starts without a draw and has not begun.
    pub no_draw_seat: Option<usize>,
}

/// A candidate action of the deciding seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Draw phase: draw from the stock, then play the turn by the policy.
    DrawFromStock,
    /// Draw phase: take the discard top, then play the turn by the policy.
    TakeDiscard,
    /// Knocking play, first upcard: pass it to the next seat.
    PassUpcard,
    /// Play phase: discard this card (the melds of the turn are laid).
    Discard(Card),
    /// Knocking play: discard this card and knock.
    Knock(Card),
}

/// When to stop sampling deals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// The most iterations (deals sampled; each plays every action once).
    pub max_iterations: u32,
    /// Wall-clock time allowed, checked between iterations; `None`: no limit.
    /// At least one iteration always runs.
    pub time: Option<Duration>,
    /// What a point of margin is worth in the utility, beside the round's
    /// win (+1) or loss (-1): [`DEFAULT_MARGIN_WEIGHT`] weighs a hundred
    /// points as much as the win; near 0 the playouts seek the win alone.
    pub margin_weight: f64,
}

/// The default [`Budget::margin_weight`]: a hundredth per point.
pub const DEFAULT_MARGIN_WEIGHT: f64 = 0.01;

impl Budget {
    /// A fixed number of iterations and no clock: deterministic.
    #[must_use]
    pub const fn iterations(n: u32) -> Budget {
        Budget {
            max_iterations: n,
            time: None,
            margin_weight: DEFAULT_MARGIN_WEIGHT,
        }
    }
}

/// The playouts of one action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    pub action: Action,
    /// Mean utility for the deciding seat: +1 for a round won, -1 for a
    /// round another seat won, plus its point margin over the mean of the
    /// others (signed so that more is better) times the budget's
    /// `margin_weight`.
    pub mean: f64,
    /// Playouts run for this action: every iteration's for the first, and
    /// fewer for an action dropped from the race.
    pub playouts: u32,
    /// Playouts in which the deciding seat went out (or won the knock).
    pub wins: u32,
    /// Mean of this action's utility minus the first action's, playout by
    /// playout on the same deals (0 for the first action).
    pub advantage: f64,
    /// Standard error of `advantage` (0 with a single playout).
    pub stderr: f64,
}

/// Inputs the playouts cannot start from.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlayoutError {
    #[error("{players} seats: the playouts need 2 to 6")]
    PlayerCount { players: usize },
    #[error("seat {seat} is not a seat of this game")]
    NoSuchSeat { seat: usize },
    #[error("seat {seat} holds {hand_size} cards but {known} are known to be in its hand")]
    KnownExceedsHand {
        seat: usize,
        hand_size: usize,
        known: usize,
    },
    #[error("the deciding seat's hand must be known in full: {known} of {hand_size} cards given")]
    OwnHandUnknown { known: usize, hand_size: usize },
    #[error("{unseen} unseen cards, but the other hands and the stock need {needed}")]
    UnseenCount { unseen: usize, needed: usize },
    #[error("{card} appears more often than the deck holds it")]
    TooManyCopies { card: String },
    #[error("no candidate action given")]
    NoActions,
    #[error("the action {action} is not possible here: {why}")]
    BadAction { action: String, why: &'static str },
    #[error("table meld {index} is not a legal meld")]
    BadTable { index: usize },
}

impl PlayoutError {
    /// The stable machine-readable reason.
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        match self {
            PlayoutError::PlayerCount { .. } => "PLAYER_COUNT",
            PlayoutError::NoSuchSeat { .. } => "NO_SUCH_SEAT",
            PlayoutError::KnownExceedsHand { .. } => "KNOWN_EXCEEDS_HAND",
            PlayoutError::OwnHandUnknown { .. } => "OWN_HAND_UNKNOWN",
            PlayoutError::UnseenCount { .. } => "UNSEEN_COUNT",
            PlayoutError::TooManyCopies { .. } => "TOO_MANY_COPIES",
            PlayoutError::NoActions => "NO_ACTIONS",
            PlayoutError::BadAction { .. } => "BAD_ACTION",
            PlayoutError::BadTable { .. } => "BAD_TABLE",
        }
    }
}

fn action_name(a: Action) -> String {
    match a {
        Action::DrawFromStock => "draw_from_stock".into(),
        Action::TakeDiscard => "take_discard".into(),
        Action::PassUpcard => "pass_upcard".into(),
        Action::Discard(c) => format!("discard {c}"),
        Action::Knock(c) => format!("knock {c}"),
    }
}

/// A meld on the table as the playout keeps it: what natural card extends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableMeld {
    kind: MeldKind,
    /// Runs: the suit index; sets: the rank.
    key: u8,
    /// Runs: first and last position; sets: unused.
    low: u8,
    high: u8,
    /// Sets: bit set of the natural suits in it.
    suits: u8,
    len: u8,
}

impl TableMeld {
    /// The compact form of a legal meld.
    #[must_use]
    pub fn of(m: &Meld) -> TableMeld {
        let mut suits = 0u8;
        for c in &m.cards {
            if let Some(s) = c.suit() {
                suits |= 1 << (s as u8);
            }
        }
        TableMeld {
            kind: m.kind,
            key: match m.kind {
                MeldKind::Run => m.suit.map_or(0, |s| s as u8),
                MeldKind::Set => m.low,
            },
            low: m.low,
            high: m.high,
            suits,
            len: m.cards.len() as u8,
        }
    }

    /// Whether the natural `card` can be laid off onto this meld, and at
    /// which end of a run (`Some(true)`: the start). `None`: it cannot.
    #[must_use]
    pub fn accepts(&self, card: Card, v: &Variant) -> Option<bool> {
        let (rank, suit) = (card.rank()?, card.suit()? as u8);
        match self.kind {
            MeldKind::Set => (self.len < 4 && rank == self.key && self.suits & (1 << suit) == 0).then_some(false),
            MeldKind::Run => {
                if suit != self.key || self.len >= 14 {
                    return None;
                }
                if self.low > 1 && position_rank(self.low - 1) == rank {
                    return Some(true);
                }
                if self.high < v.top_position() && position_rank(self.high + 1) == rank {
                    return Some(false);
                }
                None
            }
        }
    }

    fn lay_off(&mut self, card: Card, at_start: bool) {
        self.len += 1;
        match self.kind {
            MeldKind::Set => self.suits |= 1 << card.suit().map_or(0, |s| s as u8),
            MeldKind::Run if at_start => self.low -= 1,
            MeldKind::Run => self.high += 1,
        }
    }
}

/// Runs the playouts: one [`Evaluation`] per action, in the order given.
pub fn evaluate(
    v: &Variant,
    seen: &Seen,
    actions: &[Action],
    budget: &Budget,
    seed: [u8; 32],
) -> Result<Vec<Evaluation>, PlayoutError> {
    let start = Instant::now();
    let base = Sim::from_seen(v, seen)?;
    check_actions(v, seen, actions)?;
    let mut rng = ChaCha20::from_seed(&seed);
    let weights = Weights::of(seen);
    let mut evals: Vec<Evaluation> = actions
        .iter()
        .map(|&action| Evaluation {
            action,
            mean: 0.0,
            playouts: 0,
            wins: 0,
            advantage: 0.0,
            stderr: 0.0,
        })
        .collect();
    let mut totals = vec![0.0f64; actions.len()];
    // Sums of the paired differences with the first action, and of their squares.
    let mut diffs = vec![(0.0f64, 0.0f64); actions.len()];
    // The first action's utility on the current deal (it always plays first).
    let mut first = 0.0f64;
    let mut active = vec![true; actions.len()];
    let mut done = 0u32;
    while done < budget.max_iterations.max(1) {
        if done > 0 {
            if let Some(t) = budget.time {
                if start.elapsed() >= t {
                    break;
                }
            }
        }
        if done >= 2 * RACE_EVERY && done % RACE_EVERY == 0 {
            race(&evals, &diffs, &mut active);
        }
        let deal = base.determinize(seen, &weights, &mut rng);
        let playout_seed = rng.next_u32();
        for (i, &a) in actions.iter().enumerate() {
            if !active[i] {
                continue;
            }
            let mut sim = deal.clone();
            sim.rng = ChaCha20::new(&seed, &[0; 12], playout_seed);
            let outcome = sim.run(seen.seat, a);
            let u = outcome.utility(seen.seat, budget.margin_weight);
            if i == 0 {
                first = u;
            }
            let x = u - first;
            diffs[i].0 += x;
            diffs[i].1 += x * x;
            totals[i] += u;
            evals[i].playouts += 1;
            if outcome.winner == Some(seen.seat) {
                evals[i].wins += 1;
            }
        }
        done += 1;
    }
    for ((e, t), (d, d2)) in evals.iter_mut().zip(totals).zip(diffs) {
        e.mean = t / f64::from(e.playouts);
        (e.advantage, e.stderr) = paired(d, d2, e.playouts);
    }
    Ok(evals)
}

/// Iterations between two looks at the candidates' standing (from the
/// second look on), each stopping the playouts of the clearly beaten.
const RACE_EVERY: u32 = 16;

/// Standard errors by which a candidate must trail the leader to be dropped.
const RACE_MARGIN: f64 = 3.0;

/// The mean paired advantage over the first action, and its standard error,
/// from the sums of the differences and of their squares over `n` playouts.
fn paired(d: f64, d2: f64, n: u32) -> (f64, f64) {
    let n = f64::from(n);
    if n < 2.0 {
        return (d / n.max(1.0), 0.0);
    }
    let var = ((d2 - d * d / n) / (n - 1.0)).max(0.0);
    (d / n, (var / n).sqrt())
}

/// Racing: an action whose advantage over the first trails the leader's by
/// more than [`RACE_MARGIN`] standard errors of the two is played no more,
/// so that the deals go to the actions still in contention. The first
/// action, against which every other is paired, always stays.
fn race(evals: &[Evaluation], diffs: &[(f64, f64)], active: &mut [bool]) {
    let standing: Vec<(f64, f64)> = evals
        .iter()
        .zip(diffs)
        .map(|(e, &(d, d2))| paired(d, d2, e.playouts))
        .collect();
    let Some(leader) = (0..standing.len())
        .filter(|&i| active[i])
        .max_by(|&a, &b| standing[a].0.total_cmp(&standing[b].0))
    else {
        return;
    };
    let (best, best_se) = standing[leader];
    for i in 1..active.len() {
        if active[i] && i != leader {
            let (adv, se) = standing[i];
            if adv + RACE_MARGIN * (se * se + best_se * best_se).sqrt() < best {
                active[i] = false;
            }
        }
    }
}

fn check_actions(v: &Variant, seen: &Seen, actions: &[Action]) -> Result<(), PlayoutError> {
    if actions.is_empty() {
        return Err(PlayoutError::NoActions);
    }
    let hand = &seen.seats[seen.seat].known;
    let bad = |a: Action, why| {
        Err(PlayoutError::BadAction {
            action: action_name(a),
            why,
        })
    };
    for &a in actions {
        match a {
            Action::TakeDiscard | Action::PassUpcard if seen.discard.is_empty() => {
                return bad(a, "the discard pile is empty")
            }
            Action::PassUpcard if !v.knocking => return bad(a, "only knocking play offers the upcard"),
            Action::Knock(_) if !v.knocking => return bad(a, "only knocking play knocks"),
            Action::Discard(c) | Action::Knock(c) if !hand.contains(&c) => {
                return bad(a, "the card is not in the seat's hand")
            }
            _ => {}
        }
    }
    Ok(())
}

/// Sampling weights of the unseen cards for each other seat's hand.
struct Weights {
    per_seat: Vec<[f64; 53]>,
}

impl Weights {
    /// A seat that threw a card is less likely to hold its neighbours (the
    /// same rank, the same suit within two ranks); a seat that took a card
    /// and holds it is more likely to hold them.
    fn of(seen: &Seen) -> Weights {
        let per_seat = seen
            .seats
            .iter()
            .map(|s| {
                let mut w = [1.0f64; 53];
                for (cards, factor) in [(&s.discarded, 0.6), (&s.known, 1.8)] {
                    for c in cards.iter() {
                        let (Some(r), Some(su)) = (c.rank(), c.suit()) else {
                            continue;
                        };
                        for (k, wk) in w.iter_mut().enumerate().take(52) {
                            let other = Card::from_index(k as u8);
                            let (or, os) = (other.rank().unwrap_or(0), other.suit());
                            let near =
                                (or == r && os != Some(su)) || (os == Some(su) && or != r && or.abs_diff(r) <= 2);
                            if near {
                                *wk *= factor;
                            }
                        }
                    }
                }
                w
            })
            .collect();
        Weights { per_seat }
    }
}

/// How a playout ended.
#[derive(Clone, Debug, PartialEq)]
struct Outcome {
    winner: Option<usize>,
    /// Round scores per seat, as the variant counts them.
    scores: Vec<i64>,
    lower_is_better: bool,
}

impl Outcome {
    /// Winning the round (+1, -1 when another seat wins, 0 with no winner),
    /// plus the point margin times `margin_weight`.
    fn utility(&self, seat: usize, margin_weight: f64) -> f64 {
        let n = self.scores.len();
        let mine = self.scores[seat] as f64;
        let others: f64 = self
            .scores
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != seat)
            .map(|(_, &s)| s as f64)
            .sum::<f64>()
            / (n - 1) as f64;
        let margin = if self.lower_is_better {
            others - mine
        } else {
            mine - others
        };
        let win = match self.winner {
            Some(w) if w == seat => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
        win + margin * margin_weight
    }
}

/// One dealt state of a round, played by the policy.
#[derive(Clone)]
struct Sim<'a> {
    v: &'a Variant,
    hands: Vec<Vec<Card>>,
    opened: Vec<bool>,
    laid_any: Vec<bool>,
    had_turn: Vec<bool>,
    /// Top card last.
    stock: Vec<Card>,
    /// Top card last.
    discard: Vec<Card>,
    table: Vec<TableMeld>,
    rebuilds_left: u8,
    turns_left: u16,
    no_draw_seat: Option<usize>,
    taken: Option<Card>,
    /// Whether the seat to play had laid cards before this turn.
    laid_before: bool,
    rng: ChaCha20,
}

/// What a seat's turn comes to.
enum Step {
    Next,
    Over(Outcome),
}

impl<'a> Sim<'a> {
    fn from_seen(v: &'a Variant, seen: &Seen) -> Result<Sim<'a>, PlayoutError> {
        let n = seen.seats.len();
        if !(2..=6).contains(&n) {
            return Err(PlayoutError::PlayerCount { players: n });
        }
        if seen.seat >= n {
            return Err(PlayoutError::NoSuchSeat { seat: seen.seat });
        }
        if let Some(s) = seen.no_draw_seat {
            if s >= n {
                return Err(PlayoutError::NoSuchSeat { seat: s });
            }
        }
        let mut needed = seen.stock_size;
        for (i, s) in seen.seats.iter().enumerate() {
            if s.known.len() > s.hand_size {
                return Err(PlayoutError::KnownExceedsHand {
                    seat: i,
                    hand_size: s.hand_size,
                    known: s.known.len(),
                });
            }
            if i == seen.seat && s.known.len() != s.hand_size {
                return Err(PlayoutError::OwnHandUnknown {
                    known: s.known.len(),
                    hand_size: s.hand_size,
                });
            }
            needed += s.hand_size - s.known.len();
        }
        if seen.unseen.len() != needed {
            return Err(PlayoutError::UnseenCount {
                unseen: seen.unseen.len(),
                needed,
            });
        }
        let deck = v.deck();
        let mut counts = [0u8; 53];
        let mut table = Vec::with_capacity(seen.table.len());
        for (index, m) in seen.table.iter().enumerate() {
            let meld = validate_meld(m, v).map_err(|_| PlayoutError::BadTable { index })?;
            table.push(TableMeld::of(&meld));
        }
        let everything = seen
            .seats
            .iter()
            .flat_map(|s| s.known.iter())
            .chain(&seen.discard)
            .chain(seen.table.iter().flatten())
            .chain(&seen.unseen);
        for c in everything {
            counts[c.index()] += 1;
            if counts[c.index()] > deck.copies(*c) {
                return Err(PlayoutError::TooManyCopies { card: c.to_string() });
            }
        }
        Ok(Sim {
            v,
            hands: seen.seats.iter().map(|s| s.known.clone()).collect(),
            opened: seen.seats.iter().map(|s| s.opened).collect(),
            laid_any: seen.seats.iter().map(|s| s.laid_any).collect(),
            had_turn: seen.seats.iter().map(|s| s.had_turn).collect(),
            stock: Vec::new(),
            discard: seen.discard.clone(),
            table,
            rebuilds_left: seen.rebuilds_left,
            turns_left: seen.turns_left,
            no_draw_seat: seen.no_draw_seat,
            taken: seen.taken,
            laid_before: seen.seats[seen.seat].laid_any,
            rng: ChaCha20::from_seed(&[0; 32]),
        })
    }

    /// The other hands filled from the unseen cards (weighted), the rest
    /// shuffled into the stock.
    fn determinize(&self, seen: &Seen, weights: &Weights, rng: &mut ChaCha20) -> Sim<'a> {
        let mut sim = self.clone();
        let mut pool = seen.unseen.clone();
        for (i, s) in seen.seats.iter().enumerate() {
            if i == seen.seat {
                continue;
            }
            let w = &weights.per_seat[i];
            for _ in s.known.len()..s.hand_size {
                let total: f64 = pool.iter().map(|c| w[c.index()]).sum();
                let mut x = f64::from(rng.next_u32()) / 4_294_967_296.0 * total;
                let mut pick = pool.len() - 1;
                for (k, c) in pool.iter().enumerate() {
                    x -= w[c.index()];
                    if x < 0.0 {
                        pick = k;
                        break;
                    }
                }
                sim.hands[i].push(pool.swap_remove(pick));
            }
        }
        shuffle_in_place(&mut pool, rng);
        sim.stock = pool;
        sim
    }

    fn outcome(&self, winner: Option<usize>, scores: Vec<i64>) -> Outcome {
        Outcome {
            winner,
            scores,
            lower_is_better: self.v.scoring == Scoring::Penalty,
        }
    }

    fn no_winner(&self) -> Outcome {
        self.outcome(None, vec![0; self.hands.len()])
    }

    /// Plays `first` for `seat`, then the policy for everyone to the end.
    fn run(&mut self, seat: usize, first: Action) -> Outcome {
        let n = self.hands.len();
        let step = match first {
            Action::DrawFromStock | Action::TakeDiscard => self.turn(seat, Some(first == Action::TakeDiscard)),
            Action::PassUpcard => Step::Next,
            Action::Discard(c) => self.finish_turn(seat, Some(c)),
            Action::Knock(c) => self.knock(seat, c),
        };
        if let Step::Over(o) = step {
            return o;
        }
        let mut s = (seat + 1) % n;
        loop {
            if self.turns_left == 0 {
                return self.no_winner();
            }
            self.turns_left -= 1;
            if let Step::Over(o) = self.turn(s, None) {
                return o;
            }
            s = (s + 1) % n;
        }
    }

    /// A whole turn of `s` by the policy (`take`: the draw decided already).
    fn turn(&mut self, s: usize, take: Option<bool>) -> Step {
        self.taken = None;
        self.laid_before = self.laid_any[s];
        let first = !self.had_turn[s];
        self.had_turn[s] = true;
        if self.v.knocking {
            return self.gin_turn(s, take);
        }
        if self.no_draw_seat == Some(s) {
            self.no_draw_seat = None;
        } else {
            let take = take.unwrap_or_else(|| self.wants_discard(s, first));
            if take && !self.discard.is_empty() {
                let top = self.discard.pop().expect("not empty");
                self.hands[s].push(top);
                self.taken = Some(top);
            } else if !self.draw_stock(s) {
                return Step::Over(self.no_winner());
            }
        }
        self.meld(s, first);
        self.finish_turn(s, None)
    }

    fn must_open_with_discard(&self, s: usize, first: bool) -> bool {
        self.v.discard_take_requires_open && !self.opened[s] && !first && self.v.open_threshold > 0
    }

    /// The policy's draw: the discard top when it joins a meld of the hand
    /// (and, where taking it obliges an opening, when that opening exists).
    fn wants_discard(&self, s: usize, first: bool) -> bool {
        let Some(&top) = self.discard.last() else { return false };
        let mut with = self.hands[s].clone();
        with.push(top);
        if self.must_open_with_discard(s, first) {
            return matches!(best_opening(&with, self.v, Some(top)), Ok(Some(_)));
        }
        if top.is_joker() {
            return true;
        }
        match min_deadwood(&with, self.v) {
            Ok(d) => d.melds.iter().any(|m| m.contains(&top)),
            Err(_) => false,
        }
    }

    /// Draws the stock top, rebuilding the stock first when it is empty;
    /// false when it cannot be rebuilt (the round ends with no winner).
    fn draw_stock(&mut self, s: usize) -> bool {
        if self.stock.is_empty() {
            if self.rebuilds_left == 0 || self.discard.len() < 2 {
                return false;
            }
            self.rebuilds_left -= 1;
            let top = self.discard.pop().expect("two cards");
            let mut pile = std::mem::take(&mut self.discard);
            match self.v.stock_exhausted {
                StockExhausted::Reshuffle => shuffle_in_place(&mut pile, &mut self.rng),
                // Turned over: the pile's bottom card becomes the stock top.
                StockExhausted::TurnOver => pile.reverse(),
            }
            self.stock = pile;
            self.discard.push(top);
        }
        let c = self.stock.pop().expect("a stock card");
        self.hands[s].push(c);
        true
    }

    /// The policy's melding: open with the best opening as soon as there is
    /// one; once open, lay every meld of the least deadwood and lay off what
    /// the table takes, always keeping a card to discard where going out
    /// needs one.
    fn meld(&mut self, s: usize, first: bool) {
        let v = self.v;
        let mut opened_now = false;
        if v.open_threshold > 0 && !self.opened[s] {
            let include = if self.taken.is_some() && self.must_open_with_discard(s, first) {
                self.taken
            } else {
                None
            };
            let Ok(Some(opening)) = best_opening(&self.hands[s], v, include) else {
                return;
            };
            self.lay(s, &opening.melds);
            self.opened[s] = true;
            opened_now = true;
        } else if self.hands[s].len() > 1 || !v.must_discard_to_go_out {
            let Ok(d) = min_deadwood(&self.hands[s], v) else { return };
            let mut melds = d.melds;
            if d.deadwood.is_empty() && v.must_discard_to_go_out {
                keep_one(&mut melds, v);
            }
            if !melds.is_empty() {
                self.lay(s, &melds);
                self.opened[s] = true;
            }
        }
        if opened_now && !v.layoff_on_opening_turn {
            return;
        }
        self.lay_offs(s);
    }

    fn lay(&mut self, s: usize, melds: &[Vec<Card>]) {
        for m in melds {
            for c in m {
                let i = self.hands[s].iter().position(|h| h == c).expect("melded card in hand");
                self.hands[s].swap_remove(i);
            }
            if let Ok(meld) = validate_meld(m, self.v) {
                self.table.push(TableMeld::of(&meld));
            }
        }
        self.laid_any[s] = true;
    }

    fn lay_offs(&mut self, s: usize) {
        let keep = usize::from(self.v.must_discard_to_go_out);
        let mut i = 0;
        while i < self.hands[s].len() && self.hands[s].len() > keep {
            let c = self.hands[s][i];
            let target = self
                .table
                .iter()
                .enumerate()
                .find_map(|(k, m)| m.accepts(c, self.v).map(|at| (k, at)));
            if let Some((k, at_start)) = target {
                self.table[k].lay_off(c, at_start);
                self.hands[s].swap_remove(i);
                self.laid_any[s] = true;
                i = 0;
            } else {
                i += 1;
            }
        }
    }

    /// Discards (`card`, or the policy's choice) and scores the round when
    /// the hand is empty.
    fn finish_turn(&mut self, s: usize, card: Option<Card>) -> Step {
        if !self.hands[s].is_empty() {
            let c = card.unwrap_or_else(|| self.choose_discard(s));
            let i = self.hands[s].iter().position(|h| *h == c).expect("discard in hand");
            self.hands[s].swap_remove(i);
            self.discard.push(c);
        }
        if self.hands[s].is_empty() {
            return Step::Over(self.went_out(s));
        }
        Step::Next
    }

    /// The policy's discard: never the card just taken (nor its twin), a
    /// joker last, the deadwood card of highest penalty with the fewest
    /// partners (a card of the same rank, or the suit within two ranks).
    fn choose_discard(&self, s: usize) -> Card {
        let hand = &self.hands[s];
        let melded: Vec<Card> = if self.opened[s] || hand.len() < 3 {
            Vec::new()
        } else {
            min_deadwood(hand, self.v).map(|d| d.melds.concat()).unwrap_or_default()
        };
        let mut best = hand[0];
        let mut best_score = i64::MIN;
        for &c in hand {
            if Some(c) == self.taken && hand.iter().any(|h| Some(*h) != self.taken) {
                continue;
            }
            let score = if c.is_joker() {
                -10_000
            } else {
                let (r, su) = (c.rank().unwrap_or(0), c.suit());
                let partners = hand
                    .iter()
                    .filter(|h| {
                        !h.is_joker()
                            && **h != c
                            && ((h.rank() == Some(r) && h.suit() != su)
                                || (h.suit() == su && h.rank().unwrap_or(0).abs_diff(r) <= 2))
                    })
                    .count() as i64;
                let base = i64::from(self.v.penalty(&c)) * 2 - 8 * partners;
                if melded.contains(&c) {
                    base - 500
                } else {
                    base
                }
            };
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }

    /// `s` went out. A seat that laid nothing before this turn "closed in
    /// hand" (51 variants) or "went rummy" (rummy).
    fn went_out(&self, s: usize) -> Outcome {
        let v = self.v;
        let laid_before = self.laid_before;
        let n = self.hands.len();
        let mut scores = vec![0i64; n];
        match v.scoring {
            Scoring::Penalty => {
                let closed = !laid_before && v.closed_hand_multiplier > 1;
                let mult = if closed { i64::from(v.closed_hand_multiplier) } else { 1 };
                for (i, score) in scores.iter_mut().enumerate() {
                    *score = if i == s {
                        i64::from(if closed { v.closed_hand_score } else { v.winner_score })
                    } else if !self.opened[i] && v.never_opened_penalty > 0 {
                        i64::from(v.never_opened_penalty) * mult
                    } else {
                        i64::from(v.hand_penalty(&self.hands[i])) * mult
                    };
                }
            }
            Scoring::WinnerCollects => {
                let pot: i64 = (0..n)
                    .filter(|&i| i != s)
                    .map(|i| i64::from(v.hand_penalty(&self.hands[i])))
                    .sum();
                let mult = if laid_before { 1 } else { i64::from(v.rummy_multiplier) };
                scores[s] = pot * mult;
            }
        }
        self.outcome(Some(s), scores)
    }

    // --- knocking play -------------------------------------------------------

    fn gin_turn(&mut self, s: usize, take: Option<bool>) -> Step {
        let v = self.v;
        let wall = v.wall_stock_size > 0 && self.stock.len() <= usize::from(v.wall_stock_size);
        let top = self.discard.last().copied();
        let take = match take {
            Some(t) => t,
            None => match top {
                None => false,
                Some(top) => {
                    let mut with = self.hands[s].clone();
                    with.push(top);
                    match min_deadwood(&with, v) {
                        Ok(d) if wall => {
                            let worst = d.deadwood.iter().map(|c| v.penalty(c)).max().unwrap_or(0);
                            d.value - worst <= u32::from(v.knock_card)
                        }
                        Ok(d) => d.melds.iter().any(|m| m.contains(&top)),
                        Err(_) => false,
                    }
                }
            },
        };
        if take && top.is_some() {
            let top = self.discard.pop().expect("a top card");
            self.hands[s].push(top);
            self.taken = Some(top);
        } else if wall || self.stock.is_empty() {
            return Step::Over(self.no_winner());
        } else {
            let c = self.stock.pop().expect("a stock card");
            self.hands[s].push(c);
        }
        let Ok(d) = min_deadwood(&self.hands[s], v) else {
            return Step::Over(self.no_winner());
        };
        if d.deadwood.is_empty() && v.big_gin {
            return Step::Over(self.score_knock(s, &d.melds, 0, true));
        }
        // The costliest loose card, not the one just taken while another
        // will do; with no loose card, the melded card whose loss costs least.
        let pick = d
            .deadwood
            .iter()
            .filter(|c| Some(**c) != self.taken || d.deadwood.len() == 1)
            .max_by_key(|c| v.penalty(c))
            .copied();
        let (card, left) = match pick {
            Some(c) => (c, d.value - v.penalty(&c)),
            None => self.cheapest_melded_discard(s),
        };
        if left <= u32::from(v.knock_card) {
            return self.knock(s, card);
        }
        let i = self.hands[s].iter().position(|h| *h == card).expect("in hand");
        self.hands[s].swap_remove(i);
        self.discard.push(card);
        Step::Next
    }

    fn cheapest_melded_discard(&self, s: usize) -> (Card, u32) {
        let hand = &self.hands[s];
        let mut best = (hand[0], u32::MAX);
        for (i, &c) in hand.iter().enumerate() {
            let mut rest = hand.clone();
            rest.remove(i);
            if let Ok(d) = min_deadwood(&rest, self.v) {
                if d.value < best.1 {
                    best = (c, d.value);
                }
            }
        }
        best
    }

    /// `s` discards `card` and knocks with the melds of its least deadwood.
    fn knock(&mut self, s: usize, card: Card) -> Step {
        let i = self.hands[s].iter().position(|h| *h == card).expect("in hand");
        self.hands[s].swap_remove(i);
        self.discard.push(card);
        let Ok(d) = min_deadwood(&self.hands[s], self.v) else {
            return Step::Over(self.no_winner());
        };
        Step::Over(self.score_knock(s, &d.melds, d.value, false))
    }

    /// The knock of `s` scored: the defender lays off its loose cards onto
    /// the knocker's melds (not after gin), then the totals are compared.
    fn score_knock(&self, s: usize, melds: &[Vec<Card>], knocker: u32, big_gin: bool) -> Outcome {
        let v = self.v;
        let n = self.hands.len();
        let d = (s + 1) % n;
        let defender_dw = min_deadwood(&self.hands[d], v).map(|x| x.deadwood).unwrap_or_default();
        let mut scores = vec![0i64; n];
        if knocker == 0 {
            let total = defender_dw.iter().map(|c| v.penalty(c)).sum::<u32>();
            let bonus = if big_gin { v.big_gin_bonus } else { v.gin_bonus };
            scores[s] = i64::from(total) + i64::from(bonus);
            return self.outcome(Some(s), scores);
        }
        let mut table: Vec<TableMeld> = melds
            .iter()
            .filter_map(|m| validate_meld(m, v).ok().map(|m| TableMeld::of(&m)))
            .collect();
        let mut loose = defender_dw;
        let mut changed = true;
        while changed {
            changed = false;
            let mut k = 0;
            while k < loose.len() {
                let c = loose[k];
                if let Some((t, at)) = table
                    .iter()
                    .enumerate()
                    .find_map(|(t, m)| m.accepts(c, v).map(|at| (t, at)))
                {
                    table[t].lay_off(c, at);
                    loose.swap_remove(k);
                    changed = true;
                } else {
                    k += 1;
                }
            }
        }
        let defender: u32 = loose.iter().map(|c| v.penalty(c)).sum();
        if defender < knocker {
            scores[d] = i64::from(knocker - defender) + i64::from(v.undercut_bonus);
            self.outcome(Some(d), scores)
        } else if defender == knocker {
            self.outcome(None, scores)
        } else {
            scores[s] = i64::from(defender - knocker);
            self.outcome(Some(s), scores)
        }
    }
}

/// Every card melds but going out needs a discard: keep back one card (an end
/// of a long run, a card of a set of four) or else the cheapest meld.
fn keep_one(melds: &mut Vec<Vec<Card>>, v: &Variant) {
    for m in melds.iter_mut() {
        if m.len() >= 4 {
            let (head, tail) = (m[1..].to_vec(), m[..m.len() - 1].to_vec());
            for rest in [head, tail] {
                if validate_meld(&rest, v).is_ok() {
                    *m = rest;
                    return;
                }
            }
        }
    }
    let cheapest = melds
        .iter()
        .enumerate()
        .min_by_key(|(_, m)| validate_meld(m, v).map_or(0, |x| x.value))
        .map(|(i, _)| i);
    if let Some(i) = cheapest {
        melds.remove(i);
    }
}

fn shuffle_in_place(cards: &mut [Card], rng: &mut ChaCha20) {
    for i in (1..cards.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        cards.swap(i, j);
    }
}
