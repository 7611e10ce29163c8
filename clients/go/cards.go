package ramino

import (
	"fmt"
	"slices"
	"strings"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

// Cards are in notation: rank then suit, "AS", "TH" (ten of hearts), "QC";
// "JK" is a joker. Inside a game a card's id names the physical card;
// GameView.Deck maps every id to its notation.

var suitOfLetter = map[byte]raminov1.Suit{
	'S': raminov1.Suit_SUIT_SPADES, 'H': raminov1.Suit_SUIT_HEARTS,
	'D': raminov1.Suit_SUIT_DIAMONDS, 'C': raminov1.Suit_SUIT_CLUBS,
}

const rankLetters = "A23456789TJQK"

// ParseCard reads a card in notation ("AS", "TH", "JK"); the card has no id.
func ParseCard(code string) (*raminov1.Card, error) {
	c := strings.ToUpper(strings.TrimSpace(code))
	if c == "JK" {
		return &raminov1.Card{Code: c, Joker: true}, nil
	}
	if len(c) == 3 && c[:2] == "10" {
		c = "T" + c[2:]
	}
	if len(c) != 2 {
		return nil, fmt.Errorf("ramino: not a card: %q", prefix(code))
	}
	rank := strings.IndexByte(rankLetters, c[0])
	suit, ok := suitOfLetter[c[1]]
	if rank < 0 || !ok {
		return nil, fmt.Errorf("ramino: not a card: %q", prefix(code))
	}
	return &raminov1.Card{Code: c, Rank: int32(rank + 1), Suit: suit}, nil
}

func prefix(s string) string {
	if len(s) > 8 {
		return s[:8] + "..."
	}
	return s
}

// DeckCard is the card of id in a game whose deck (GameView.Deck) is given,
// with its id set.
func DeckCard(deck []string, id int32) (*raminov1.Card, error) {
	if id < 0 || int(id) >= len(deck) {
		return nil, fmt.Errorf("ramino: card id %d is not in a deck of %d", id, len(deck))
	}
	c, err := ParseCard(deck[id])
	if err != nil {
		return nil, err
	}
	c.Id = &id
	return c, nil
}

var suitSymbols = map[raminov1.Suit]string{
	raminov1.Suit_SUIT_SPADES: "♠", raminov1.Suit_SUIT_HEARTS: "♥",
	raminov1.Suit_SUIT_DIAMONDS: "♦", raminov1.Suit_SUIT_CLUBS: "♣",
}

// Symbol is the card for people: "A♠", "10♥", "Q♣", "🃏" for a joker.
func Symbol(c *raminov1.Card) string {
	if c.GetJoker() {
		return "🃏"
	}
	r := c.GetRank()
	var rank string
	switch {
	case r == 10:
		rank = "10"
	case r >= 1 && r <= 13:
		rank = string(rankLetters[r-1])
	default:
		rank = "?"
	}
	return rank + suitSymbols[c.GetSuit()]
}

// Symbols is the cards for people, separated by spaces.
func Symbols(cards []*raminov1.Card) string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = Symbol(c)
	}
	return strings.Join(out, " ")
}

// SortCards sorts cards in place by suit (spades, hearts, diamonds, clubs),
// then rank (ace low), jokers last; equal cards by id.
func SortCards(cards []*raminov1.Card) {
	slices.SortStableFunc(cards, func(a, b *raminov1.Card) int {
		if a.GetJoker() != b.GetJoker() {
			if a.GetJoker() {
				return 1
			}
			return -1
		}
		if d := int(a.GetSuit()) - int(b.GetSuit()); d != 0 {
			return d
		}
		if d := int(a.GetRank()) - int(b.GetRank()); d != 0 {
			return d
		}
		return int(a.GetId()) - int(b.GetId())
	})
}

// SortByRank sorts cards in place by rank (ace low), then suit, jokers last.
func SortByRank(cards []*raminov1.Card) {
	slices.SortStableFunc(cards, func(a, b *raminov1.Card) int {
		if a.GetJoker() != b.GetJoker() {
			if a.GetJoker() {
				return 1
			}
			return -1
		}
		if d := int(a.GetRank()) - int(b.GetRank()); d != 0 {
			return d
		}
		if d := int(a.GetSuit()) - int(b.GetSuit()); d != 0 {
			return d
		}
		return int(a.GetId()) - int(b.GetId())
	})
}

// GroupBySuit is the cards of each suit, each group sorted by rank; jokers
// are under SUIT_UNSPECIFIED.
func GroupBySuit(cards []*raminov1.Card) map[raminov1.Suit][]*raminov1.Card {
	out := map[raminov1.Suit][]*raminov1.Card{}
	for _, c := range cards {
		s := c.GetSuit()
		if c.GetJoker() {
			s = raminov1.Suit_SUIT_UNSPECIFIED
		}
		out[s] = append(out[s], c)
	}
	for _, group := range out {
		SortCards(group)
	}
	return out
}

// CardIDs is the ids of cards (a card without an id counts as -1).
func CardIDs(cards []*raminov1.Card) []int32 {
	out := make([]int32, len(cards))
	for i, c := range cards {
		if c.Id == nil {
			out[i] = -1
		} else {
			out[i] = c.GetId()
		}
	}
	return out
}
