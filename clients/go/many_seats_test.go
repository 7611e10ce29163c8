package ramino_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
)

// Many seats in one process (issue 35): 202 sessions of one client, past the
// server's 100 streams a connection, all open at once: each gets its first
// message, and the seat on turn draws and gets its answer. The client
// spreads its streams over connections as they fill; before, the 101st was
// refused TOO_MANY_STREAMS and its seat was lost. (bench/farm, cmd/ramino-farm
// play such a farm's games to their end.)
func TestTwoHundredSessionsOfOneClientAreAllServed(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	const games = 101
	var seats []*ramino.Seat
	for range games {
		first, second := twoPeople(t, ctx, client, "rummy")
		seats = append(seats, first, second)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(seats))
	for i, seat := range seats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = firstTurn(ctx, seat)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("seat %d of %d: %v", i, len(seats), err)
		}
	}
}

// firstTurn opens the seat's session and reads its first message (a
// refusal comes there); with the turn, it draws and reads until the answer.
// The session stays open until every seat has done so (the test's end).
func firstTurn(ctx context.Context, seat *ramino.Seat) error {
	session, err := seat.Session(ctx, nil)
	if err != nil {
		return err
	}
	msg, err := session.Recv()
	if err != nil {
		return err
	}
	for _, move := range msg.GetOptions().GetMoves() {
		if move.GetDrawFromStock() == nil {
			continue
		}
		id, err := session.Send(move, ramino.ExpectVersion(msg.GetOptions().GetVersion()))
		if err != nil {
			return err
		}
		for {
			answer, err := session.Recv()
			if err != nil {
				return err
			}
			if answer.GetAnswer().GetRequestId() == id {
				if e := answer.GetAnswer().GetError(); e != nil {
					return fmt.Errorf("the draw was refused: %v", e)
				}
				return nil
			}
		}
	}
	return nil
}

func TestStreamsPerConnectionBelowOneIsRefused(t *testing.T) {
	_, err := ramino.NewClient(shared.Address(), ramino.WithStreamsPerConnection(0))
	if err == nil || !strings.Contains(err.Error(), "streams per connection must be at least 1, not 0") {
		t.Fatalf("WithStreamsPerConnection(0) gave %v", err)
	}
}
