package ramino_test

import (
	"fmt"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

func hand(t *testing.T, codes ...string) []*raminov1.Card {
	t.Helper()
	out := make([]*raminov1.Card, len(codes))
	for i, c := range codes {
		card, err := ramino.ParseCard(c)
		if err != nil {
			t.Fatal(err)
		}
		id := int32(i)
		card.Id = &id
		out[i] = card
	}
	return out
}

func TestParseCardReadsNotationAndRefusesTheRest(t *testing.T) {
	for code, want := range map[string]struct {
		rank  int32
		suit  raminov1.Suit
		joker bool
	}{
		"AS": {1, raminov1.Suit_SUIT_SPADES, false}, "TH": {10, raminov1.Suit_SUIT_HEARTS, false},
		"10h": {10, raminov1.Suit_SUIT_HEARTS, false}, "KD": {13, raminov1.Suit_SUIT_DIAMONDS, false},
		"2C": {2, raminov1.Suit_SUIT_CLUBS, false}, "JK": {0, raminov1.Suit_SUIT_UNSPECIFIED, true},
	} {
		c, err := ramino.ParseCard(code)
		if err != nil || c.GetRank() != want.rank || c.GetSuit() != want.suit || c.GetJoker() != want.joker || c.Id != nil {
			t.Errorf("ParseCard(%q) = %v, %v", code, c, err)
		}
	}
	for _, bad := range []string{"", "1S", "AX", "ZZ", "A", "ASS", "a very long and wrong card"} {
		if _, err := ramino.ParseCard(bad); err == nil {
			t.Errorf("ParseCard(%q) accepted", bad)
		}
	}
}

func TestDeckCardNamesTheCardOfAnIDOrRefusesAnIDOutsideTheDeck(t *testing.T) {
	deck := []string{"AS", "JK", "TC"}
	c, err := ramino.DeckCard(deck, 2)
	if err != nil || c.GetId() != 2 || c.GetCode() != "TC" || ramino.Symbol(c) != "10♣" {
		t.Fatalf("DeckCard(2) = %v, %v", c, err)
	}
	for _, id := range []int32{-1, 3} {
		if _, err := ramino.DeckCard(deck, id); err == nil {
			t.Errorf("DeckCard(%d) accepted", id)
		}
	}
}

func TestSortCardsBySuitThenRankWithJokersLast(t *testing.T) {
	cards := hand(t, "JK", "KH", "2S", "AH", "TC", "AS", "AH")
	ramino.SortCards(cards)
	if got := ramino.Symbols(cards); got != "A♠ 2♠ A♥ A♥ K♥ 10♣ 🃏" {
		t.Errorf("SortCards: %s", got)
	}
	if ids := ramino.CardIDs(cards); ids[2] != 3 || ids[3] != 6 {
		t.Errorf("equal cards are not in id order: %v", ids)
	}
	ramino.SortByRank(cards)
	if got := ramino.Symbols(cards); got != "A♠ A♥ A♥ 2♠ 10♣ K♥ 🃏" {
		t.Errorf("SortByRank: %s", got)
	}
}

func TestGroupBySuitPutsJokersApart(t *testing.T) {
	groups := ramino.GroupBySuit(hand(t, "KH", "JK", "2H", "3C"))
	if ramino.Symbols(groups[raminov1.Suit_SUIT_HEARTS]) != "2♥ K♥" || len(groups[raminov1.Suit_SUIT_CLUBS]) != 1 ||
		len(groups[raminov1.Suit_SUIT_UNSPECIFIED]) != 1 || len(groups[raminov1.Suit_SUIT_SPADES]) != 0 {
		t.Errorf("GroupBySuit: %v", groups)
	}
}

func ExampleSortCards() {
	var cards []*raminov1.Card
	for _, code := range []string{"QH", "JK", "3S", "TH", "AS"} {
		card, _ := ramino.ParseCard(code)
		cards = append(cards, card)
	}
	ramino.SortCards(cards)
	fmt.Println(ramino.Symbols(cards))
	// Output: A♠ 3♠ 10♥ Q♥ 🃏
}
