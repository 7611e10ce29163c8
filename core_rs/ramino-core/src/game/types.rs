//! The game's data: the rules of one variant with their tables, commands,
//! events, the state they fold into, and the errors of a refused command.
//!
//! Card ids are indexes into the variant's deck ([`Rules::cards`]); table
//! melds are indexed in the order they were laid. Every type mirrors the
//! Python engine's shape of the same name (`service/ramino/engine`).

use crate::card::Card;
use crate::meld::{End, Meld, MeldKind};
use crate::search::Deadwood;
use crate::variant::{StockExhausted, Variant};

/// A card's id in its game's deck (`0..deck_size`).
pub type CardId = u8;

/// A raw integer field of a command as the client sent it, checked by the
/// command's shape ([`BAD_VALUE`] stands for a value that is not an integer).
pub type Raw = i64;

/// The raw value of a field that is not an integer at all (a string, a
/// bool, ...): the shape check refuses it as `BAD_FIELD`.
pub const BAD_VALUE: Raw = i64::MIN;

/// No seat yet (before the first deal).
pub const NO_SEAT: usize = usize::MAX;

/// A variant with the tables the kernel reads on every command, shared by
/// every game of that variant (read-only).
#[derive(Clone, Debug)]
pub struct Rules {
    pub variant: Variant,
    /// The card of every id.
    pub cards: Vec<Card>,
    /// The penalty of every id.
    pub penalties: Vec<u32>,
    pub deck_size: usize,
    /// Without a threshold or a pure-run rule there is no opening: a player
    /// may lay off from the first turn (basic rummy).
    pub needs_opening: bool,
    /// The search "can this hand, less the card it keeps to discard, lay the
    /// joker in a new meld?": an opening with no threshold that may use every
    /// card searched.
    pub joker_meld_variant: Variant,
    pub must_discard: bool,
    pub reshuffle: bool,
}

impl Rules {
    #[must_use]
    pub fn new(variant: Variant) -> Rules {
        let deck = variant.deck();
        let cards = deck.cards();
        let penalties = cards.iter().map(|c| variant.penalty(c)).collect();
        let mut joker_meld_variant = variant.clone();
        joker_meld_variant.open_threshold = 0;
        joker_meld_variant.open_requires_pure_run = false;
        joker_meld_variant.must_discard_to_go_out = false;
        Rules {
            deck_size: cards.len(),
            needs_opening: variant.open_threshold > 0 || variant.open_requires_pure_run,
            must_discard: variant.must_discard_to_go_out,
            reshuffle: variant.stock_exhausted == StockExhausted::Reshuffle,
            joker_meld_variant,
            cards,
            penalties,
            variant,
        }
    }

    /// The card of id `id`.
    #[must_use]
    pub fn card(&self, id: CardId) -> Card {
        self.cards[id as usize]
    }

    /// The cards of `ids`.
    #[must_use]
    pub fn cards_of(&self, ids: &[CardId]) -> Vec<Card> {
        ids.iter().map(|&c| self.cards[c as usize]).collect()
    }

    /// The summed penalty of `ids`.
    #[must_use]
    pub fn penalty(&self, ids: &[CardId]) -> u32 {
        ids.iter().map(|&c| self.penalties[c as usize]).sum()
    }
}

/// Phases. A round is always in `Draw`, `Play` or `Layoff` for the seat whose
/// turn it is; `BetweenRounds` lasts only until the next deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Draw,
    Play,
    BetweenRounds,
    Over,
    /// Knocking play: the defender lays off, melds and accepts the layout.
    Layoff,
}

impl Phase {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Draw => "draw",
            Phase::Play => "play",
            Phase::BetweenRounds => "between_rounds",
            Phase::Over => "over",
            Phase::Layoff => "layoff",
        }
    }

    #[must_use]
    pub fn parse(text: &str) -> Option<Phase> {
        Some(match text {
            "draw" => Phase::Draw,
            "play" => Phase::Play,
            "between_rounds" => Phase::BetweenRounds,
            "over" => Phase::Over,
            "layoff" => Phase::Layoff,
            _ => return None,
        })
    }
}

/// The end of a meld a lay-off goes to, as the client sent it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RawEnd {
    Start,
    End,
    /// Anything else (refused as `BAD_END`).
    Bad(String),
}

/// What a seat can ask for (the Python engine's `commands.py`). Fields are
/// raw: [`crate::game::decide`] checks their shape before the state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    DrawFromStock,
    TakeDiscard,
    TurnOverDiscardPile,
    /// `None`: the melds were not a list at all (`NO_MELDS`).
    LayMelds {
        melds: Option<Vec<Vec<Raw>>>,
    },
    LayOff {
        card: Raw,
        meld: Raw,
        end: RawEnd,
    },
    SwapJoker {
        card: Raw,
        meld: Raw,
        joker: Raw,
    },
    Discard {
        card: Raw,
    },
    Resign,
    PassUpcard,
    /// `discard` `None`: big gin. `melds` `None`: not a list (`NO_MELDS`).
    Knock {
        discard: Option<Raw>,
        melds: Option<Vec<Vec<Raw>>>,
    },
    AcceptLayout,
    /// Not a command at all (`UNKNOWN_COMMAND`); the text names it.
    Unknown(String),
}

impl Command {
    /// The command's type name (the Python class name).
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        match self {
            Command::DrawFromStock => "DrawFromStock",
            Command::TakeDiscard => "TakeDiscard",
            Command::TurnOverDiscardPile => "TurnOverDiscardPile",
            Command::LayMelds { .. } => "LayMelds",
            Command::LayOff { .. } => "LayOff",
            Command::SwapJoker { .. } => "SwapJoker",
            Command::Discard { .. } => "Discard",
            Command::Resign => "Resign",
            Command::PassUpcard => "PassUpcard",
            Command::Knock { .. } => "Knock",
            Command::AcceptLayout => "AcceptLayout",
            Command::Unknown(_) => "Unknown",
        }
    }

    /// A well-formed `LayMelds` of card ids.
    #[must_use]
    pub fn lay_melds(melds: &[Vec<CardId>]) -> Command {
        Command::LayMelds {
            melds: Some(
                melds
                    .iter()
                    .map(|m| m.iter().map(|&c| Raw::from(c)).collect())
                    .collect(),
            ),
        }
    }

    /// A well-formed `LayOff`.
    #[must_use]
    pub fn lay_off(card: CardId, meld: usize, end: End) -> Command {
        Command::LayOff {
            card: Raw::from(card),
            meld: meld as Raw,
            end: match end {
                End::Start => RawEnd::Start,
                End::End => RawEnd::End,
            },
        }
    }

    /// A well-formed `Knock`.
    #[must_use]
    pub fn knock(discard: Option<CardId>, melds: &[Vec<CardId>]) -> Command {
        Command::Knock {
            discard: discard.map(Raw::from),
            melds: Some(
                melds
                    .iter()
                    .map(|m| m.iter().map(|&c| Raw::from(c)).collect())
                    .collect(),
            ),
        }
    }

    /// A well-formed `Discard`.
    #[must_use]
    pub fn discard(card: CardId) -> Command {
        Command::Discard { card: Raw::from(card) }
    }

    /// A well-formed `SwapJoker`.
    #[must_use]
    pub fn swap_joker(card: CardId, meld: usize, joker: CardId) -> Command {
        Command::SwapJoker {
            card: Raw::from(card),
            meld: meld as Raw,
            joker: Raw::from(joker),
        }
    }
}

/// How a round ended (`RoundEnded.ending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    WentOut,
    StockExhausted,
    Resignations,
    /// No winner after `max_turns_per_round` turns.
    TurnLimit,
    /// Knocking play: the knocker's unmatched total was below the defender's
    /// (or equal: no winner).
    Knock,
    Gin,
    BigGin,
    /// The defender's unmatched total was below the knocker's.
    Undercut,
    /// A pass at the wall, or the upcard taken and discarded back twice in
    /// succession: nobody scores.
    Drawn,
}

impl Ending {
    pub const ALL: [Ending; 9] = [
        Ending::WentOut,
        Ending::StockExhausted,
        Ending::Resignations,
        Ending::TurnLimit,
        Ending::Knock,
        Ending::Gin,
        Ending::BigGin,
        Ending::Undercut,
        Ending::Drawn,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Ending::WentOut => "went_out",
            Ending::StockExhausted => "stock_exhausted",
            Ending::Resignations => "resignations",
            Ending::TurnLimit => "turn_limit",
            Ending::Knock => "knock",
            Ending::Gin => "gin",
            Ending::BigGin => "big_gin",
            Ending::Undercut => "undercut",
            Ending::Drawn => "drawn",
        }
    }

    #[must_use]
    pub fn parse(text: &str) -> Option<Ending> {
        Ending::ALL.into_iter().find(|e| e.as_str() == text)
    }
}

/// A round's result (the `RoundEnded` event).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RoundResult {
    pub round: u32,
    pub ending: Ending,
    pub winner: Option<usize>,
    pub closed_hand: bool,
    /// Per seat, this round.
    pub scores: Vec<i64>,
    /// The cards left in each hand, shown to everyone for the count.
    pub hands: Vec<Vec<CardId>>,
    /// Per seat, what its score is made of: the parts' points sum to its
    /// score (empty in a round logged before the kernel said).
    pub parts: Vec<Vec<ScorePart>>,
}

/// What a part of a seat's score counts (`ScorePart.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScorePartKind {
    /// Penalty scoring: the winner's `winner_score` for going out.
    WentOut,
    /// Penalty scoring: the winner's `closed_hand_score` for closing in
    /// hand (all melds laid at once, then the last discard).
    ClosedHand,
    /// Penalty scoring: the penalty of the cards left in hand.
    HandPenalty,
    /// Penalty scoring: `never_opened_penalty` in place of the hand's
    /// penalty (`base`) of a seat that never opened.
    NeverOpened,
    /// Penalty scoring: the winner closed in hand, so the score before
    /// (`base`) counts `factor` (`closed_hand_multiplier`) times: the points
    /// are what that adds.
    ClosedHandMultiplier,
    /// Winner-collects scoring: the hand of seat `seat` collected, its
    /// penalty `base` (or `never_opened_penalty` in its place, where set).
    HandCollected,
    /// Winner-collects scoring: the winner went rummy, so the collected
    /// hands (`base`) count `factor` (`rummy_multiplier`) times.
    RummyMultiplier,
    /// Knocking: the unmatched total of the other seat, `seat`.
    OpponentDeadwood,
    /// Knocking: the seat's own unmatched total, taken off.
    OwnDeadwood,
    /// Knocking: `gin_bonus`.
    GinBonus,
    /// Knocking: `big_gin_bonus`.
    BigGinBonus,
    /// Knocking: the defender's `undercut_bonus`.
    UndercutBonus,
    /// The end of a match: the total of the rounds' scores.
    Rounds,
    /// The end of a match: `box_bonus` (`base`) per hand won (`factor`).
    BoxBonus,
    /// The end of a match: the sole winner's `game_bonus`.
    GameBonus,
    /// The end of a match: a shutout, the winner's total before (`base`)
    /// counts `factor` (`shutout_multiplier`) times.
    ShutoutMultiplier,
}

impl ScorePartKind {
    pub const ALL: [ScorePartKind; 16] = [
        ScorePartKind::WentOut,
        ScorePartKind::ClosedHand,
        ScorePartKind::HandPenalty,
        ScorePartKind::NeverOpened,
        ScorePartKind::ClosedHandMultiplier,
        ScorePartKind::HandCollected,
        ScorePartKind::RummyMultiplier,
        ScorePartKind::OpponentDeadwood,
        ScorePartKind::OwnDeadwood,
        ScorePartKind::GinBonus,
        ScorePartKind::BigGinBonus,
        ScorePartKind::UndercutBonus,
        ScorePartKind::Rounds,
        ScorePartKind::BoxBonus,
        ScorePartKind::GameBonus,
        ScorePartKind::ShutoutMultiplier,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ScorePartKind::WentOut => "went_out",
            ScorePartKind::ClosedHand => "closed_hand",
            ScorePartKind::HandPenalty => "hand_penalty",
            ScorePartKind::NeverOpened => "never_opened",
            ScorePartKind::ClosedHandMultiplier => "closed_hand_multiplier",
            ScorePartKind::HandCollected => "hand_collected",
            ScorePartKind::RummyMultiplier => "rummy_multiplier",
            ScorePartKind::OpponentDeadwood => "opponent_deadwood",
            ScorePartKind::OwnDeadwood => "own_deadwood",
            ScorePartKind::GinBonus => "gin_bonus",
            ScorePartKind::BigGinBonus => "big_gin_bonus",
            ScorePartKind::UndercutBonus => "undercut_bonus",
            ScorePartKind::Rounds => "rounds",
            ScorePartKind::BoxBonus => "box_bonus",
            ScorePartKind::GameBonus => "game_bonus",
            ScorePartKind::ShutoutMultiplier => "shutout_multiplier",
        }
    }

    #[must_use]
    pub fn parse(text: &str) -> Option<ScorePartKind> {
        ScorePartKind::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// One part of a seat's score of a round or of a match's final total, as
/// the kernel decided it: `points` is what it adds; `base`, `factor` and
/// `seat` say what it was worked from where its kind says so (else 0, 0 and
/// `None`).
///
/// ```
/// use ramino_core::game::{ScorePart, ScorePartKind};
/// let p = ScorePart::new(ScorePartKind::NeverOpened, 100).with_base(83);
/// assert_eq!((p.points, p.base, p.factor, p.seat), (100, 83, 0, None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScorePart {
    pub kind: ScorePartKind,
    pub points: i64,
    pub base: i64,
    pub factor: i64,
    pub seat: Option<usize>,
}

impl ScorePart {
    #[must_use]
    pub const fn new(kind: ScorePartKind, points: i64) -> ScorePart {
        ScorePart {
            kind,
            points,
            base: 0,
            factor: 0,
            seat: None,
        }
    }

    #[must_use]
    pub const fn with_base(self, base: i64) -> ScorePart {
        ScorePart { base, ..self }
    }

    #[must_use]
    pub const fn with_factor(self, factor: i64) -> ScorePart {
        ScorePart { factor, ..self }
    }

    #[must_use]
    pub const fn with_seat(self, seat: usize) -> ScorePart {
        ScorePart {
            seat: Some(seat),
            ..self
        }
    }
}

/// What happened: the facts a game's record is made of (the Python engine's
/// `events.py`). Hidden fields are `Option`s, `None` once projected for a
/// viewer who may not see them ([`crate::game::project`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// `hands[seat]`: that seat's hand in deal order (empty for a seat not
    /// dealt in). `stock`: top card last.
    RoundStarted {
        round: u32,
        dealer: usize,
        first_player: usize,
        hands: Vec<Option<Vec<CardId>>>,
        hand_sizes: Vec<usize>,
        upcard: Option<CardId>,
        stock_size: usize,
        stock: Option<Vec<CardId>>,
    },
    DrewFromStock {
        seat: usize,
        card: Option<CardId>,
    },
    TookDiscard {
        seat: usize,
        card: CardId,
    },
    /// The discard pile, turned over unshuffled, is the new stock.
    DiscardPileTurnedOver {
        seat: usize,
        rebuild: u32,
    },
    /// All of the discard pile but its top card `kept` shuffled into a new
    /// stock (top card last).
    StockReshuffled {
        rebuild: u32,
        kept: CardId,
        stock_size: usize,
        stock: Option<Vec<CardId>>,
    },
    /// `described`: each meld as the kernel validated it, in order (empty
    /// in a record written before the kernel said).
    MeldsLaid {
        seat: usize,
        melds: Vec<Vec<CardId>>,
        opening: bool,
        described: Vec<MeldDescription>,
    },
    /// `described`: the table meld the lay-off made (`None` in a record
    /// written before the kernel said).
    LaidOff {
        seat: usize,
        card: CardId,
        meld: usize,
        end: End,
        described: Option<MeldDescription>,
    },
    /// `described`: the table meld the swap made (`None` in a record
    /// written before the kernel said).
    JokerSwapped {
        seat: usize,
        card: CardId,
        meld: usize,
        joker: CardId,
        described: Option<MeldDescription>,
    },
    Discarded {
        seat: usize,
        card: CardId,
    },
    Resigned {
        seat: usize,
    },
    PassedUpcard {
        seat: usize,
    },
    /// `described`: as `MeldsLaid`'s.
    Knocked {
        seat: usize,
        discard: Option<CardId>,
        melds: Vec<Vec<CardId>>,
        deadwood: u32,
        described: Vec<MeldDescription>,
    },
    LayoutAccepted {
        seat: usize,
    },
    RoundEnded(RoundResult),
    /// `parts`: per seat, what its total is made of (the rounds' scores and
    /// the bonuses of the match's end), summing to it; empty in a match
    /// logged before the kernel said.
    MatchEnded {
        totals: Vec<i64>,
        winners: Vec<usize>,
        parts: Vec<Vec<ScorePart>>,
    },
}

impl Event {
    /// The event's type name (the Python class name).
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        match self {
            Event::RoundStarted { .. } => "RoundStarted",
            Event::DrewFromStock { .. } => "DrewFromStock",
            Event::TookDiscard { .. } => "TookDiscard",
            Event::DiscardPileTurnedOver { .. } => "DiscardPileTurnedOver",
            Event::StockReshuffled { .. } => "StockReshuffled",
            Event::MeldsLaid { .. } => "MeldsLaid",
            Event::LaidOff { .. } => "LaidOff",
            Event::JokerSwapped { .. } => "JokerSwapped",
            Event::Discarded { .. } => "Discarded",
            Event::Resigned { .. } => "Resigned",
            Event::PassedUpcard { .. } => "PassedUpcard",
            Event::Knocked { .. } => "Knocked",
            Event::LayoutAccepted { .. } => "LayoutAccepted",
            Event::RoundEnded(_) => "RoundEnded",
            Event::MatchEnded { .. } => "MatchEnded",
        }
    }
}

/// What the kernel decided of a meld it put on the table or changed there
/// ([`crate::validate_meld`]'s answer), carried by the event so that no
/// client works the rules out again.
///
/// ```
/// use ramino_core::{validate_meld, Card, Variant, MeldKind};
/// use ramino_core::game::MeldDescription;
/// let m = validate_meld(&Card::parse_list("5H 6H JK").unwrap(), &Variant::ramino51()).unwrap();
/// let d = MeldDescription::of(&m);
/// assert_eq!((d.kind, d.value, d.closed, d.pure), (MeldKind::Run, 18, false, false));
/// assert_eq!(d.jokers[0].0, 2);
/// assert_eq!(d.jokers[0].1[0].to_string(), "7H");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeldDescription {
    pub kind: MeldKind,
    pub value: u32,
    /// Each joker's index in the meld's cards and the cards it stands for
    /// (one in a run; in a set any missing suit).
    pub jokers: Vec<(usize, Vec<Card>)>,
    /// A set of four: nothing can be added to it.
    pub closed: bool,
    /// A run with no joker.
    pub pure: bool,
}

impl MeldDescription {
    /// The description of a validated meld.
    #[must_use]
    pub fn of(m: &Meld) -> MeldDescription {
        MeldDescription {
            kind: m.kind,
            value: m.value,
            jokers: m.jokers.iter().map(|j| (j.index, j.cards())).collect(),
            closed: m.is_closed(),
            pure: m.is_pure_run(),
        }
    }
}

/// A meld on the table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableMeld {
    pub owner: usize,
    pub cards: Vec<CardId>,
    pub kind: MeldKind,
    pub closed: bool,
    /// Card id of each joker in the meld (in meld order) and the cards it
    /// stands for.
    pub jokers: Vec<(CardId, Vec<Card>)>,
    pub value: u32,
}

/// One seat's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeatState {
    pub name: String,
    pub hand: Vec<CardId>,
    pub opened: bool,
    /// The seat's turn number (from 1) in which it first put cards on the
    /// table this round; 0 while it has laid nothing.
    pub first_laid_turn: u32,
    /// Turns this seat has started this round, the current one included.
    pub turns: u32,
    pub resigned: bool,
    pub total: i64,
}

/// The state of a game: what the events imply, nothing more
/// ([`crate::game::apply_event`] is the only code that changes it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub seats: Vec<SeatState>,
    pub round: u32,
    /// [`NO_SEAT`] before the first deal (as are `first_player` and `turn`).
    pub dealer: usize,
    pub first_player: usize,
    pub turn: usize,
    pub phase: Phase,
    /// Top card last.
    pub stock: Vec<CardId>,
    /// Top card last.
    pub discard: Vec<CardId>,
    pub melds: Vec<TableMeld>,
    pub rebuilds: u32,
    /// The card taken from the discard pile this turn.
    pub taken: Option<CardId>,
    /// The discard was taken before opening: this turn must open with it.
    pub must_open: bool,
    /// A joker taken by a swap this turn, not yet laid in a new meld.
    pub pending_joker: Option<CardId>,
    pub opened_this_turn: bool,
    pub results: Vec<RoundResult>,
    pub winners: Vec<usize>,
    pub version: u64,
    // Knocking play (gin); all reset by each deal.
    /// The first upcard is being offered (before any draw of the round).
    pub first_upcard: bool,
    /// Passes on the first upcard this round.
    pub passes: u32,
    /// The last turn took the upcard and discarded it back.
    pub repeated: bool,
    /// The hand is a draw: the round ends with no winner.
    pub drawn: bool,
    /// The upcard was taken at the wall: this turn must knock.
    pub wall_take: bool,
    pub knocker: Option<usize>,
    /// The knocker's melds are the first `knock_melds` table melds.
    pub knock_melds: usize,
    pub big_gin: bool,
    pub defender_melded: bool,
    pub accepted: bool,
}

impl State {
    /// A game's state before its first deal.
    #[must_use]
    pub fn new(players: &[String]) -> State {
        State {
            seats: players
                .iter()
                .map(|p| SeatState {
                    name: p.clone(),
                    ..SeatState::default()
                })
                .collect(),
            round: 0,
            dealer: NO_SEAT,
            first_player: NO_SEAT,
            turn: NO_SEAT,
            phase: Phase::BetweenRounds,
            stock: Vec::new(),
            discard: Vec::new(),
            melds: Vec::new(),
            rebuilds: 0,
            taken: None,
            must_open: false,
            pending_joker: None,
            opened_this_turn: false,
            results: Vec::new(),
            winners: Vec::new(),
            version: 0,
            first_upcard: false,
            passes: 0,
            repeated: false,
            drawn: false,
            wall_take: false,
            knocker: None,
            knock_melds: 0,
            big_gin: false,
            defender_melded: false,
            accepted: false,
        }
    }

    /// Seats still in the match, in seat order.
    #[must_use]
    pub fn active(&self) -> Vec<usize> {
        (0..self.seats.len()).filter(|&i| !self.seats[i].resigned).collect()
    }

    /// The next seat after `seat` still in the match (`seat` itself when no
    /// other is).
    #[must_use]
    pub fn next_active(&self, seat: usize) -> usize {
        let n = self.seats.len();
        for k in 1..=n {
            let s = (seat + k) % n;
            if !self.seats[s].resigned {
                return s;
            }
        }
        seat
    }

    #[must_use]
    pub fn in_round(&self) -> bool {
        matches!(self.phase, Phase::Draw | Phase::Play | Phase::Layoff)
    }
}

/// What a game was created with, beyond its variant and players.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The game's secret seed, 32 little-endian bytes.
    pub seed: [u8; 32],
    /// Explicit deck orders for the first rounds (tests and puzzles).
    pub decks: Vec<Vec<CardId>>,
}

/// Which kind of refusal: a well-formed command the rules forbid now
/// (`IllegalMove`), or one that cannot be meant (`MalformedCommand`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefusalKind {
    Illegal,
    Malformed,
}

/// A refused command: nothing changed. `reason` is a reason of the
/// registry (`service/ramino/reasons.py`, [`crate::game::reasons`]);
/// `detail` the meld kernel's finer reason where there is one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Refusal {
    pub kind: RefusalKind,
    pub reason: &'static str,
    pub message: String,
    pub detail: Option<&'static str>,
}

impl Refusal {
    #[must_use]
    pub fn illegal(reason: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            kind: RefusalKind::Illegal,
            reason,
            message: message.into(),
            detail: None,
        }
    }

    #[must_use]
    pub fn illegal_detail(reason: &'static str, message: impl Into<String>, detail: &'static str) -> Refusal {
        Refusal {
            kind: RefusalKind::Illegal,
            reason,
            message: message.into(),
            detail: Some(detail),
        }
    }

    #[must_use]
    pub fn malformed(reason: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            kind: RefusalKind::Malformed,
            reason,
            message: message.into(),
            detail: None,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.reason)
    }
}

impl std::error::Error for Refusal {}

/// A record that does not replay (`RECORD_INCONSISTENT`), or a game that
/// cannot be set up (its own reason).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameError {
    pub reason: &'static str,
    pub message: String,
}

impl GameError {
    #[must_use]
    pub fn corrupt(message: impl Into<String>) -> GameError {
        GameError {
            reason: super::reasons::RECORD_INCONSISTENT,
            message: message.into(),
        }
    }

    #[must_use]
    pub fn setup(reason: &'static str, message: impl Into<String>) -> GameError {
        GameError {
            reason,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.reason)
    }
}

impl std::error::Error for GameError {}

/// What a careful player would do with a seat's hand (the Python engine's
/// `Hint`), cards by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The melds to lay: before the seat has opened, the best opening (none
    /// when it cannot open); afterwards the melds of the least deadwood that
    /// may be laid together (a swapped joker's meld first while one waits).
    /// None in gin, where melds are laid by knocking.
    pub melds: Vec<Vec<CardId>>,
    pub melds_value: u32,
    pub opening: bool,
    /// The least deadwood of the whole hand (cards, not ids).
    pub deadwood: Deadwood,
    /// Legal lay-offs now of cards outside `melds`, one per card: (card,
    /// meld, end).
    pub layoffs: Vec<(CardId, usize, End)>,
    /// The card to discard at the end of the turn.
    pub discard: CardId,
    /// Gin: the legal knock of least unmatched total: (discard, melds).
    pub knock: Option<(Option<CardId>, Vec<Vec<CardId>>)>,
    pub knock_unmatched: u32,
}
