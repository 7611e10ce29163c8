package ramino

import (
	"context"
	"slices"
	"testing"
	"time"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
)

// Streams past a full connection go to the next, dialed then; a closed
// stream gives its place back and the next stream takes the first room.
// The server allows three streams a connection: a fourth would be refused.
func TestStreamsSpreadOverConnectionsAndGiveTheirPlacesBack(t *testing.T) {
	server := testserver.Start(t, testserver.Options{
		Args: []string{"--max-streams-per-connection", "3"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := NewClient(server.Address(), WithStreamsPerConnection(3))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	game, err := client.CreateGame(ctx, GameSpec{Variant: "rummy", Seats: []SeatSpec{Person("ann"), Person("bob")}})
	if err != nil {
		t.Fatal(err)
	}
	watches := make([]raminov1.GameService_WatchGameClient, 0, 5)
	cancels := make([]context.CancelFunc, 0, 5)
	for range 5 {
		wctx, wcancel := context.WithCancel(ctx)
		w, err := client.game.WatchGame(wctx, &raminov1.WatchGameRequest{Name: game.GetName()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Recv(); err != nil { // a refusal comes here
			t.Fatal(err)
		}
		watches, cancels = append(watches, w), append(cancels, wcancel)
	}
	if got := client.conns.streams(); !slices.Equal(got, []int{3, 2}) {
		t.Fatalf("streams by connection: %v, want [3 2]", got)
	}
	cancels[0]()
	for !slices.Equal(client.conns.streams(), []int{2, 2}) {
		time.Sleep(10 * time.Millisecond) // gRPC finishes a cancelled stream in a moment
	}
	w, err := client.game.WatchGame(ctx, &raminov1.WatchGameRequest{Name: game.GetName()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recv(); err != nil {
		t.Fatal(err)
	}
	if got := client.conns.streams(); !slices.Equal(got, []int{3, 2}) {
		t.Fatalf("streams by connection after one closed: %v, want [3 2]", got)
	}
	for _, c := range cancels[1:] {
		c()
	}
}
