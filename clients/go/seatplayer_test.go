package ramino_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
	"google.golang.org/protobuf/proto"
)

// staleAt are the decisions (counted from 0) at which the witness makes its
// seat's move stale on purpose.
var staleAt = []int{2, 9, 20}

// witness is a Policy that checks each decision's view against GetGame (by
// a Seat of its own on the same token) and makes the moves of staleAt
// stale by playing them first by a unary call.
type witness struct {
	t                  *testing.T
	ctx                context.Context
	seat               *ramino.Seat
	mu                 sync.Mutex
	decisions          int
	mismatches         int
	drawsWithADiscard  int
	staled, refused    []int64
	refusedNotOvertake int
}

func (w *witness) Choose(options *raminov1.SeatOptions, view *raminov1.GameView) *raminov1.Move {
	w.mu.Lock()
	defer w.mu.Unlock()
	server, err := w.seat.View(w.ctx)
	if err != nil {
		w.t.Error(err)
		return nil
	}
	if !proto.Equal(view, server) || server.GetVersion() != options.GetVersion() {
		if w.mismatches == 0 {
			w.t.Errorf("decision at %d: the policy's view is at %d, GetGame's at %d",
				options.GetVersion(), view.GetVersion(), server.GetVersion())
		}
		w.mismatches++
	}
	for _, m := range options.GetMoves() {
		if m.GetDrawFromStock() != nil && len(server.GetDiscardPile()) > 0 {
			w.drawsWithADiscard++
		}
	}
	move := bot.Simple.Choose(options, view)
	if slices.Contains(staleAt, w.decisions) {
		if _, err := w.seat.Play(w.ctx, move, ramino.ExpectVersion(options.GetVersion())); err != nil {
			w.t.Error(err)
		}
		w.staled = append(w.staled, options.GetVersion())
	}
	w.decisions++
	return move
}

func (w *witness) Refused(err error, options *raminov1.SeatOptions) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refused = append(w.refused, options.GetVersion())
	if !errors.Is(err, ramino.ErrStaleVersion) || ramino.Reason(err) != ramino.ReasonVersionMismatch {
		w.refusedNotOvertake++
	}
}

// A seat whose moves are made stale on purpose is told of each refusal
// (with the options the move was chosen from) and plays the match to its
// end; at each decision its policy is handed the seat's view at the
// options' version, equal to GetGame's then (the discard pile included).
func TestThePolicyIsToldOfItsStaleMovesAndPlaysToTheEndOnCurrentViews(t *testing.T) {
	ctx := testCtx(t)
	server := testserver.Start(t, testserver.Options{Args: []string{"--test-seed", "20261203"}})
	client := dial(t, server)
	first, second := twoPeople(t, ctx, client, "rummy")
	own, err := dial(t, server).SeatFromToken(ctx, first.Name, first.Token)
	if err != nil {
		t.Fatal(err)
	}
	w := &witness{t: t, ctx: ctx, seat: own}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, errs[0] = bot.PlayPolicy(ctx, first, w)
	}()
	go func() {
		defer wg.Done()
		_, errs[1] = bot.PlaySession(ctx, second)
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	view, err := client.GetGame(ctx, first.Name)
	if err != nil {
		t.Fatal(err)
	}
	if view.GetStatus() != raminov1.GameStatus_GAME_STATUS_FINISHED {
		t.Fatalf("the match did not end: %v", view.GetStatus())
	}
	if w.mismatches != 0 || w.decisions < 40 || w.drawsWithADiscard < 20 {
		t.Fatalf("%d mismatches in %d decisions (%d draws with a discard on the pile)",
			w.mismatches, w.decisions, w.drawsWithADiscard)
	}
	if len(w.staled) != len(staleAt) || !slices.Equal(w.refused, w.staled) || w.refusedNotOvertake != 0 {
		t.Fatalf("made stale at %v, told of refusals at %v (%d not VERSION_MISMATCH)",
			w.staled, w.refused, w.refusedNotOvertake)
	}
}

// A refusal nothing overtook (an illegal move: a discard before drawing) is
// returned: the game waits on the seat, no new options would come.
func TestARefusalNothingOvertookIsReturnedByThePlayer(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	onTurn, _ := twoPeople(t, ctx, client, "rummy")
	told := 0
	illegal := bot.PolicyFunc(func(options *raminov1.SeatOptions, view *raminov1.GameView) *raminov1.Move {
		return &raminov1.Move{Move: &raminov1.Move_Discard{Discard: &raminov1.DiscardMove{CardId: view.GetHand()[0].GetId()}}}
	})
	_, err := bot.PlayPolicy(ctx, onTurn, refusals{illegal, &told})
	if !errors.Is(err, ramino.ErrMoveRejected) || bot.Overtaken(err) || told != 0 {
		t.Fatalf("PlayPolicy returned %v (told %d): want the illegal move's refusal", err, told)
	}
}

// refusals counts what its policy is told.
type refusals struct {
	bot.PolicyFunc
	told *int
}

func (r refusals) Refused(error, *raminov1.SeatOptions) { *r.told++ }
