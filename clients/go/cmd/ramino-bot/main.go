// Command ramino-bot joins a Ramino game and plays it to the end with the
// simple strategy of package bot (the server's legal moves and hints).
//
//	ramino-bot -server localhost:50051 -game games/abc123 -name gobot
//	ramino-bot -server localhost:50051 -variant gin -bots greedy
//
// Without -game it creates a game of -variant with its own seat first and a
// server bot on each seat of -bots, then plays it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ramino-bot:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ramino-bot", flag.ContinueOnError)
	server := fs.String("server", envOr("RAMINO_SERVER", "localhost:50051"), "the server's address [RAMINO_SERVER]")
	game := fs.String("game", "", "the game to join (games/{id} or its id); empty: create one")
	variant := fs.String("variant", "ramino51", "the variant of a game it creates")
	bots := fs.String("bots", "greedy", "the server bots of a game it creates, comma-separated (greedy, random, easy, medium, hard, expert)")
	name := fs.String("name", "gobot", "the player name it joins as")
	timeout := fs.Duration("timeout", 10*time.Minute, "gives up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	client, err := ramino.NewClient(*server)
	if err != nil {
		return err
	}
	defer client.Close()

	if *game == "" {
		seats := []ramino.SeatSpec{ramino.Person(*name)}
		for _, b := range strings.Split(*bots, ",") {
			level, ok := map[string]raminov1.BotLevel{
				"greedy": raminov1.BotLevel_BOT_LEVEL_GREEDY, "random": raminov1.BotLevel_BOT_LEVEL_RANDOM,
				"easy": raminov1.BotLevel_BOT_LEVEL_EASY, "medium": raminov1.BotLevel_BOT_LEVEL_MEDIUM,
				"hard": raminov1.BotLevel_BOT_LEVEL_HARD, "expert": raminov1.BotLevel_BOT_LEVEL_EXPERT,
			}[strings.TrimSpace(b)]
			if !ok {
				return fmt.Errorf("-bots: %q is not a bot level (greedy, random, easy, medium, hard, expert)", b)
			}
			seats = append(seats, ramino.Bot(level))
		}
		created, err := client.CreateGame(ctx, ramino.GameSpec{Variant: *variant, Seats: seats})
		if err != nil {
			return err
		}
		*game = created.GetName()
		fmt.Printf("created %s (%s)\n", created.GetName(), created.GetVariant())
	}
	seat, err := client.JoinGame(ctx, *game, *name)
	if err != nil {
		var e *ramino.Error
		if errors.As(err, &e) {
			return fmt.Errorf("joining %s: %s", *game, e.Reason)
		}
		return err
	}
	fmt.Printf("joined %s as seat %d\n", seat.Name, seat.Number)
	view, err := bot.Play(ctx, seat)
	if err != nil {
		return err
	}
	for _, r := range view.GetRounds() {
		fmt.Printf("round %d: %s, scores %v\n", r.GetRound(), r.GetEnding(), r.GetScores())
	}
	totals := make([]int32, len(view.GetSeats()))
	for i, s := range view.GetSeats() {
		totals[i] = s.GetTotal()
	}
	fmt.Printf("finished: status %s, totals %v, winners %v\n", view.GetStatus(), totals, view.GetWinners())
	if view.GetStatus() != raminov1.GameStatus_GAME_STATUS_FINISHED {
		return fmt.Errorf("the game is %s, not finished", view.GetStatus())
	}
	return nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
