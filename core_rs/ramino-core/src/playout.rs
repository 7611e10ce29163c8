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
//! the round, and scores the round. The action with the best mean utility
//! wins. Every few iterations the actions are raced: one that trails the
//! leader by more than three standard errors is played out no more, and the
//! deals left go to the actions still in contention (the first, against
//! which the others are paired, always stays).
//!
//! A playout is the game kernel's own round ([`crate::game`]): the deal
//! becomes a kernel [`State`], the candidate action a kernel command, and
//! every seat then plays by the one greedy policy ([`crate::game::greedy`]),
//! each command checked by [`decide`] and folded by [`apply_event`], until
//! the kernel's [`follow_up`] ends the round; its `RoundEnded` scores are the
//! playout's. The stock is rebuilt at most [`Seen::rebuilds_left`] times
//! more, and the round ends with no winner after [`Seen::turns_left`] more
//! turns. With a [`Budget::horizon`], a playout stops at the start of a turn
//! once every seat has had that many more, and is worth what the hands
//! then say: their least deadwood in a knocking variant, their distance
//! from going out in the others.
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
use crate::game::greedy;
use crate::game::policy::ids_of;
use crate::game::{apply_event, at_wall, decide, follow_up, meld_info};
use crate::game::{CardId, Command, Event, Phase, RoundResult, Rules, Setup, State};
use crate::meld::validate_meld;
use crate::search::{layoff_targets, min_deadwood};
use crate::shuffle::ChaCha20;
use crate::variant::{Scoring, Variant};

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
    /// Turns left, after the current one, before the round ends with no
    /// winner.
    pub turns_left: u16,
    /// The first player of a variant whose first turn has no draw (the
    /// kernel's first player; `None`: the deciding seat). The playouts start
    /// from the deciding seat's turn, so no later turn starts without a draw.
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
    /// Turns of every seat after which a playout stops, `None`: at the
    /// round's end. A playout cut short is worth the lead of the seat's
    /// hand over the others' mean, squashed to the range of a round's win
    /// or loss, rather than the round's result: less noise. In a knocking
    /// variant the lead is in least deadwood (`tanh(lead / 15)`), in the
    /// others in distance from going out (loose cards, the penalty held,
    /// the opening still lacking: `cut_distances`).
    pub horizon: Option<u32>,
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
            horizon: None,
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

/// Runs the playouts: one [`Evaluation`] per action, in the order given.
///
/// # Errors
/// A [`Seen`] the playouts cannot start from, no action, or an action the
/// rules refuse in that position (`BadAction`, `why` the kernel's reason).
pub fn evaluate(
    v: &Variant,
    seen: &Seen,
    actions: &[Action],
    budget: &Budget,
    seed: [u8; 32],
) -> Result<Vec<Evaluation>, PlayoutError> {
    let start = Instant::now();
    let base = Base::of(v, seen)?;
    if actions.is_empty() {
        return Err(PlayoutError::NoActions);
    }
    let plans = actions
        .iter()
        .map(|&a| base.plan(seen, a))
        .collect::<Result<Vec<_>, _>>()?;
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
        // The reshuffles of the stock: the same for every action on this deal.
        let mut setup_seed = seed;
        for (b, x) in setup_seed.iter_mut().zip(playout_seed.to_le_bytes()) {
            *b ^= x;
        }
        let setup = Setup {
            seed: setup_seed,
            decks: Vec::new(),
        };
        for (i, plan) in plans.iter().enumerate() {
            if !active[i] {
                continue;
            }
            // The policy's ties: the same draws for every action on this deal.
            let mut ties = ChaCha20::new(&seed, &[0; 12], playout_seed);
            let mut pick = |n: usize| match u32::try_from(n) {
                Ok(n) if n > 1 => ties.below(n) as usize,
                _ => 0,
            };
            let outcome = base
                .run(
                    base.start(plan.phase, &deal),
                    &plan.command,
                    &setup,
                    &mut pick,
                    budget.horizon,
                )
                .map_err(|why| PlayoutError::BadAction {
                    action: action_name(actions[i]),
                    why,
                })?;
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

/// How a playout ended: the kernel's `RoundEnded`, as the utility reads it.
#[derive(Clone, Debug, PartialEq)]
struct Outcome {
    winner: Option<usize>,
    /// Round scores per seat, as the variant counts them.
    scores: Vec<i64>,
    lower_is_better: bool,
    /// A playout cut before the round's end: each hand's distance from
    /// going out then, and the distance that weighs about three quarters
    /// of a round (the round's scores are all 0).
    cut: Option<(Vec<f64>, f64)>,
}

impl Outcome {
    /// Winning the round (+1, -1 when another seat wins, 0 with no winner),
    /// plus the point margin times `margin_weight`.
    fn utility(&self, seat: usize, margin_weight: f64) -> f64 {
        if let Some((distance, scale)) = &self.cut {
            return cut_utility(distance, *scale, seat);
        }
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

/// A candidate action as the kernel plays it: the phase of the deciding
/// seat's turn it is taken in, and the command.
struct Plan {
    phase: Phase,
    command: Command,
}

/// The unseen cards dealt for one iteration: what each other seat holds
/// beyond its known cards, and the stock (top card last).
struct Dealt {
    hands: Vec<Vec<CardId>>,
    stock: Vec<CardId>,
}

/// What every playout of one evaluation starts from: the kernel's rules
/// (built once), and the state of the deciding seat's turn in each phase,
/// dealt with the unseen cards in order (each iteration deals them anew).
struct Base {
    rules: Rules,
    draw: State,
    play: State,
    /// The ids of [`Seen::unseen`], in its order.
    unseen: Vec<CardId>,
    /// The number of known cards of each seat (the first of its hand).
    known: Vec<usize>,
}

impl Base {
    fn of(v: &Variant, seen: &Seen) -> Result<Base, PlayoutError> {
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
        for (index, m) in seen.table.iter().enumerate() {
            validate_meld(m, v).map_err(|_| PlayoutError::BadTable { index })?;
        }
        // Turns started this round: the deciding seat's current one, and one
        // for a seat that has had a turn (what the kernel reads of them:
        // whether a seat is past its first turn, and whether it laid
        // everything in the turn it goes out in).
        let turns: Vec<u32> = seen
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| u32::from(i == seen.seat) + u32::from(s.had_turn || s.laid_any || s.opened))
            .collect();
        let mut variant = v.clone();
        variant.max_stock_rebuilds = seen.rebuilds_left;
        let started = u16::try_from(turns.iter().sum::<u32>()).unwrap_or(u16::MAX);
        variant.max_turns_per_round = started.saturating_add(seen.turns_left);
        let rules = Rules::new(variant);

        // Card ids, each card's in order, handed out as the cards come.
        let mut pools: Vec<Vec<CardId>> = vec![Vec::new(); 53];
        for (id, card) in rules.cards.iter().enumerate().rev() {
            // A deck has at most 108 cards: every id fits a `CardId`.
            pools[card.index()].push(id as CardId);
        }
        let mut ids = |cards: &[Card]| -> Result<Vec<CardId>, PlayoutError> {
            cards
                .iter()
                .map(|c| {
                    pools[c.index()]
                        .pop()
                        .ok_or_else(|| PlayoutError::TooManyCopies { card: c.to_string() })
                })
                .collect()
        };
        let hands = seen
            .seats
            .iter()
            .map(|s| ids(&s.known))
            .collect::<Result<Vec<_>, _>>()?;
        let discard = ids(&seen.discard)?;
        let table = seen.table.iter().map(|m| ids(m)).collect::<Result<Vec<_>, _>>()?;
        let unseen = ids(&seen.unseen)?;

        let mut state = State::new(&vec![String::new(); n]);
        state.round = 1;
        state.first_player = seen.no_draw_seat.unwrap_or(seen.seat);
        state.dealer = (state.first_player + n - 1) % n;
        state.turn = seen.seat;
        // The unseen cards dealt in order; each iteration deals them anew.
        let mut rest = unseen.iter().copied();
        for (i, (s, seat)) in seen.seats.iter().zip(&mut state.seats).enumerate() {
            seat.hand.clone_from(&hands[i]);
            if i != seen.seat {
                seat.hand.extend(rest.by_ref().take(s.hand_size - s.known.len()));
            }
            seat.opened = s.opened;
            seat.turns = turns[i];
            // A seat that laid cards before this turn did so in an earlier
            // turn; one that opened this turn, in this one.
            seat.first_laid_turn = if s.laid_any || (s.opened && i != seen.seat) {
                1
            } else if s.opened {
                seat.turns
            } else {
                0
            };
        }
        state.stock = rest.collect();
        state.discard = discard;
        // Who laid a table meld is not seen, and nothing here reads it.
        state.melds = table
            .into_iter()
            .enumerate()
            .map(|(index, m)| meld_info(0, m, &rules).map_err(|_| PlayoutError::BadTable { index }))
            .collect::<Result<_, _>>()?;

        let v = &rules.variant;
        let me = &seen.seats[seen.seat];
        let mut draw = state.clone();
        draw.phase = Phase::Draw;
        // Knocking play: the first upcard is on offer until someone draws;
        // until then a seat that had a turn passed it.
        draw.first_upcard = v.knocking
            && v.upcard
            && seen.discard.len() == 1
            && seen.taken.is_none()
            && seen.seats.iter().all(|s| s.discarded.is_empty());
        if draw.first_upcard {
            draw.passes = seen.seats.iter().map(|s| u32::from(s.had_turn)).sum();
        }
        let mut play = state;
        play.phase = Phase::Play;
        play.taken = seen
            .taken
            .and_then(|t| play.seats[seen.seat].hand.iter().copied().find(|&c| rules.card(c) == t));
        play.opened_this_turn = rules.needs_opening && me.opened && !me.laid_any;
        play.wall_take = play.taken.is_some() && at_wall(&play, &rules);
        Ok(Base {
            known: hands.iter().map(Vec::len).collect(),
            rules,
            draw,
            play,
            unseen,
        })
    }

    /// The kernel command of `action` for the deciding seat.
    fn plan(&self, seen: &Seen, action: Action) -> Result<Plan, PlayoutError> {
        let bad = |why| PlayoutError::BadAction {
            action: action_name(action),
            why,
        };
        let (phase, command) = match action {
            Action::DrawFromStock => (Phase::Draw, Command::DrawFromStock),
            Action::TakeDiscard => (Phase::Draw, Command::TakeDiscard),
            Action::PassUpcard => (Phase::Draw, Command::PassUpcard),
            Action::Discard(card) | Action::Knock(card) => {
                let hand = &self.play.seats[seen.seat].hand;
                // The card's id in hand, not the one taken while another will do.
                let mut ids = hand.iter().copied().filter(|&c| self.rules.card(c) == card);
                let first = ids.next().ok_or_else(|| bad("the card is not in the seat's hand"))?;
                let id = if Some(first) == self.play.taken {
                    ids.next().unwrap_or(first)
                } else {
                    first
                };
                if let Action::Discard(_) = action {
                    (Phase::Play, Command::discard(id))
                } else {
                    // The knock of that discard with the melds of the least
                    // deadwood of the rest (the kernel's `knocks`).
                    let rest: Vec<CardId> = hand.iter().copied().filter(|&c| c != id).collect();
                    let d = min_deadwood(&self.rules.cards_of(&rest), &self.rules.variant)
                        .map_err(|_| bad("the search takes no hand of that size"))?;
                    let melds = ids_of(&rest, &self.rules, &d.melds, &[]);
                    (Phase::Play, Command::knock(Some(id), &melds))
                }
            }
        };
        Ok(Plan { phase, command })
    }

    /// The other hands filled from the unseen cards (weighted), the rest
    /// shuffled into the stock.
    fn determinize(&self, seen: &Seen, weights: &Weights, rng: &mut ChaCha20) -> Dealt {
        let mut pool = self.unseen.clone();
        let mut hands = vec![Vec::new(); seen.seats.len()];
        for (i, s) in seen.seats.iter().enumerate() {
            if i == seen.seat {
                continue;
            }
            let w = &weights.per_seat[i];
            for _ in s.known.len()..s.hand_size {
                let weight = |c: &CardId| w[self.rules.card(*c).index()];
                let total: f64 = pool.iter().map(weight).sum();
                let mut x = f64::from(rng.next_u32()) / 4_294_967_296.0 * total;
                let mut pick = pool.len() - 1;
                for (k, c) in pool.iter().enumerate() {
                    x -= weight(c);
                    if x < 0.0 {
                        pick = k;
                        break;
                    }
                }
                hands[i].push(pool.swap_remove(pick));
            }
        }
        shuffle_in_place(&mut pool, rng);
        Dealt { hands, stock: pool }
    }

    /// The state of the deciding seat's turn in `phase` with `dealt`.
    fn start(&self, phase: Phase, dealt: &Dealt) -> State {
        let mut state = if phase == Phase::Draw {
            self.draw.clone()
        } else {
            self.play.clone()
        };
        for ((seat, extra), &known) in state.seats.iter_mut().zip(&dealt.hands).zip(&self.known) {
            if !extra.is_empty() {
                seat.hand.truncate(known);
                seat.hand.extend_from_slice(extra);
            }
        }
        state.stock.clone_from(&dealt.stock);
        state
    }

    /// Plays `command` for the seat whose turn it is, then every seat by
    /// the greedy policy, to the end of the round, or with `horizon` until
    /// every seat has started that many more turns. `Err`: the rules refuse
    /// `command` (their reason).
    fn run(
        &self,
        mut state: State,
        command: &Command,
        setup: &Setup,
        pick: &mut impl FnMut(usize) -> usize,
        horizon: Option<u32>,
    ) -> Result<Outcome, &'static str> {
        let rules = &self.rules;
        let n = state.seats.len();
        let limit = horizon.map(|h| started(&state).saturating_add(h.saturating_mul(n as u32)));
        let played = match settle(&mut state, rules, setup) {
            Settled::Playing => {
                let seat = i64::try_from(state.turn).unwrap_or(i64::MAX);
                let events = decide(&state, rules, seat, command).map_err(|r| r.reason)?;
                if events.iter().all(|e| apply_event(&mut state, e, rules).is_ok()) {
                    play_until(&mut state, rules, setup, pick, limit.unwrap_or(u32::MAX))
                } else {
                    Played::Stuck
                }
            }
            Settled::Ended(result) => Played::Ended(result),
            Settled::Stuck => Played::Stuck,
        };
        let lower_is_better = rules.variant.scoring == Scoring::Penalty;
        Ok(match played {
            Played::Ended(r) => Outcome {
                winner: r.winner,
                scores: r.scores,
                lower_is_better,
                cut: None,
            },
            Played::Cut => Outcome {
                winner: None,
                scores: vec![0; n],
                lower_is_better,
                cut: Some(cut_distances(&state, rules)),
            },
            // What a state the kernel cannot play on (which no consistent
            // position gives) comes to: no winner.
            Played::Stuck => Outcome {
                winner: None,
                scores: vec![0; n],
                lower_is_better,
                cut: None,
            },
        })
    }
}

/// Turns started this round, all seats together.
fn started(state: &State) -> u32 {
    state.seats.iter().map(|s| s.turns).sum()
}

/// Points of least deadwood that make a cut playout's lead worth about
/// three quarters of a won round ([`cut_utility`]), in a knocking variant.
const CUT_SCALE: f64 = 15.0;

/// Loose cards that make a cut playout's lead worth about three quarters
/// of a won round, in a rummy variant ([`cut_distances`]).
const RUMMY_CUT_SCALE: f64 = 5.0;

/// What ten points of the penalty a hand holds add to its distance from
/// going out at a cut, in loose cards ([`cut_distances`]).
const RUMMY_CUT_HELD: f64 = 0.2;

/// What ten points by which a seat still to open falls short of the
/// opening threshold add to its distance from going out at a cut, in loose
/// cards ([`cut_distances`]).
const RUMMY_CUT_SHORT: f64 = 0.4;

/// Each hand's distance from going out at a cut, and the distance that
/// weighs three quarters of a round in [`cut_utility`]. In a knocking
/// variant: its least deadwood (what a knock scores), by [`CUT_SCALE`]. In
/// the rummy variants, where going out empties the hand, in loose cards by
/// [`RUMMY_CUT_SCALE`]: the cards its least deadwood leaves over (less
/// those a seat that may lay off can lay off on the table now), plus
/// [`RUMMY_CUT_HELD`] per ten points of the penalty it would pay if
/// another went out (the never-opened penalty where that is scored), plus,
/// for a seat still to open, [`RUMMY_CUT_SHORT`] per ten points its melds
/// in hand fall short of the threshold by. A logistic fit of who won
/// greedy rounds on these features (`bench/cut_fit.py`) finds the loose
/// cards to decide (a scale of 7 to 12 of them) and the rest small; the
/// weights were screened in the arena (`bench/README.md`, issue 33), where
/// scales of 3, 5 and 10 scored alike within the noise.
fn cut_distances(state: &State, rules: &Rules) -> (Vec<f64>, f64) {
    let v = &rules.variant;
    if v.knocking {
        let d = state
            .seats
            .iter()
            .map(|s| {
                f64::from(
                    min_deadwood(&rules.cards_of(&s.hand), v).map_or_else(|_| rules.penalty(&s.hand), |d| d.value),
                )
            })
            .collect();
        return (d, CUT_SCALE);
    }
    let table: Vec<Vec<Card>> = state.melds.iter().map(|m| rules.cards_of(&m.cards)).collect();
    let d = state
        .seats
        .iter()
        .map(|s| {
            let cards = rules.cards_of(&s.hand);
            let unopened = rules.needs_opening && !s.opened;
            let (loose, melded) = match min_deadwood(&cards, v) {
                Ok(d) => {
                    let melded = v.hand_penalty(&cards) - d.value;
                    let mut loose = d.deadwood;
                    if !unopened && !table.is_empty() && !loose.is_empty() {
                        if let Ok(fits) = layoff_targets(&loose, &table, v) {
                            loose.retain(|c| !fits.iter().any(|f| f.card == *c));
                        }
                    }
                    (loose.len(), melded)
                }
                Err(_) => (cards.len(), 0),
            };
            let held = if unopened && v.never_opened_penalty != 0 {
                u32::from(v.never_opened_penalty)
            } else {
                rules.penalty(&s.hand)
            };
            let mut distance = loose as f64 + RUMMY_CUT_HELD * f64::from(held) / 10.0;
            if unopened {
                let short = f64::from(v.open_threshold).max(f64::from(melded)) - f64::from(melded);
                distance += RUMMY_CUT_SHORT * short / 10.0;
            }
            distance
        })
        .collect();
    (d, RUMMY_CUT_SCALE)
}

/// What a playout cut before the round's end is worth to `seat`, from each
/// hand's distance from going out then ([`cut_distances`]): the lead of its
/// hand over the others' mean, squashed to the range of a round's win or
/// loss.
fn cut_utility(distance: &[f64], scale: f64, seat: usize) -> f64 {
    let n = distance.len();
    let others = distance
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != seat)
        .map(|(_, &d)| d)
        .sum::<f64>()
        / (n - 1) as f64;
    ((others - distance[seat]) / scale).tanh()
}

/// Plays the round of `state` to its end, every seat by the greedy policy
/// ([`greedy::play`], ties broken by `pick`), each command's events and
/// what the state then calls for ([`follow_up`], `setup`'s seed
/// reshuffling the stock) folded into `state`: the round's result, as the
/// kernel's `RoundEnded` gives it (the event itself is not folded, nor the
/// next round dealt). `None`: `state` is not in a round, or the kernel
/// cannot go on from it (a state no record gives).
pub fn play_round(
    state: &mut State,
    rules: &Rules,
    setup: &Setup,
    pick: &mut impl FnMut(usize) -> usize,
) -> Option<RoundResult> {
    match play_until(state, rules, setup, pick, u32::MAX) {
        Played::Ended(result) => Some(result),
        Played::Cut | Played::Stuck => None,
    }
}

/// How far a playout went.
enum Played {
    /// The round ended: the kernel's `RoundEnded`.
    Ended(RoundResult),
    /// Stopped at the start of a turn, the turns allowed played.
    Cut,
    /// Not in a round, or the kernel cannot go on from the state.
    Stuck,
}

/// [`play_round`], stopped at the start of the first turn past `limit`
/// turns started this round (all seats together).
fn play_until(
    state: &mut State,
    rules: &Rules,
    setup: &Setup,
    pick: &mut impl FnMut(usize) -> usize,
    limit: u32,
) -> Played {
    let mut memo = greedy::Memo::default();
    loop {
        if !state.in_round() {
            return Played::Stuck;
        }
        match settle(state, rules, setup) {
            Settled::Playing => {}
            Settled::Ended(result) => return Played::Ended(result),
            Settled::Stuck => return Played::Stuck,
        }
        if state.phase == Phase::Draw && started(state) >= limit {
            return Played::Cut;
        }
        let Some((_, events)) = greedy::play(state, rules, state.turn, pick, &mut memo) else {
            return Played::Stuck;
        };
        for e in &events {
            if apply_event(state, e, rules).is_err() {
                return Played::Stuck;
            }
        }
    }
}

/// Where a round stands once the state's own events are folded.
enum Settled {
    Playing,
    Ended(RoundResult),
    /// An event of the kernel's did not fold.
    Stuck,
}

/// Folds what the state calls for by itself (a reshuffle), up to the
/// round's end.
fn settle(state: &mut State, rules: &Rules, setup: &Setup) -> Settled {
    loop {
        let more = follow_up(state, rules, setup);
        if more.is_empty() {
            return Settled::Playing;
        }
        for e in more {
            if let Event::RoundEnded(result) = e {
                return Settled::Ended(result);
            }
            if apply_event(state, &e, rules).is_err() {
                return Settled::Stuck;
            }
        }
    }
}

fn shuffle_in_place(cards: &mut [CardId], rng: &mut ChaCha20) {
    for i in (1..cards.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        cards.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::game::{greedy, Game, Raw};

    /// A tie-breaker drawing from a seeded ChaCha20.
    fn picker(seed: u64) -> impl FnMut(usize) -> usize {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let mut rng = ChaCha20::from_seed(&key);
        move |n| match u32::try_from(n) {
            Ok(n) if n > 1 => rng.below(n) as usize,
            _ => 0,
        }
    }

    /// A new game of `preset` for 2 to 4 seats (by `k`), dealt from `k`'s seed.
    fn new_game(preset: &str, k: u64) -> (Game, Vec<Event>) {
        let rules = Arc::new(Rules::new(Variant::preset(preset).unwrap()));
        let v = &rules.variant;
        let span = u64::from(v.max_players.min(4) - v.min_players + 1);
        let players: Vec<String> = (0..u64::from(v.min_players) + k % span)
            .map(|i| format!("p{i}"))
            .collect();
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&k.to_le_bytes());
        seed[9] = 0x33;
        let setup = Setup {
            seed,
            decks: Vec::new(),
        };
        Game::new(rules, &players, setup).unwrap()
    }

    /// What `seat` sees of the round of `game` (its `events`), as the
    /// searching bot gathers it, but for one thing: every hand is known in
    /// full and the unseen cards are the stock, in its order. A playout then
    /// deals them as they lie.
    fn truth(game: &Game, seat: usize, events: &[Event]) -> Seen {
        let (st, rules) = (&game.state, &game.rules);
        let n = st.seats.len();
        let mut discarded: Vec<Vec<Card>> = vec![Vec::new(); n];
        let mut had_turn = vec![false; n];
        let mut draws = 0u16;
        for e in events {
            match e {
                Event::TookDiscard { seat, .. } | Event::DrewFromStock { seat, .. } => {
                    had_turn[*seat] = true;
                    draws += 1;
                }
                Event::Discarded { seat, card } => {
                    discarded[*seat].push(rules.card(*card));
                    had_turn[*seat] = true;
                }
                Event::PassedUpcard { seat } => had_turn[*seat] = true,
                _ => {}
            }
        }
        let v = &rules.variant;
        Seen {
            seat,
            seats: st
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| SeatSeen {
                    hand_size: s.hand.len(),
                    known: rules.cards_of(&s.hand),
                    opened: s.opened,
                    had_turn: had_turn[i],
                    discarded: discarded[i].clone(),
                    laid_any: s.opened && !(i == seat && st.opened_this_turn),
                })
                .collect(),
            discard: rules.cards_of(&st.discard),
            table: st.melds.iter().map(|m| rules.cards_of(&m.cards)).collect(),
            unseen: rules.cards_of(&st.stock),
            stock_size: st.stock.len(),
            taken: st.taken.map(|t| rules.card(t)),
            rebuilds_left: v.max_stock_rebuilds.saturating_sub(st.rebuilds as u8),
            turns_left: v.max_turns_per_round.saturating_sub(draws).max(1),
            no_draw_seat: None,
        }
    }

    /// `command` of the deciding seat with its card ids those of the
    /// playout's hand, card for card by place in hand (the playout numbers
    /// twin cards its own way); `None` for a command the search does not weigh.
    fn in_playout(command: &Command, real: &[CardId], playout: &[CardId]) -> Option<Command> {
        let id = |raw: Raw| {
            let at = real.iter().position(|&c| Raw::from(c) == raw)?;
            Some(Raw::from(playout[at]))
        };
        match command {
            Command::DrawFromStock | Command::TakeDiscard | Command::PassUpcard => Some(command.clone()),
            Command::Discard { card } => Some(Command::Discard { card: id(*card)? }),
            Command::Knock { discard, melds } => Some(Command::Knock {
                discard: match discard {
                    Some(d) => Some(id(*d)?),
                    None => None,
                },
                melds: match melds {
                    Some(ms) => Some(
                        ms.iter()
                            .map(|m| m.iter().map(|&c| id(c)).collect::<Option<Vec<_>>>())
                            .collect::<Option<Vec<_>>>()?,
                    ),
                    None => None,
                },
            }),
            _ => None,
        }
    }

    /// Over thousands of positions of real rounds in every preset, the
    /// playout built from what the deciding seat sees (here: everything,
    /// the stock in its order) plays the seat's command and the rest of the
    /// round to the `RoundEnded` that the kernel's `Game` reaches playing
    /// the same commands: the same winner and the same round scores. Rounds
    /// in which the stock is later rebuilt are left out (the playout's
    /// reshuffle is its own: that order is hidden from every seat).
    #[test]
    fn a_playout_scores_the_round_as_the_engine_does() {
        for preset in ["ramino51", "rami51", "rummy", "gin"] {
            let (mut compared, mut rebuilt, mut won) = (0, 0, 0);
            for k in 0..150u64 {
                let (mut game, mut events) = new_game(preset, k);
                let mut walk = picker(k ^ 0xA5);
                let mut rng = ChaCha20::from_seed(&[k as u8 ^ 0x5A; 32]);
                while let Some(seat) = game.turn_now() {
                    let greedy_cmd =
                        greedy::choose(&game.state, &game.rules, seat, &mut walk).expect("a greedy command");
                    if matches!(game.state.phase, Phase::Draw | Phase::Play) && rng.below(3) == 0 {
                        let seen = truth(&game, seat, &events);
                        let base = Base::of(&game.rules.variant, &seen).expect("a playout of a real position");
                        let phase = game.state.phase;
                        let start = base.start(
                            phase,
                            &Dealt {
                                hands: vec![Vec::new(); seen.seats.len()],
                                stock: base.unseen.clone(),
                            },
                        );
                        if let Some(cmd) =
                            in_playout(&greedy_cmd, &game.state.seats[seat].hand, &start.seats[seat].hand)
                        {
                            let mut real = game.clone();
                            let mut pick = picker(k + 7);
                            let mut more = real.apply(seat as i64, &greedy_cmd).unwrap();
                            let ended = loop {
                                if more.iter().any(|e| matches!(e, Event::StockReshuffled { .. })) {
                                    break None;
                                }
                                if let Some(Event::RoundEnded(r)) =
                                    more.iter().find(|e| matches!(e, Event::RoundEnded(_)))
                                {
                                    break Some(r.clone());
                                }
                                let s = real.turn_now().expect("a round in play");
                                let c = greedy::choose(&real.state, &real.rules, s, &mut pick).unwrap();
                                more = real.apply(s as i64, &c).unwrap();
                            };
                            match ended {
                                None => rebuilt += 1,
                                Some(ended) => {
                                    let outcome = base
                                        .run(start, &cmd, &game.setup, &mut picker(k + 7), None)
                                        .unwrap_or_else(|why| panic!("{preset} {k}: {why} for {cmd:?}"));
                                    assert_eq!(
                                        (outcome.winner, &outcome.scores),
                                        (ended.winner, &ended.scores),
                                        "{preset}, deal {k}, {greedy_cmd:?} in {:?}",
                                        game.state
                                    );
                                    compared += 1;
                                    won += usize::from(ended.winner.is_some());
                                }
                            }
                        }
                    }
                    let more = game.apply(seat as i64, &greedy_cmd).unwrap();
                    if more.iter().any(|e| matches!(e, Event::RoundEnded(_))) {
                        break;
                    }
                    events.extend(more);
                }
            }
            assert!(
                compared > 1000 && won > compared / 2,
                "{preset}: {compared} rounds compared, {won} won, {rebuilt} rebuilt"
            );
        }
    }

    /// What seat 0 sees of a two-seat round when the other hand is known in
    /// full: nothing on the table or the pile, both seats past their first
    /// turn, opened (and having laid) or not alike.
    fn both_known(v: &Variant, mine: &[Card], theirs: &[Card], opened: bool) -> Seen {
        let mut unseen = v.deck().cards();
        for c in mine.iter().chain(theirs) {
            let i = unseen.iter().position(|u| u == c).unwrap();
            unseen.remove(i);
        }
        let seat = |known: &[Card]| SeatSeen {
            hand_size: known.len(),
            known: known.to_vec(),
            opened,
            had_turn: true,
            discarded: vec![],
            laid_any: opened,
        };
        Seen {
            seat: 0,
            seats: vec![seat(mine), seat(theirs)],
            discard: vec![],
            table: vec![],
            stock_size: unseen.len(),
            unseen,
            taken: None,
            rebuilds_left: 0,
            turns_left: 200,
            no_draw_seat: None,
        }
    }

    /// A playout cut at the next turn's start (horizon 0) is worth the lead
    /// of the seat's least deadwood after its discard over the other hand's,
    /// `tanh(lead / 15)`, on every deal: here the other hand is known in
    /// full, so every deal gives the same value; no playout counts as won.
    #[test]
    fn a_cut_playout_is_worth_the_lead_of_its_least_deadwood() {
        let v = Variant::gin();
        let mine = Card::parse_list("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH").unwrap();
        let theirs = Card::parse_list("7C 7D 7S 8H 8S 2D 3D 5C TC TD").unwrap();
        let seen = both_known(&v, &mine, &theirs, false);
        let actions = [
            Action::Discard("KC".parse().unwrap()),
            Action::Discard("4H".parse().unwrap()),
        ];
        let budget = Budget {
            horizon: Some(0),
            ..Budget::iterations(8)
        };
        let evals = evaluate(&v, &seen, &actions, &budget, [3; 32]).unwrap();
        let least = |hand: &[Card], out: &str| {
            let out: Card = out.parse().unwrap();
            let rest: Vec<Card> = hand.iter().copied().filter(|&c| c != out).collect();
            f64::from(min_deadwood(&rest, &v).unwrap().value)
        };
        let other = f64::from(min_deadwood(&theirs, &v).unwrap().value);
        for (e, out) in evals.iter().zip(["KC", "4H"]) {
            let expected = ((other - least(&mine, out)) / CUT_SCALE).tanh();
            assert!((e.mean - expected).abs() < 1e-12, "{out}: {e:?}, expected {expected}");
            assert_eq!((e.playouts, e.wins), (8, 0), "{e:?}");
        }
        assert!(evals[0].mean > evals[1].mean, "{evals:?}");
    }

    /// In a rummy variant a playout cut at the next turn's start is worth
    /// the lead of the seat's distance from going out over the other's:
    /// the loose cards of its least deadwood plus a fifth of a card per ten
    /// points held, and for a seat still to open (ramino51) two fifths per
    /// ten points its melds lack of the threshold and the never-opened
    /// penalty as the penalty held, `tanh(lead / 5)`. The other hand is
    /// known in full: every deal gives the same value.
    #[test]
    fn a_cut_rummy_playout_is_worth_the_lead_of_its_distance_from_going_out() {
        let cut = |v: &Variant, mine: &[Card], theirs: &[Card], opened: bool, out: [&str; 2]| {
            let seen = both_known(v, mine, theirs, opened);
            let actions = out.map(|c| Action::Discard(c.parse().unwrap()));
            let budget = Budget {
                horizon: Some(0),
                ..Budget::iterations(8)
            };
            evaluate(v, &seen, &actions, &budget, [5; 32]).unwrap()
        };
        let near = |e: &Evaluation, lead: f64| {
            let expected = (lead / RUMMY_CUT_SCALE).tanh();
            assert!((e.mean - expected).abs() < 1e-12, "{e:?}, expected {expected}");
            assert_eq!((e.playouts, e.wins), (8, 0), "{e:?}");
        };

        // Rummy (no opening): after KC, 9C 9D QD JH are loose, the hand
        // holds 59 points; after 4H, 7 loose, 65. The other hand: 7C 7D 7S
        // melded, 7 loose, 67 points.
        let mine = Card::parse_list("AS 2S 3S 4H 5H 6H 9C 9D KC QD JH").unwrap();
        let theirs = Card::parse_list("7C 7D 7S 8H 8S 2D 3D 5C TC TD").unwrap();
        let evals = cut(&Variant::rummy(), &mine, &theirs, false, ["KC", "4H"]);
        let other = 7.0 + RUMMY_CUT_HELD * 6.7;
        near(&evals[0], other - (4.0 + RUMMY_CUT_HELD * 5.9));
        near(&evals[1], other - (7.0 + RUMMY_CUT_HELD * 6.5));
        assert!(evals[0].mean > evals[1].mean, "{evals:?}");

        // Ramino51, neither seat opened, both holding the never-opened 100:
        // after 2C my runs are worth 30 (21 short), KD QH loose; after 4H,
        // one run of 15 (36 short), 5 loose. The other's set of tens is
        // worth 30 (21 short), 2D 3D 5C 8H 8S loose.
        let v = Variant::ramino51();
        let mine = Card::parse_list("AS 2S 3S 4H 5H 6H KD QH 2C").unwrap();
        let theirs = Card::parse_list("TC TD TS 2D 3D 5C 8H 8S").unwrap();
        let unopened = |loose: f64, short: f64| loose + RUMMY_CUT_HELD * 10.0 + RUMMY_CUT_SHORT * short / 10.0;
        let evals = cut(&v, &mine, &theirs, false, ["2C", "4H"]);
        near(&evals[0], unopened(5.0, 21.0) - unopened(2.0, 21.0));
        near(&evals[1], unopened(5.0, 21.0) - unopened(5.0, 36.0));
        // Opened: the penalty in hand counts instead (50 and 48 points
        // against 56), and no threshold.
        let evals = cut(&v, &mine, &theirs, true, ["2C", "4H"]);
        let other = 5.0 + RUMMY_CUT_HELD * 5.6;
        near(&evals[0], other - (2.0 + RUMMY_CUT_HELD * 5.0));
        near(&evals[1], other - (5.0 + RUMMY_CUT_HELD * 4.8));
    }
}
