//! The legal moves, the hint and the discard policy of the game kernel, on
//! states built by hand in each variant. Every expected list is what the
//! Python engine (`ramino.engine.moves.legal_moves`, `ramino.engine.hint`)
//! answers for the same state, card ids included.

use ramino_core::game::policy::{best_discards, discard_scores, discardable, keep_one, knock_unmatched};
use ramino_core::game::{self, meld_info, CardId, Command, Phase, RawEnd, Rules, State};
use ramino_core::{Card, End, ParamValue, Variant};

/// Hands out the ids of a deck by card name, the first unused id of each
/// name first (pack one before pack two).
struct Ids<'a> {
    rules: &'a Rules,
    used: Vec<bool>,
}

impl Ids<'_> {
    fn take(&mut self, names: &str) -> Vec<CardId> {
        names
            .split_whitespace()
            .map(|name| {
                let card: Card = name.parse().expect("a card name");
                let id = (0..self.rules.deck_size)
                    .find(|&i| !self.used[i] && self.rules.cards[i] == card)
                    .expect("a card of the deck left");
                self.used[id] = true;
                CardId::try_from(id).expect("an id")
            })
            .collect()
    }
}

/// A round in progress: `hands` dealt in seat order, then the table melds
/// (owner, cards), the discard pile and the stock (top cards last). Seat 0
/// plays its second turn, in the play phase.
fn state(rules: &Rules, hands: &[&str], table: &[(usize, &str)], discard: &str, stock: &str) -> State {
    let mut ids = Ids {
        rules,
        used: vec![false; rules.deck_size],
    };
    let players: Vec<String> = (0..hands.len()).map(|i| format!("p{i}")).collect();
    let mut s = State::new(&players);
    for (seat, hand) in s.seats.iter_mut().zip(hands) {
        seat.hand = ids.take(hand);
        seat.turns = 2;
    }
    s.melds = table
        .iter()
        .map(|&(owner, cards)| meld_info(owner, ids.take(cards), rules).expect("a meld"))
        .collect();
    s.discard = ids.take(discard);
    s.stock = ids.take(stock);
    s.round = 1;
    s.dealer = 0;
    s.first_player = 0;
    s.turn = 0;
    s.phase = Phase::Play;
    s
}

fn rules(variant: Variant) -> Rules {
    Rules::new(variant)
}

fn big_gin() -> Rules {
    rules(
        Variant::gin()
            .with_override("big_gin", ParamValue::Bool(true))
            .expect("an override"),
    )
}

/// `AS#0`: a card by name and id.
fn card(rules: &Rules, id: CardId) -> String {
    format!("{}#{id}", rules.card(id))
}

fn meld(rules: &Rules, ids: &[CardId]) -> String {
    format!(
        "[{}]",
        ids.iter().map(|&c| card(rules, c)).collect::<Vec<_>>().join(" ")
    )
}

fn melds(rules: &Rules, melds: &[Vec<CardId>]) -> String {
    melds.iter().map(|m| meld(rules, m)).collect::<Vec<_>>().join(", ")
}

fn id(raw: i64) -> CardId {
    CardId::try_from(raw).expect("a card id")
}

fn raw_melds(raw: &[Vec<i64>]) -> Vec<Vec<CardId>> {
    raw.iter().map(|m| m.iter().map(|&c| id(c)).collect()).collect()
}

/// A command as the Python reference script prints it.
fn show(rules: &Rules, command: &Command) -> String {
    match command {
        Command::LayMelds { melds: Some(m) } => format!("LayMelds({})", melds(rules, &raw_melds(m))),
        Command::LayOff { card: c, meld, end } => {
            let end = match end {
                RawEnd::Start => "start",
                RawEnd::End => "end",
                RawEnd::Bad(_) => "bad",
            };
            format!("LayOff({}, {meld}, {end})", card(rules, id(*c)))
        }
        Command::SwapJoker { card: c, meld, joker } => format!("SwapJoker({}, {meld}, {joker})", card(rules, id(*c))),
        Command::Discard { card: c } => format!("Discard({})", card(rules, id(*c))),
        Command::Knock {
            discard,
            melds: Some(m),
        } => {
            let d = discard.map_or_else(|| "None".to_string(), |d| card(rules, id(d)));
            format!("Knock({d}, {})", melds(rules, &raw_melds(m)))
        }
        other => other.type_name().to_string(),
    }
}

fn moves(s: &State, rules: &Rules, seat: usize) -> Vec<String> {
    game::legal_moves(s, rules, seat)
        .iter()
        .map(|m| show(rules, m))
        .collect()
}

fn hint(s: &State, rules: &Rules, seat: usize) -> game::Hint {
    game::hint(s, rules, seat, None).expect("a hand to hint on")
}

fn cards(text: &str) -> Vec<Card> {
    Card::parse_list(text).expect("card names")
}

// --- the draw phase ----------------------------------------------------------

#[test]
fn the_discard_is_offered_before_opening_only_when_it_opens() {
    let r = rules(Variant::ramino51());
    let hand = "7S 8S 9S TH TD 2C 3C 5D 6H JC QC AD 4H";
    let mut s = state(&r, &[hand, "2H 3H"], &[], "TC", "KD 5C");
    s.phase = Phase::Draw;
    assert_eq!(moves(&s, &r, 0), ["DrawFromStock", "TakeDiscard"]);

    let mut s = state(&r, &[hand, "2H 3H"], &[], "4C", "KD 5C");
    s.phase = Phase::Draw;
    assert_eq!(moves(&s, &r, 0), ["DrawFromStock"]);
}

#[test]
fn an_empty_stock_is_turned_over_where_the_variant_turns_it_over() {
    let v = Variant::rummy()
        .with_override("stock_exhausted", ParamValue::Str("turn_over".into()))
        .expect("an override");
    let r = rules(v);
    let mut s = state(&r, &["4H 8D 3C QS 2C AC", "2H 3H"], &[], "KD 5C", "");
    s.phase = Phase::Draw;
    assert_eq!(moves(&s, &r, 0), ["TakeDiscard", "TurnOverDiscardPile"]);
}

#[test]
fn a_seat_whose_turn_it_is_not_has_no_moves_and_a_hint_without_the_turn_s_cards() {
    let r = rules(Variant::ramino51());
    let mut s = state(&r, &["KD 4S 5S 6S 2H 3C KD", "2H 3H 4H 9C"], &[(1, "TD JD QD")], "", "");
    s.seats[0].opened = true;
    s.taken = Some(s.seats[0].hand[6]);
    assert!(moves(&s, &r, 1).is_empty());
    let h = hint(&s, &r, 1);
    assert!(h.melds.is_empty() && !h.opening && h.layoffs.is_empty());
    assert_eq!(h.deadwood.value, 9);
    assert_eq!(card(&r, h.discard), "9C#47");
}

// --- the play phase before opening -----------------------------------------

#[test]
fn a_discard_taken_before_opening_offers_only_the_opening_that_uses_it() {
    let r = rules(Variant::ramino51());
    let mut s = state(&r, &["7S 8S 9S TH TD TC KD KH KS 2C 5D 6H JC KD", "2H 3H"], &[], "", "");
    s.taken = Some(s.seats[0].hand[13]);
    s.must_open = true;
    // The taken KD#90 is preferred over its twin KD#38; no discard before
    // the opening.
    assert_eq!(
        moves(&s, &r, 0),
        ["LayMelds([7S#6 8S#7 9S#8], [KS#12 KH#25 KD#90], [TH#22 TD#35 TC#48])"]
    );
    let h = hint(&s, &r, 0);
    assert_eq!(
        melds(&r, &h.melds),
        "[7S#6 8S#7 9S#8], [KS#12 KH#25 KD#90], [TH#22 TD#35 TC#48]"
    );
    assert_eq!((h.melds_value, h.opening), (84, true));
    assert_eq!(card(&r, h.discard), "6H#18");
}

#[test]
fn a_discard_taken_before_opening_keeps_back_a_card_that_may_be_discarded_not_its_twin() {
    // Found by the property tests (a 4-seat ramino51 game): the best opening
    // with the taken KC melds every card but KC's twin, which may not be
    // discarded that turn; the seat was left with no legal move.
    let r = rules(Variant::ramino51());
    let hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS TC QC KC JK";
    let mut s = state(&r, &[hand, "2H 3H"], &[], "KC", "KD 5C");
    s.phase = Phase::Draw;
    assert_eq!(moves(&s, &r, 0), ["DrawFromStock", "TakeDiscard"]);

    let mut s = state(&r, &[&format!("{hand} KC"), "2H 3H"], &[], "", "KD 5C");
    s.taken = Some(s.seats[0].hand[14]);
    s.must_open = true;
    let listed = moves(&s, &r, 0);
    assert_eq!(
        listed,
        ["LayMelds([AS#0 2S#1 3S#2], [5S#4 6S#5 7S#6 8S#7 9S#8 TS#9], [TC#48 JK#104 QC#50 KC#103])"]
    );
    let h = hint(&s, &r, 0);
    assert_eq!(
        melds(&r, &h.melds),
        "[AS#0 2S#1 3S#2], [5S#4 6S#5 7S#6 8S#7 9S#8 TS#9], [TC#48 JK#104 QC#50 KC#103]"
    );
    assert_eq!(card(&r, h.discard), "4S#3");

    // When every opening with it melds every card but its twin, taking it
    // is not offered (nor taken: `decide` refuses it alike).
    let mut s = state(&r, &["5S 6S 7S TC QC KC JK", "2H 3H"], &[], "KC", "KD 5C");
    s.phase = Phase::Draw;
    assert_eq!(moves(&s, &r, 0), ["DrawFromStock"]);
}

#[test]
fn the_best_opening_is_offered_with_a_pure_run_where_one_is_required() {
    let r = rules(Variant::rami51());
    let s = state(&r, &["9H 9D 9C TH TS TC 4D 5D 6D KS 2C", "2H 3H"], &[], "", "");
    let expected = [
        "LayMelds([TS#9 TH#22 TC#48], [9H#21 9D#34 9C#47], [4D#29 5D#30 6D#31])",
        "Discard(9H#21)",
        "Discard(9D#34)",
        "Discard(9C#47)",
        "Discard(TH#22)",
        "Discard(TS#9)",
        "Discard(TC#48)",
        "Discard(4D#29)",
        "Discard(5D#30)",
        "Discard(6D#31)",
        "Discard(KS#12)",
        "Discard(2C#40)",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    assert_eq!((h.melds_value, h.opening), (72, true));
    assert_eq!(card(&r, h.discard), "KS#12");
}

// --- the play phase after opening --------------------------------------------

#[test]
fn an_opened_seat_is_offered_the_least_deadwood_melds_together_and_one_by_one() {
    let r = rules(Variant::ramino51());
    let mut s = state(
        &r,
        &["AS 2S 3S 9H 9D 9C KD 4H 7C 5H JK", "2H 3H"],
        &[(0, "5D 6D 7D"), (1, "QC KC JK")],
        "",
        "",
    );
    s.seats[0].opened = true;
    let expected = [
        "LayMelds([AS#0 2S#1 3S#2], [JK#104 4H#16 5H#17], [9H#21 9D#34 9C#47])",
        "LayMelds([AS#0 2S#1 3S#2])",
        "LayMelds([JK#104 4H#16 5H#17])",
        "LayMelds([9H#21 9D#34 9C#47])",
        "LayOff(JK#104, 0, start)",
        "LayOff(JK#104, 0, end)",
        "Discard(AS#0)",
        "Discard(2S#1)",
        "Discard(3S#2)",
        "Discard(9H#21)",
        "Discard(9D#34)",
        "Discard(9C#47)",
        "Discard(KD#38)",
        "Discard(4H#16)",
        "Discard(7C#45)",
        "Discard(5H#17)",
        "Discard(JK#104)",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    assert_eq!(
        melds(&r, &h.melds),
        "[AS#0 2S#1 3S#2], [JK#104 4H#16 5H#17], [9H#21 9D#34 9C#47]"
    );
    assert_eq!((h.melds_value, h.opening), (54, false));
    // The joker's lay-offs are of a card in the hint's melds.
    assert!(h.layoffs.is_empty());
    assert_eq!(card(&r, h.discard), "KD#38");
}

#[test]
fn lay_offs_and_joker_swaps_are_found_on_every_meld() {
    let r = rules(Variant::ramino51());
    let table = [(1, "QC KC JK"), (0, "8D 8C JK"), (1, "5D 6D 7D")];
    let mut s = state(&r, &["AC 4D 8S 8H KH", "2H 3H"], &table, "", "");
    s.seats[0].opened = true;
    let expected = [
        "LayOff(8S#7, 1, end)",
        "LayOff(8H#20, 1, end)",
        "LayOff(4D#29, 2, start)",
        "SwapJoker(AC#39, 0, 104)",
        "Discard(AC#39)",
        "Discard(4D#29)",
        "Discard(8S#7)",
        "Discard(8H#20)",
        "Discard(KH#25)",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    assert!(h.melds.is_empty());
    let layoffs: Vec<_> = h.layoffs.iter().map(|&(c, m, e)| (card(&r, c), m, e)).collect();
    assert_eq!(
        layoffs,
        [
            ("8S#7".to_string(), 1, End::End),
            ("8H#20".to_string(), 1, End::End),
            ("4D#29".to_string(), 2, End::Start)
        ]
    );
    assert_eq!(card(&r, h.discard), "AC#39");
}

#[test]
fn a_swapped_joker_waiting_for_its_meld_is_offered_that_meld_first() {
    let r = rules(Variant::ramino51());
    let table = [(0, "5D 6D 7D"), (1, "QC KC AC")];
    let mut s = state(&r, &["JK 4C 5C 9H 9D 2S 7S", "2H 3H"], &table, "", "");
    s.seats[0].opened = true;
    s.pending_joker = Some(s.seats[0].hand[0]);
    // The joker must go to a new meld before anything else.
    assert_eq!(moves(&s, &r, 0), ["LayMelds([9H#21 9D#34 JK#104])"]);
    let h = hint(&s, &r, 0);
    assert_eq!(melds(&r, &h.melds), "[9H#21 9D#34 JK#104]");
    assert_eq!(h.melds_value, 27);
    // Never the waiting joker.
    assert_eq!(card(&r, h.discard), "7S#6");
}

#[test]
fn basic_rummy_lays_off_from_the_first_turn() {
    let r = rules(Variant::rummy());
    let mut s = state(
        &r,
        &["4H 8D 3C QS 2C AC", "2H 3H"],
        &[(1, "5H 6H 7H"), (1, "8H 8S 8C")],
        "",
        "",
    );
    s.seats[0].turns = 1;
    let expected = [
        "LayMelds([AC#39 2C#40 3C#41])",
        "LayOff(4H#16, 0, start)",
        "LayOff(8D#33, 1, end)",
        "Discard(4H#16)",
        "Discard(8D#33)",
        "Discard(3C#41)",
        "Discard(QS#11)",
        "Discard(2C#40)",
        "Discard(AC#39)",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    assert_eq!(melds(&r, &h.melds), "[AC#39 2C#40 3C#41]");
    assert_eq!((h.melds_value, h.opening), (6, false));
    assert_eq!(h.layoffs, [(16, 0, End::Start), (33, 1, End::End)]);
    assert_eq!(card(&r, h.discard), "QS#11");
}

#[test]
fn the_taken_discard_and_its_twin_are_never_offered_as_discards() {
    let r = rules(Variant::ramino51());
    let mut s = state(&r, &["KD 4S 5S 6S 2H 3C KD", "2H 3H"], &[(1, "TD JD QD")], "", "");
    s.seats[0].opened = true;
    s.taken = Some(s.seats[0].hand[6]);
    let expected = [
        "LayMelds([4S#3 5S#4 6S#5])",
        // A lay-off takes the first KD of the hand, the taken one or not.
        "LayOff(KD#38, 0, end)",
        "Discard(4S#3)",
        "Discard(5S#4)",
        "Discard(6S#5)",
        "Discard(2H#14)",
        "Discard(3C#41)",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    // KD would be the policy's best discard; it may not go.
    assert_eq!(card(&r, h.discard), "3C#41");
    assert_eq!(h.layoffs, [(38, 0, End::End)]);
}

#[test]
fn where_every_card_melds_the_hint_keeps_one_back_to_discard() {
    let r = rules(Variant::ramino51());
    let mut s = state(&r, &["AS 2S 3S 4S 9H 9D 9C", "2H 3H"], &[(1, "5D 6D 7D")], "", "");
    s.seats[0].opened = true;
    // Laying every meld together would leave no discard.
    let expected = [
        "LayMelds([AS#0 2S#1 3S#2 4S#3])",
        "LayMelds([9H#21 9D#34 9C#47])",
        "Discard(AS#0)",
        "Discard(2S#1)",
        "Discard(3S#2)",
        "Discard(4S#3)",
        "Discard(9H#21)",
        "Discard(9D#34)",
        "Discard(9C#47)",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    assert_eq!(melds(&r, &h.melds), "[2S#1 3S#2 4S#3], [9H#21 9D#34 9C#47]");
    assert_eq!(h.melds_value, 36);
    assert_eq!(card(&r, h.discard), "AS#0");
}

// --- knocking play (gin) -----------------------------------------------------

#[test]
fn gin_s_first_upcard_is_taken_or_passed_and_later_ones_taken_or_drawn_past() {
    let r = rules(Variant::gin());
    let hand = "AS 2S 3S 4H 5H 6H 9C 9D 9S KC";
    let mut s = state(&r, &[hand, "2H 3H"], &[], "TC", "KD 5C QD QH");
    s.phase = Phase::Draw;
    s.first_upcard = true;
    assert_eq!(moves(&s, &r, 0), ["TakeDiscard", "PassUpcard"]);
    s.first_upcard = false;
    assert_eq!(moves(&s, &r, 0), ["TakeDiscard", "DrawFromStock"]);
}

#[test]
fn gin_offers_every_discard_then_the_knocks_best_first() {
    let r = big_gin();
    let mut s = state(
        &r,
        &["AS 2S 3S 4H 5H 6H 9C 9D 9S KC 2D", "2H 3H"],
        &[],
        "",
        "KD 5C QD QH",
    );
    s.taken = Some(s.seats[0].hand[10]);
    let expected = [
        "Discard(AS#0)",
        "Discard(2S#1)",
        "Discard(3S#2)",
        "Discard(4H#16)",
        "Discard(5H#17)",
        "Discard(6H#18)",
        "Discard(9C#47)",
        "Discard(9D#34)",
        "Discard(9S#8)",
        "Discard(KC#51)",
        "Discard(2D#27)",
        "Knock(KC#51, [AS#0 2S#1 3S#2], [9S#8 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(2D#27, [AS#0 2S#1 3S#2], [9S#8 9D#34 9C#47], [4H#16 5H#17 6H#18])",
    ];
    assert_eq!(moves(&s, &r, 0), expected);
    let h = hint(&s, &r, 0);
    assert!(h.melds.is_empty() && !h.opening);
    let (discard, knock_melds) = h.knock.expect("a knock");
    assert_eq!(discard, Some(51));
    assert_eq!(
        melds(&r, &knock_melds),
        "[AS#0 2S#1 3S#2], [9S#8 9D#34 9C#47], [4H#16 5H#17 6H#18]"
    );
    assert_eq!(h.knock_unmatched, 2);
    // The taken 2D is kept while another card may go.
    assert_eq!(card(&r, h.discard), "KC#51");
}

#[test]
fn big_gin_comes_before_every_knock_with_a_discard() {
    let r = big_gin();
    let s = state(
        &r,
        &["AS 2S 3S 4H 5H 6H 9C 9D 9S 9H 4S", "2H 3H"],
        &[],
        "",
        "KD 5C QD QH",
    );
    let knocks: Vec<String> = game::knocks(&s, &r, 0).iter().map(|k| show(&r, k)).collect();
    let expected = [
        "Knock(None, [AS#0 2S#1 3S#2 4S#3], [9S#8 9H#21 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(AS#0, [2S#1 3S#2 4S#3], [9S#8 9H#21 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(9C#47, [AS#0 2S#1 3S#2 4S#3], [9S#8 9H#21 9D#34], [4H#16 5H#17 6H#18])",
        "Knock(9D#34, [AS#0 2S#1 3S#2 4S#3], [9S#8 9H#21 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(9S#8, [AS#0 2S#1 3S#2 4S#3], [4H#16 5H#17 6H#18], [9H#21 9D#34 9C#47])",
        "Knock(9H#21, [AS#0 2S#1 3S#2 4S#3], [9S#8 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(4S#3, [AS#0 2S#1 3S#2], [9S#8 9H#21 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(3S#2, [9S#8 9H#21 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(2S#1, [9S#8 9H#21 9D#34 9C#47], [4H#16 5H#17 6H#18])",
        "Knock(6H#18, [AS#0 2S#1 3S#2 4S#3], [9S#8 9H#21 9D#34 9C#47])",
        "Knock(5H#17, [AS#0 2S#1 3S#2 4S#3], [9S#8 9H#21 9D#34 9C#47])",
    ];
    assert_eq!(knocks, expected);
    let h = hint(&s, &r, 0);
    let (discard, _) = h.knock.expect("big gin");
    assert_eq!((discard, h.knock_unmatched), (None, 0));
    assert_eq!(card(&r, h.discard), "9C#47");
}

#[test]
fn gin_s_defender_lays_off_melds_and_accepts_the_layout() {
    let r = rules(Variant::gin());
    let mut s = state(
        &r,
        &["2H", "7H 7D 7C 7S 4S 5S 6S KD QC 3D"],
        &[(0, "AS 2S 3S"), (0, "4H 5H 6H")],
        "",
        "9D 5C QD QH",
    );
    s.phase = Phase::Layoff;
    s.turn = 1;
    s.knocker = Some(0);
    s.knock_melds = 2;
    let expected = [
        "LayOff(4S#3, 0, end)",
        "LayOff(7H#19, 1, end)",
        "LayMelds([7S#6 7H#19 7D#32])",
        "LayMelds([7S#6 7H#19 7C#45])",
        "LayMelds([7S#6 7D#32 7C#45])",
        "LayMelds([7H#19 7D#32 7C#45])",
        "LayMelds([7S#6 7H#19 7D#32 7C#45])",
        "LayMelds([4S#3 5S#4 6S#5])",
        "LayMelds([4S#3 5S#4 6S#5 7S#6])",
        "LayMelds([5S#4 6S#5 7S#6])",
        "AcceptLayout",
    ];
    assert_eq!(moves(&s, &r, 1), expected);
    assert!(moves(&s, &r, 0).is_empty());
    let h = hint(&s, &r, 1);
    assert_eq!(h.layoffs, [(3, 0, End::End), (19, 1, End::End)]);
    assert!(h.knock.is_none());
    assert_eq!(card(&r, h.discard), "KD#38");
}

#[test]
fn a_hand_s_melds_come_sets_by_rank_then_runs_by_suit() {
    let v = Variant::gin();
    let found: Vec<String> = game::hand_melds(&cards("JC TC 9C 2C 2H 2S KD KS KH 7D 6D 5D 8D 9C"), &v)
        .iter()
        .map(|m| m.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))
        .collect();
    let expected = [
        "2S 2H 2C",
        "KS KH KD",
        "5D 6D 7D",
        "5D 6D 7D 8D",
        "6D 7D 8D",
        "9C TC JC",
    ];
    assert_eq!(found, expected);
    let high = Variant::rummy()
        .with_override("ace_high", ParamValue::Bool(true))
        .expect("an override");
    let found = game::hand_melds(&cards("AS KS QS 2S 3S"), &high);
    assert_eq!(found, [cards("AS 2S 3S"), cards("QS KS AS")]);
}

// --- the policies ------------------------------------------------------------

#[test]
fn discards_go_deadwood_first_high_penalties_first_lone_cards_first_and_a_joker_last() {
    let r = rules(Variant::ramino51());
    let s = state(&r, &["AS 2S 3S 4S 5S 9H 9D 9C KD KD JK 4H 7C 8C", "2H 3H"], &[], "", "");
    let hand = &s.seats[0].hand;
    let scores = discard_scores(&r, hand, hand, None);
    let listed: Vec<(String, i64)> = hand.iter().map(|&c| (card(&r, c), scores[&c])).collect();
    let expected = [
        ("AS#0", -480),
        ("2S#1", -496),
        ("3S#2", -494),
        ("4S#3", -492),
        ("5S#4", -490),
        ("9H#21", -482),
        ("9D#34", -482),
        ("9C#47", -482),
        ("KD#38", 20),
        ("KD#90", 20),
        ("JK#104", -1000),
        ("4H#16", 0),
        ("7C#45", -486),
        ("8C#46", -484),
    ];
    let expected: Vec<(String, i64)> = expected.iter().map(|&(c, v)| (c.to_string(), v)).collect();
    assert_eq!(listed, expected);
    // Both twins rank best: the only loose cards of high penalty.
    assert_eq!(best_discards(&r, hand, hand, None), [38, 90]);
    assert!(best_discards(&r, hand, &[], None).is_empty());
}

#[test]
fn a_card_with_partners_is_kept_before_a_lone_card_of_the_same_penalty() {
    let r = rules(Variant::ramino51());
    let s = state(&r, &["KD KS QH JC 9C 4S", "2H 3H"], &[], "", "");
    let hand = &s.seats[0].hand;
    let scores = discard_scores(&r, hand, hand, None);
    let listed: Vec<i64> = hand.iter().map(|c| scores[c]).collect();
    // KD and KS partner each other (a rank in two suits), JC and 9C (a suit
    // within two ranks); QH, as high, is alone.
    assert_eq!(listed, [12, 12, 20, 12, 10, 8]);
    assert_eq!(best_discards(&r, hand, hand, None), [hand[2]]);
}

#[test]
fn gin_keeps_the_taken_card_while_another_may_go_and_other_variants_never_discard_it() {
    let gin = rules(Variant::gin());
    assert_eq!(discardable(&gin, &[0, 1, 2], Some(1), None), [0, 2]);
    assert_eq!(discardable(&gin, &[1], Some(1), None), [1]);
    let r = rules(Variant::ramino51());
    // KD#38 and its twin KD#90; the joker #104 waits for its meld.
    assert_eq!(discardable(&r, &[38, 90, 3, 104], Some(90), Some(104)), [3]);
}

#[test]
fn keep_one_shortens_a_long_meld_else_drops_the_least_valued_meld() {
    let v = Variant::ramino51();
    let runs = [cards("AS 2S 3S 4S"), cards("9H 9D 9C")];
    assert_eq!(keep_one(&runs, &v), [cards("2S 3S 4S"), cards("9H 9D 9C")]);
    let set_of_four = [cards("9H 9D 9C 9S")];
    assert_eq!(keep_one(&set_of_four, &v), [cards("9D 9C 9S")]);
    let threes = [cards("KH KD KC"), cards("2S 3S 4S"), cards("2H 2D 2C")];
    assert_eq!(keep_one(&threes, &v), [cards("KH KD KC"), cards("2S 3S 4S")]);
    assert!(keep_one(&[cards("2S 3S 4S")], &v).is_empty());
}

#[test]
fn a_knock_shows_the_cards_outside_its_melds_and_its_discard() {
    let r = rules(Variant::gin());
    let s = state(&r, &["AS 2S 3S 4H 5H 6H 9C 9D 9S KC 2D", "2H 3H"], &[], "", "");
    let hand = &s.seats[0].hand;
    let m = vec![hand[..3].to_vec(), hand[3..6].to_vec(), hand[6..9].to_vec()];
    assert_eq!(knock_unmatched(&r, hand, Some(hand[9]), &m), 2);
    assert_eq!(knock_unmatched(&r, hand, None, &m), 12);
}
