package ramino_test

import (
	"errors"
	"io"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

// Two seats play a rummy match to its end, each from what its session
// pushes (no GetLegalMoves), against a real server.
func TestTwoSeatsPlayToTheEndFromTheirSessions(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	first, second := twoPeople(t, ctx, client, "rummy")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, seat := range []*ramino.Seat{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = bot.PlaySession(ctx, seat)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	view, err := first.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if view.GetStatus() != raminov1.GameStatus_GAME_STATUS_FINISHED {
		t.Fatalf("the match did not end: %v", view.GetStatus())
	}
}

// A refused move is an answer with its status; the session goes on.
func TestARefusedMoveOnASessionIsAnAnswer(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	onTurn, _ := twoPeople(t, ctx, client, "rummy")
	sess, err := onTurn.Session(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	snapshot, err := sess.Recv()
	if err != nil || snapshot.GetSnapshot() == nil || len(snapshot.GetOptions().GetMoves()) == 0 {
		t.Fatalf("first message %v, %v: want a snapshot with the seat's options", snapshot, err)
	}
	v := snapshot.GetVersion()
	draw := &raminov1.Move{Move: &raminov1.Move_DrawFromStock{DrawFromStock: &raminov1.DrawFromStockMove{}}}
	id, err := sess.Send(draw, ramino.ExpectVersion(v-1))
	if err != nil {
		t.Fatal(err)
	}
	refused, err := sess.Recv()
	if err != nil || refused.GetAnswer().GetRequestId() != id || refused.GetAnswer().GetError() == nil {
		t.Fatalf("answer %v, %v: want the refusal of %s", refused, err, id)
	}
	if _, err := sess.Send(draw, ramino.ExpectVersion(v)); err != nil {
		t.Fatal(err)
	}
	drew, err := sess.Recv()
	if err != nil || drew.GetAnswer().GetResult().GetView().GetVersion() != v+1 {
		t.Fatalf("answer %v, %v: want the draw at %d", drew, err, v+1)
	}
	if sess.LastVersion != v+1 || len(drew.GetAnswer().GetResult().GetOptions().GetMoves()) == 0 {
		t.Fatalf("last version %d, options %v", sess.LastVersion, drew.GetAnswer().GetResult().GetOptions())
	}
	if err := sess.CloseSend(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := sess.Recv(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
}
