package ramino_test

import (
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
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
	if last, _ := sess.LastVersion(); last != v+1 || len(drew.GetAnswer().GetResult().GetOptions().GetMoves()) == 0 {
		t.Fatalf("last version %d, options %v", last, drew.GetAnswer().GetResult().GetOptions())
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

// A session whose server is killed and started again opens again after the
// last version it received, and sends again the move the server never
// answered, named in its start: every version comes once, in order, the
// server pushes no options before the move's answer (the Session filters
// nothing), and the move is applied once.
func TestASessionResumesAcrossAServerRestartAndItsMoveIsAppliedOnce(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{Store: "sqlite:" + filepath.Join(t.TempDir(), "ramino.db")})
	ctx := testCtx(t)
	client := dial(t, srv, ramino.WithRetry(fastRetry))
	onTurn, _ := twoPeople(t, ctx, client, "rummy")
	sess, err := onTurn.Session(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	snapshot, err := sess.Recv()
	if err != nil || snapshot.GetSnapshot() == nil {
		t.Fatalf("first message %v, %v: want a snapshot", snapshot, err)
	}
	v := snapshot.GetVersion()
	srv.Kill()
	draw := &raminov1.Move{Move: &raminov1.Move_DrawFromStock{DrawFromStock: &raminov1.DrawFromStockMove{}}}
	id, err := sess.Send(draw, ramino.ExpectVersion(v), ramino.WithRequestID("draw-across-restart"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	var answer *raminov1.MoveAnswer
	for answer == nil {
		msg, err := sess.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if msg.GetEvent() != nil {
			t.Fatalf("an event before the move's answer: %v", msg)
		}
		// The draw is named in the reopened start: no options before its answer.
		if msg.GetPayload() == nil && msg.GetOptions().GetVersion() == v {
			t.Fatalf("options at %d handed out while the draw sent at %d is resent: %v", v, v, msg)
		}
		answer = msg.GetAnswer()
	}
	if answer.GetRequestId() != id || answer.GetResult().GetView().GetVersion() != v+1 {
		t.Fatalf("answer %v: want the draw %s at %d", answer, id, v+1)
	}
	if sess.Reconnects() < 1 {
		t.Fatalf("reconnects %d: the server was killed", sess.Reconnects())
	}
	discard := answer.GetResult().GetOptions().GetMoves()
	var move *raminov1.Move
	for _, m := range discard {
		if m.GetDiscard() != nil {
			move = m
		}
	}
	if move == nil {
		t.Fatalf("no discard among %v", discard)
	}
	if _, err := sess.Send(move, ramino.ExpectVersion(v+1)); err != nil {
		t.Fatal(err)
	}
	if err := sess.CloseSend(); err != nil {
		t.Fatal(err)
	}
	var versions []int64
	for {
		msg, err := sess.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if a := msg.GetAnswer(); a != nil {
			if a.GetError() != nil {
				t.Fatalf("the discard was refused: %v", a.GetError())
			}
			versions = append(versions, a.GetResult().GetView().GetVersion())
		}
	}
	view, err := onTurn.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 1 || versions[0] != v+2 || view.GetVersion() != v+2 {
		t.Fatalf("answers at %v, the game at %d: want one at %d", versions, view.GetVersion(), v+2)
	}
}
