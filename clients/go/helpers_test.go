package ramino_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
)

// shared is a memory-store server for the tests that need no server of
// their own (one starts in about 5 s).
var shared *testserver.Server

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ramino-go-sdk-")
	if err != nil {
		panic(err)
	}
	shared = testserver.Shared(dir, testserver.Options{AllowBotGames: true})
	code := m.Run()
	shared.Stop()
	if log := shared.Log(); code != 0 && log != "" {
		fmt.Fprintf(os.Stderr, "the shared server's log ends:\n%s\n", log)
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// testCtx bounds a test's calls, so that a hung server fails the test
// instead of hanging it.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, s *testserver.Server, opts ...ramino.Option) *ramino.Client {
	t.Helper()
	c, err := ramino.NewClient(s.Address(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// fastRetry retries quickly, long enough for a server to restart.
var fastRetry = ramino.RetryPolicy{
	Attempts: 60, InitialBackoff: 20 * time.Millisecond, MaxBackoff: 500 * time.Millisecond,
	Multiplier: 2, Jitter: 0.1,
}

// twoPeople creates a game of two people who both join; it returns the seat
// on turn first.
func twoPeople(t *testing.T, ctx context.Context, c *ramino.Client, variant string) (onTurn, waiting *ramino.Seat) {
	t.Helper()
	g, err := c.CreateGame(ctx, ramino.GameSpec{Variant: variant, Seats: []ramino.SeatSpec{ramino.Person("ann"), ramino.Person("bob")}})
	if err != nil {
		t.Fatal(err)
	}
	ann, err := c.JoinGame(ctx, g.GetName(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := c.JoinGame(ctx, g.GetName(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	view, err := ann.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if view.Turn == nil {
		t.Fatalf("no turn after both joined: %v", view.GetStatus())
	}
	if view.GetTurn() == ann.Number {
		return ann, bob
	}
	return bob, ann
}

// consecutive: the versions run one after another.
func consecutive(items []*raminov1.WatchGameResponse) bool {
	for i := 1; i < len(items); i++ {
		if items[i].GetVersion() != items[i-1].GetVersion()+1 {
			return false
		}
	}
	return len(items) > 0
}
