//! The greedy policy given a list of legal moves (issue 49, item 6): a
//! caller playing under narrower rules (OpenSpiel's gin extends a knocker's
//! run only next to the run as it was laid) lists fewer lay-offs than the
//! kernel's rules take, and the policy chooses among those listed.

use ramino_core::game::greedy;
use ramino_core::game::{decide, legal_moves, Command, Phase};
use ramino_core::{End, Variant};

#[path = "support/table.rs"]
mod table;
use table::Table;

impl Table {
    /// The greedy command of `seat`, given `legal` (ties: the first best).
    fn greedy(&self, seat: usize, legal: Option<&[Command]>) -> Option<Command> {
        greedy::choose_among(&self.state, &self.rules, seat, legal, &mut |_, best| best[0])
    }
}

/// Gin: seat 0 knocked with AS 2S 3S and 4H 5H 6H; seat 1, the defender,
/// has laid 7H off onto the hearts and holds 8H, a set of nines and two
/// loose cards. The kernel's rules let 8H follow 7H; OpenSpiel's do not.
fn chain_table() -> Table {
    let mut t = Table::new(Variant::gin());
    t.state.seats[0].turns = 3;
    t.state.seats[1].turns = 3;
    t.meld(0, "AS 2S 3S");
    t.meld(0, "4H 5H 6H 7H");
    t.hand(0, "QD");
    t.hand(1, "8H 9C 9D 9S KC QC");
    t.rest_to_stock();
    t.state.first_upcard = false;
    t.state.phase = Phase::Layoff;
    t.state.turn = 1;
    t.state.knocker = Some(0);
    t.state.knock_melds = 2;
    t
}

#[test]
fn greedy_lays_off_only_among_the_legal_moves_given() {
    let t = chain_table();
    let eight = t.state.seats[1].hand[0];
    let chained = Command::lay_off(eight, 1, End::End);
    let all = legal_moves(&t.state, &t.rules, 1);
    assert!(all.contains(&chained), "the kernel's rules take the lay-off");
    // Unrestricted, the policy lays 8H off, its only lay-off.
    assert_eq!(t.greedy(1, None), Some(chained.clone()));
    assert_eq!(t.greedy(1, Some(&all)), Some(chained.clone()));

    // OpenSpiel's list: the same moves but that lay-off.
    let narrowed: Vec<Command> = all.iter().filter(|&m| *m != chained).cloned().collect();
    let chosen = t.greedy(1, Some(&narrowed)).expect("a command");
    assert!(narrowed.contains(&chosen), "{chosen:?} is not among the moves given");
    // With no lay-off left, the defender lays its set of nines.
    assert!(matches!(chosen, Command::LayMelds { .. }), "{chosen:?}");
    assert!(decide(&t.state, &t.rules, 1, &chosen).is_ok());
}

#[test]
fn greedy_lays_off_the_copy_of_a_card_the_legal_moves_name() {
    // Ramino51 holds two of each card: a list may name either copy.
    let mut t = Table::new(Variant::ramino51());
    t.state.seats[0].turns = 3;
    t.state.seats[1].turns = 3;
    t.meld(0, "4H 5H 6H");
    let hand = t.hand(0, "7H 9C KD QS");
    let twin = t.ids("7H")[0];
    t.state.seats[0].hand.push(twin);
    t.rest_to_stock();
    t.state.phase = Phase::Play;
    t.state.turn = 0;
    t.state.seats[0].opened = true;
    let first = Command::lay_off(hand[0], 0, End::End);
    let second = Command::lay_off(twin, 0, End::End);
    assert!(decide(&t.state, &t.rules, 0, &second).is_ok());
    assert_eq!(t.greedy(0, None), Some(first.clone()));
    let listed = [second.clone(), Command::discard(hand[3])];
    assert_eq!(t.greedy(0, Some(&listed)), Some(second));
    // Neither copy listed: no lay-off, the listed discard.
    let listed = [Command::discard(hand[3])];
    let chosen = t.greedy(0, Some(&listed)).expect("a command");
    assert!(!matches!(chosen, Command::LayOff { .. }), "{chosen:?}");
}
