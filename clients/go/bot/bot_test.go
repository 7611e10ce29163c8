package bot

import (
	"testing"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/protobuf/proto"
)

func moves(ms ...*raminov1.Move) []*raminov1.Move { return ms }

var (
	draw    = &raminov1.Move{Move: &raminov1.Move_DrawFromStock{DrawFromStock: &raminov1.DrawFromStockMove{}}}
	take    = &raminov1.Move{Move: &raminov1.Move_TakeDiscard{TakeDiscard: &raminov1.TakeDiscardMove{}}}
	pass    = &raminov1.Move{Move: &raminov1.Move_PassUpcard{PassUpcard: &raminov1.PassUpcardMove{}}}
	resign  = &raminov1.Move{Move: &raminov1.Move_Resign{Resign: &raminov1.ResignMove{}}}
	accept  = &raminov1.Move{Move: &raminov1.Move_AcceptLayout{AcceptLayout: &raminov1.AcceptLayoutMove{}}}
	meld    = &raminov1.Move{Move: &raminov1.Move_LayMelds{LayMelds: &raminov1.LayMeldsMove{Melds: []*raminov1.MeldCardIds{{CardIds: []int32{1, 2, 3}}}}}}
	layOff  = &raminov1.Move{Move: &raminov1.Move_LayOff{LayOff: &raminov1.LayOffMove{CardId: 4}}}
	discard = func(id int32) *raminov1.Move {
		return &raminov1.Move{Move: &raminov1.Move_Discard{Discard: &raminov1.DiscardMove{CardId: id}}}
	}
	knock = &raminov1.KnockMove{DiscardCardId: proto.Int32(7), Deadwood: 3}
)

func TestChooseDrawsFromTheStockFirst(t *testing.T) {
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(resign, take, draw)}); got != draw {
		t.Errorf("chose %v", got)
	}
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(resign, pass, take)}); got != take {
		t.Errorf("with no stock draw, chose %v", got)
	}
}

func TestChooseKnocksWithTheHintsBestKnock(t *testing.T) {
	legal := &raminov1.GetLegalMovesResponse{
		Moves: moves(discard(7), &raminov1.Move{Move: &raminov1.Move_Knock{Knock: knock}}, resign),
		Hint:  &raminov1.Hint{BestKnock: knock},
	}
	if got := Choose(legal).GetKnock(); got != knock {
		t.Errorf("chose %v", got)
	}
}

func TestChooseMeldsThenLaysOffThenDiscardsTheSuggestedCard(t *testing.T) {
	hint := &raminov1.Hint{SuggestedDiscard: &raminov1.Card{Id: proto.Int32(9)}}
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(discard(8), layOff, meld), Hint: hint}); got != meld {
		t.Errorf("chose %v", got)
	}
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(discard(8), layOff), Hint: hint}); got != layOff {
		t.Errorf("chose %v", got)
	}
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(resign, discard(8), discard(9)), Hint: hint}); got.GetDiscard().GetCardId() != 9 {
		t.Errorf("chose %v", got)
	}
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(resign, discard(8))}); got.GetDiscard().GetCardId() != 8 {
		t.Errorf("without a hint, chose %v", got)
	}
}

func TestChooseAcceptsTheLayoutAndResignsOnlyWithNothingElse(t *testing.T) {
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(resign, accept)}); got != accept {
		t.Errorf("chose %v", got)
	}
	if got := Choose(&raminov1.GetLegalMovesResponse{Moves: moves(resign)}); got != resign {
		t.Errorf("chose %v", got)
	}
	if got := Choose(&raminov1.GetLegalMovesResponse{}); got != nil {
		t.Errorf("with no move, chose %v", got)
	}
}
