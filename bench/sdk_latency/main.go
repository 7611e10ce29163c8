// Command sdk_latency times the Go SDK's unary calls against a running
// server, as bench/sdk_latency.py asks: GetLegalMoves on one seat, then the
// moves of whole two-seat rummy games (each seat playing from its move's
// answer, bot.Choose picking), one call at a time. It prints the latencies
// (nanoseconds) as JSON: {"legal": [...], "move": [...]}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

func main() {
	server := flag.String("server", "127.0.0.1:50051", "the server")
	calls := flag.Int("calls", 2000, "GetLegalMoves calls timed")
	moves := flag.Int("moves", 2000, "moves timed")
	warmup := flag.Int("warmup", 200, "untimed calls first")
	flag.Parse()
	if err := run(*server, *calls, *moves, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "sdk_latency:", err)
		os.Exit(1)
	}
}

func newGame(ctx context.Context, client *ramino.Client) ([]*ramino.Seat, error) {
	one, zero := int32(1), int32(0)
	game, err := client.CreateGame(ctx, ramino.GameSpec{
		Variant:   "rummy",
		Seats:     []ramino.SeatSpec{ramino.Person("a"), ramino.Person("b")},
		Overrides: &raminov1.VariantParameters{MaxRounds: &one, TargetScore: &zero},
	})
	if err != nil {
		return nil, err
	}
	seats := make([]*ramino.Seat, 2)
	for i, name := range []string{"a", "b"} {
		if seats[i], err = client.JoinGame(ctx, game.GetName(), name); err != nil {
			return nil, err
		}
	}
	return seats, nil
}

func run(server string, calls, moves, warmup int) error {
	ctx := context.Background()
	client, err := ramino.NewClient(server)
	if err != nil {
		return err
	}
	defer client.Close()
	seats, err := newGame(ctx, client)
	if err != nil {
		return err
	}
	out := struct {
		Legal []int64 `json:"legal"`
		Move  []int64 `json:"move"`
	}{}
	for i := 0; i < warmup+calls; i++ {
		start := time.Now()
		if _, err := seats[0].LegalMoves(ctx); err != nil {
			return err
		}
		if i >= warmup {
			out.Legal = append(out.Legal, time.Since(start).Nanoseconds())
		}
	}
	turn := int32(0)
	for played := 0; played < warmup+moves; {
		view, err := seats[0].View(ctx)
		if err != nil {
			return err
		}
		turn = view.GetTurn()
		legal, err := seats[turn].LegalMoves(ctx)
		if err != nil {
			return err
		}
		for {
			move := bot.Choose(legal)
			if move == nil {
				return fmt.Errorf("no move at version %d", legal.GetVersion())
			}
			start := time.Now()
			result, err := seats[turn].Play(ctx, move, ramino.ExpectVersion(legal.GetVersion()))
			if err != nil {
				return err
			}
			if played >= warmup {
				out.Move = append(out.Move, time.Since(start).Nanoseconds())
			}
			played++
			if result.GetView().GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED {
				if seats, err = newGame(ctx, client); err != nil {
					return err
				}
				break
			}
			if len(result.GetLegalMoves()) == 0 || played >= warmup+moves {
				break
			}
			legal = &raminov1.GetLegalMovesResponse{
				Version: result.GetView().GetVersion(), Moves: result.GetLegalMoves(), Hint: result.GetHint(),
			}
		}
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
