package ramino_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
)

const playerSecret = "go-sdk-tests-player-token-secret-32b!"

// playerToken is an HS256 JWT of the host's for player.
func playerToken(player string) string {
	enc := base64.RawURLEncoding
	now := time.Now().Unix()
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	body := enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":%q,"iat":%d,"exp":%d}`, player, now, now+600)))
	mac := hmac.New(sha256.New, []byte(playerSecret))
	mac.Write([]byte(head + "." + body))
	return head + "." + body + "." + enc.EncodeToString(mac.Sum(nil))
}

func TestQuickPlayMatchesTwoPlayersAndRatesThem(t *testing.T) {
	ctx := testCtx(t)
	secret := filepath.Join(t.TempDir(), "player-secret")
	if err := os.WriteFile(secret, []byte(playerSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{Args: []string{"--player-token-secret-file", secret}})
	seats := map[string]*ramino.Seat{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, who := range []string{"ann", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := ramino.NewClient(s.Address(), ramino.WithPlayerToken(playerToken(who)))
			if err != nil {
				t.Error(err)
				return
			}
			var states []raminov1.TicketState
			seat, err := c.QuickPlay(ctx, &raminov1.SubmitTicketRequest{
				Variant: "rummy", MinSeats: 2, MaxSeats: 2, Rated: true, PlayerName: who,
			}, func(u *raminov1.TicketUpdate) { states = append(states, u.GetState()) })
			if err != nil {
				t.Error(who, err)
				return
			}
			if states[0] != raminov1.TicketState_TICKET_STATE_SEARCHING {
				t.Errorf("%s: first update %v", who, states[0])
			}
			mu.Lock()
			seats[who] = seat
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	ann, bob := seats["ann"], seats["bob"]
	if ann.Name != bob.Name || ann.Number == bob.Number {
		t.Fatalf("ann %s/%d, bob %s/%d", ann.Name, ann.Number, bob.Name, bob.Number)
	}
	bobClient := dial(t, s, ramino.WithPlayerToken(playerToken("bob")))
	if _, err := bobClient.SeatOf(bob.Name, bob.Number, bob.Token).Resign(ctx); err != nil {
		t.Fatal(err)
	}
	rating, rank, err := bobClient.Rating(ctx, "rummy")
	if err != nil || rank != 2 || rating.GetGames() != 1 {
		t.Fatalf("bob's rating %v rank %d: %v", rating, rank, err)
	}
	board, err := bobClient.Leaderboard(ctx, "rummy", 10, "", false)
	if err != nil || len(board.GetEntries()) != 2 || board.GetEntries()[0].GetPlayer() != "ann" {
		t.Fatalf("board %v: %v", board, err)
	}
	games, err := bobClient.PlayerGames(ctx, "", 5)
	if err != nil || len(games) != 1 || !games[0].GetRated() {
		t.Fatalf("games %v: %v", games, err)
	}
	record, err := bobClient.GameRecord(ctx, bob.Name)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(record.GetSeed()))
	if hex.EncodeToString(sum[:]) != record.GetSeedHash() {
		t.Fatalf("seed %s does not hash to %s", record.GetSeed(), record.GetSeedHash())
	}
}

// TestQuickPlayResumesItsTicketAfterTheServerGoesAway: ann's stream breaks
// (her server is killed, then started again on its sqlite file): QuickPlay
// submits again under its request id, follows the same ticket and is seated
// with bob; she never holds two tickets.
func TestQuickPlayResumesItsTicketAfterTheServerGoesAway(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	secret := filepath.Join(dir, "player-secret")
	if err := os.WriteFile(secret, []byte(playerSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{
		Store: "sqlite:" + filepath.Join(dir, "games.db"),
		Args:  []string{"--player-token-secret-file", secret, "--quick-ticket-grace", "60"},
	})
	ann, err := ramino.NewClient(s.Address(), ramino.WithPlayerToken(playerToken("ann")))
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	type played struct {
		seat *ramino.Seat
		err  error
	}
	done := make(chan played, 1)
	go func() {
		seat, err := ann.QuickPlay(ctx, &raminov1.SubmitTicketRequest{
			Variant: "rummy", MinSeats: 2, MaxSeats: 2, Rated: true, PlayerName: "ann",
		}, nil)
		done <- played{seat, err}
	}()
	var listed []*raminov1.TicketUpdate
	for i := 0; i < 500 && len(listed) == 0; i++ {
		if listed, err = ann.Tickets(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(listed) != 1 {
		t.Fatalf("ann's tickets before the kill: %v", listed)
	}
	s.Kill()
	s.Start()
	bob, err := ramino.NewClient(s.Address(), ramino.WithPlayerToken(playerToken("bob")))
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	bobSeat, err := bob.QuickPlay(ctx, &raminov1.SubmitTicketRequest{
		Variant: "rummy", MinSeats: 2, MaxSeats: 2, Rated: true, PlayerName: "bob",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.seat.Name != bobSeat.Name {
		t.Fatalf("ann in %s, bob in %s", got.seat.Name, bobSeat.Name)
	}
	if left, err := ann.Tickets(ctx); err != nil || len(left) != 0 {
		t.Fatalf("ann's tickets after: %v %v", left, err)
	}
}

// TestAPartyPlaysTogether: ann leads a party that bob joined by her
// invitation; her QuickPlay queues both, his PartyPlay finds his own seat
// in the same game, and her MATCHED update names him among her opponents.
func TestAPartyPlaysTogether(t *testing.T) {
	ctx := testCtx(t)
	secret := filepath.Join(t.TempDir(), "player-secret")
	if err := os.WriteFile(secret, []byte(playerSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{Args: []string{"--player-token-secret-file", secret}})
	ann := dial(t, s, ramino.WithPlayerToken(playerToken("ann")))
	bob := dial(t, s, ramino.WithPlayerToken(playerToken("bob")))
	party, err := ann.CreateParty(ctx, "Ann")
	if err != nil {
		t.Fatal(err)
	}
	invited, err := ann.InviteToParty(ctx, party.GetName(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.JoinParty(ctx, party.GetName(), "not-"+invited.GetInvitation(), "Bob"); ramino.Reason(err) != "NOT_INVITED" {
		t.Fatalf("a wrong invitation: %v", err)
	}
	joined, err := bob.JoinParty(ctx, party.GetName(), invited.GetInvitation(), "Bob")
	if err != nil || len(joined.GetMembers()) != 1 {
		t.Fatalf("joined %v: %v", joined, err)
	}
	type played struct {
		seat *ramino.Seat
		err  error
	}
	done := make(chan played, 1)
	go func() {
		seat, err := bob.PartyPlay(ctx, party.GetName())
		done <- played{seat, err}
	}()
	var last *raminov1.TicketUpdate
	seat, err := ann.QuickPlay(ctx, &raminov1.SubmitTicketRequest{
		Variant: "rummy", MinSeats: 2, MaxSeats: 2, Rated: true, PlayerName: "Ann", Party: party.GetName(),
	}, func(u *raminov1.TicketUpdate) { last = u })
	if err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.seat.Name != seat.Name || got.seat.Number == seat.Number {
		t.Fatalf("ann %s/%d, bob %s/%d", seat.Name, seat.Number, got.seat.Name, got.seat.Number)
	}
	if o := last.GetOpponents(); len(o) != 1 || o[0].GetPlayer() != "bob" || o[0].GetPlayerName() != "Bob" {
		t.Fatalf("ann's opponents: %v", o)
	}
	if err := bob.LeaveParty(ctx, party.GetName()); err != nil {
		t.Fatal(err)
	}
	if after, err := ann.GetParty(ctx, party.GetName()); err != nil || len(after.GetMembers()) != 0 {
		t.Fatalf("after bob left: %v %v", after, err)
	}
}
