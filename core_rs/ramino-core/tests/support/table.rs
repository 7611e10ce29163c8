//! A two-seat table built by hand for the kernel's tests (`#[path]`-included
//! by each test target that uses it).
#![allow(dead_code)] // each test target uses its own share of it

use ramino_core::game::{meld_info, CardId, Phase, Rules, State};
use ramino_core::{Card, Variant};

/// A two-seat table in a variant, its cards picked by name (each name takes
/// the first id of that card not yet on the table).
pub struct Table {
    pub rules: Rules,
    pub state: State,
    pub used: Vec<bool>,
}

impl Table {
    /// Seat 0 to play, in its second turn, in the draw phase; seat 1 has
    /// played one turn.
    pub fn new(variant: Variant) -> Table {
        let rules = Rules::new(variant);
        let mut state = State::new(&["ann".to_owned(), "bob".to_owned()]);
        state.round = 1;
        state.dealer = 1;
        state.first_player = 0;
        state.turn = 0;
        state.phase = Phase::Draw;
        state.seats[0].turns = 2;
        state.seats[1].turns = 1;
        let used = vec![false; rules.deck_size];
        Table { rules, state, used }
    }

    pub fn ids(&mut self, text: &str) -> Vec<CardId> {
        Card::parse_list(text)
            .expect("test cards")
            .into_iter()
            .map(|card| {
                let id = (0..self.rules.deck_size)
                    .find(|&i| !self.used[i] && self.rules.cards[i] == card)
                    .expect("a copy of the card is left");
                self.used[id] = true;
                CardId::try_from(id).expect("a card id")
            })
            .collect()
    }

    pub fn id(&mut self, text: &str) -> CardId {
        self.ids(text)[0]
    }

    /// Puts `ids` back in the box (a place is set anew).
    pub fn release(&mut self, ids: &[CardId]) {
        for &c in ids {
            self.used[usize::from(c)] = false;
        }
    }

    pub fn hand(&mut self, seat: usize, text: &str) -> Vec<CardId> {
        let old = std::mem::take(&mut self.state.seats[seat].hand);
        self.release(&old);
        let ids = self.ids(text);
        self.state.seats[seat].hand = ids.clone();
        ids
    }

    pub fn stock(&mut self, text: &str) -> Vec<CardId> {
        let old = std::mem::take(&mut self.state.stock);
        self.release(&old);
        let ids = self.ids(text);
        self.state.stock = ids.clone();
        ids
    }

    pub fn discard_pile(&mut self, text: &str) -> Vec<CardId> {
        let old = std::mem::take(&mut self.state.discard);
        self.release(&old);
        let ids = self.ids(text);
        self.state.discard = ids.clone();
        ids
    }

    /// A table meld of `owner`; its index.
    pub fn meld(&mut self, owner: usize, text: &str) -> usize {
        let ids = self.ids(text);
        self.state
            .melds
            .push(meld_info(owner, ids, &self.rules).expect("a meld"));
        self.state.melds.len() - 1
    }

    /// Seat 0 has drawn (the play phase), opened or not.
    pub fn playing(&mut self, opened: bool) {
        self.state.phase = Phase::Play;
        self.state.seats[0].opened = opened;
    }

    /// The rest of the deck is the stock.
    pub fn rest_to_stock(&mut self) {
        self.state.stock = (0..self.rules.deck_size)
            .filter(|&i| !self.used[i])
            .map(|i| CardId::try_from(i).expect("a card id"))
            .collect();
    }
}
