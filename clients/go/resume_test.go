package ramino_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
	"google.golang.org/grpc/codes"
)

func TestAClosedWatchResumesWhereItStopped(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	game, err := client.CreateGame(ctx, ramino.GameSpec{Variant: "ramino51", Seats: []ramino.SeatSpec{ramino.Person("ann"), ramino.Greedy()}})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := client.JoinGame(ctx, game.GetName(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	var first []*raminov1.WatchGameResponse
	w := client.Watch(ctx, game.GetName())
	for item, err := range w.All() {
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, item)
		if len(first) == 1 {
			if _, err := bot.PlayTurn(ctx, seat); err != nil {
				t.Fatal(err)
			}
		}
		if len(first) >= 4 {
			break // closes the watch
		}
	}
	last, ok := w.LastVersion()
	if !ok || last != first[len(first)-1].GetVersion() {
		t.Fatalf("LastVersion %d %v", last, ok)
	}
	// The game goes on, nobody watching.
	for turns := 0; turns < 3; turns++ {
		if _, err := bot.PlayTurn(ctx, seat); err != nil {
			t.Fatal(err)
		}
	}
	var rest []*raminov1.WatchGameResponse
	done := make(chan error, 1)
	go func() {
		for item, err := range client.Watch(ctx, game.GetName(), ramino.AfterVersion(last)).All() {
			if err != nil {
				done <- err
				return
			}
			rest = append(rest, item)
		}
		done <- nil
	}()
	if _, err := bot.Play(ctx, seat); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if first[0].GetSnapshot() == nil {
		t.Errorf("the first watch did not start with a snapshot")
	}
	for _, item := range rest {
		if item.GetEvent() == nil {
			t.Errorf("the resumed watch yielded a snapshot at %d", item.GetVersion())
		}
	}
	all := append(first, rest...)
	if !consecutive(all) || rest[len(rest)-1].GetEvent().GetMatchEnded() == nil {
		t.Errorf("the two watches do not make one feed to MatchEnded")
	}
}

// A seat's watch loses its stream when the server is killed; the server
// comes back on the same sqlite file and the game goes on (the seat and
// the bots move) before the watch reconnects: it resumes after the last
// version it yielded, missing nothing and yielding nothing twice.
func TestAWatchResumesAcrossAServerRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Store: "sqlite:" + filepath.Join(dir, "ramino.db")})
	ctx := testCtx(t)
	client := dial(t, srv, ramino.WithRetry(fastRetry))
	game, err := client.CreateGame(ctx, ramino.GameSpec{Variant: "rami51", Seats: []ramino.SeatSpec{ramino.Person("ann"), ramino.Random(), ramino.Greedy()}})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := client.JoinGame(ctx, game.GetName(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	w := seat.Watch(ctx)
	var feed []*raminov1.WatchGameResponse
	restarted := false
	for item, err := range w.All() {
		if err != nil {
			t.Fatal(err)
		}
		feed = append(feed, item)
		if len(feed) == 2 && !restarted {
			// The stream and the channel drop; the game lives on in the store.
			srv.Kill()
			srv.Start()
			restarted = true
			// Events the watch has not seen yet: the seat's turn and the bots'.
			for moved := false; !moved; {
				if moved, err = bot.PlayTurn(ctx, seat); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := bot.PlayTurn(ctx, seat); err != nil {
			t.Fatal(err)
		}
	}
	view, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !restarted || w.Reconnects() < 1 {
		t.Fatalf("restarted %v, reconnects %d", restarted, w.Reconnects())
	}
	if view.GetStatus() != raminov1.GameStatus_GAME_STATUS_FINISHED {
		t.Fatalf("the game is %v", view.GetStatus())
	}
	last := feed[len(feed)-1]
	if last.GetEvent().GetMatchEnded() == nil || last.GetVersion() != view.GetVersion() {
		t.Errorf("the feed ends at %d with %v; the game is at %d", last.GetVersion(), last, view.GetVersion())
	}
	if !consecutive(feed) {
		t.Errorf("versions missed or repeated across the restart")
	}
	snapshots := 0
	for _, item := range feed {
		if item.GetSnapshot() != nil {
			snapshots++
		}
	}
	if snapshots != 1 {
		t.Errorf("%d snapshots in the feed", snapshots)
	}
}

// A move made while the server is down is retried on UNAVAILABLE with the
// same request id until the server is back, and applied once.
func TestAMoveIsRetriedWhileTheServerRestartsAndAppliedOnce(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Store: "sqlite:" + filepath.Join(dir, "ramino.db")})
	ctx := testCtx(t)
	retried := make(chan ramino.RetryEvent, 100)
	client := dial(t, srv, ramino.WithRetry(fastRetry), ramino.OnRetry(func(e ramino.RetryEvent) { retried <- e }))
	seat, _ := twoPeople(t, ctx, client, "rummy")
	before, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	var (
		result  *raminov1.MoveResult
		moveErr error
		wg      sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		result, moveErr = seat.DrawFromStock(ctx, ramino.ExpectVersion(before.GetVersion()), ramino.WithRequestID("draw-across-restart"))
	}()
	first := <-retried // the call failed once with the server down
	srv.Start()
	wg.Wait()
	if moveErr != nil {
		t.Fatal(moveErr)
	}
	if ramino.Code(first.Err) != codes.Unavailable && !errors.Is(first.Err, context.Canceled) {
		t.Errorf("the first failure: %v", first.Err)
	}
	after, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.GetVersion() != before.GetVersion()+1 || result.GetView().GetVersion() != after.GetVersion() {
		t.Errorf("versions: before %d, answer %d, after %d", before.GetVersion(), result.GetView().GetVersion(), after.GetVersion())
	}
	again, err := seat.DrawFromStock(ctx, ramino.ExpectVersion(before.GetVersion()), ramino.WithRequestID("draw-across-restart"))
	if err != nil {
		t.Fatal(err)
	}
	// The same id for another request is refused, and changes nothing.
	_, err = seat.DrawFromStock(ctx, ramino.WithRequestID("draw-across-restart"))
	asError(t, err, codes.InvalidArgument, "REQUEST_ID_REUSED")
	final, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.GetView().GetVersion() != after.GetVersion() || final.GetVersion() != after.GetVersion() ||
		len(final.GetHand()) != len(before.GetHand())+1 {
		t.Errorf("the repeated request id applied again: %d -> %d, hand %d -> %d", after.GetVersion(),
			final.GetVersion(), len(before.GetHand()), len(final.GetHand()))
	}
}
