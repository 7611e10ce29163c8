package ramino_test

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/protobuf/proto"
)

// The bot levels come weakest first, each with its sentence, the server's
// time a decision for the searching levels, and its rating, mu - 3 sigma.
func TestListBotLevelsNamesEveryLevelWeakestFirstWithItsRating(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	levels, err := client.ListBotLevels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []raminov1.BotLevel{
		raminov1.BotLevel_BOT_LEVEL_EASY, raminov1.BotLevel_BOT_LEVEL_MEDIUM,
		raminov1.BotLevel_BOT_LEVEL_HARD, raminov1.BotLevel_BOT_LEVEL_EXPERT,
	}
	if len(levels) != len(want) {
		t.Fatalf("levels %v, want %v", levels, want)
	}
	for i, b := range levels {
		if b.GetLevel() != want[i] {
			t.Errorf("level %d is %v, want %v", i, b.GetLevel(), want[i])
		}
		if b.GetDescription() == "" {
			t.Errorf("%v has no description", b.GetLevel())
		}
		if d := b.GetRating() - (b.GetRatingMu() - 3*b.GetRatingSigma()); d > 1e-9 || d < -1e-9 {
			t.Errorf("%v: rating %v is not mu - 3 sigma", b.GetLevel(), b.GetRating())
		}
		searches := b.GetLevel() == raminov1.BotLevel_BOT_LEVEL_HARD || b.GetLevel() == raminov1.BotLevel_BOT_LEVEL_EXPERT
		if (b.GetTimeMs() > 0) != searches {
			t.Errorf("%v: time a decision %v", b.GetLevel(), b.GetTimeMs())
		}
	}
}

// Every variant the server lists is played to the end by the SDK's bot on
// one seat against the server's bots on the others, while a spectator
// watches: the match ends, the seed matches its hash, and the spectator's
// feed is a snapshot then every event once, in order, to MatchEnded.
func TestCompleteGamesOfEveryVariantAgainstBots(t *testing.T) {
	srv := shared
	ctx := testCtx(t)
	client := dial(t, srv)
	variants, err := client.ListVariants(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, v := range variants {
		names[v.GetName()] = true
	}
	for _, want := range []string{"ramino51", "rami51", "rummy", "gin"} {
		if !names[want] {
			t.Errorf("ListVariants lacks %s: %v", want, names)
		}
	}
	for _, variant := range variants {
		t.Run(variant.GetName(), func(t *testing.T) {
			seats := []ramino.SeatSpec{ramino.Person("gopher"), ramino.Greedy(), ramino.Random()}
			seats = seats[:min(len(seats), int(variant.GetParameters().GetMaxPlayers()))]
			var overrides *raminov1.VariantParameters
			// A match to a target score takes many rounds: two cross a round
			// boundary and keep the test short.
			if variant.GetParameters().GetMaxRounds() != 1 {
				overrides = &raminov1.VariantParameters{TargetScore: proto.Int32(0), MaxRounds: proto.Int32(2)}
			}
			game, err := client.CreateGame(ctx, ramino.GameSpec{Variant: variant.GetName(), Seats: seats, Overrides: overrides})
			if err != nil {
				t.Fatal(err)
			}
			if game.GetStatus() != raminov1.GameStatus_GAME_STATUS_WAITING || game.GetOpenSeats() != 1 {
				t.Fatalf("created: %v with %d open seats", game.GetStatus(), game.GetOpenSeats())
			}
			seat, err := client.JoinGame(ctx, game.GetName(), "gopher")
			if err != nil {
				t.Fatal(err)
			}
			if seat.Number != 0 || len(seat.LastView.GetHand()) == 0 {
				t.Fatalf("joined seat %d with %d cards", seat.Number, len(seat.LastView.GetHand()))
			}

			var watched []*raminov1.WatchGameResponse
			var watchErr error
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for item, err := range client.Watch(ctx, game.GetName()).All() {
					if err != nil {
						watchErr = err
						return
					}
					watched = append(watched, item)
				}
			}()
			view, err := bot.Play(ctx, seat)
			if err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if watchErr != nil {
				t.Fatal(watchErr)
			}

			if view.GetStatus() != raminov1.GameStatus_GAME_STATUS_FINISHED || len(view.GetWinners()) == 0 || view.Turn != nil {
				t.Fatalf("final view: %v winners %v turn %v", view.GetStatus(), view.GetWinners(), view.Turn)
			}
			if view.GetPhase() != raminov1.TurnPhase_TURN_PHASE_NONE || len(view.GetRounds()) == 0 {
				t.Fatalf("final phase %v after %d rounds", view.GetPhase(), len(view.GetRounds()))
			}
			sum := sha256.Sum256([]byte(view.GetSeed()))
			if hex.EncodeToString(sum[:]) != view.GetSeedHash() {
				t.Errorf("the revealed seed does not match its hash")
			}
			if watched[0].GetSnapshot() == nil || watched[0].GetSnapshot().Seat != nil {
				t.Errorf("the spectator's feed does not start with a spectator's snapshot")
			}
			last := watched[len(watched)-1]
			if last.GetEvent().GetMatchEnded() == nil || last.GetVersion() != view.GetVersion() {
				t.Errorf("the feed ends with %v at %d, the game at %d", last, last.GetVersion(), view.GetVersion())
			}
			if !consecutive(watched) {
				t.Errorf("the feed's versions are not consecutive")
			}
			var ended []*raminov1.RoundEnded
			moves := 0
			for _, item := range watched {
				if e := item.GetEvent(); e != nil && e.Seat != nil && e.GetSeat() == seat.Number && e.GetSeatJoined() == nil {
					moves++
				}
				if d := item.GetEvent().GetDrewFromStock(); d != nil && d.CardId != nil {
					t.Errorf("a spectator saw the card drawn at %d", item.GetVersion())
				}
				if e := item.GetEvent().GetRoundEnded(); e != nil {
					ended = append(ended, e)
				}
			}
			if moves == 0 {
				t.Errorf("the SDK's seat made no move")
			}
			rounds := view.GetRounds()[len(view.GetRounds())-len(ended):]
			for i, e := range ended {
				if !slicesEqual(e.GetScores(), rounds[i].GetScores()) {
					t.Errorf("round %d: the event's scores %v, the view's %v", e.GetRound(), e.GetScores(), rounds[i].GetScores())
				}
			}
		})
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
