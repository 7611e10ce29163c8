// Command ramino-farm is a bot farm in one process (issue 35): it creates
// -games two-seat games, joins both seats of each with one client, and plays
// every seat on its own PlayGame session from the options the server pushes
// (bot.PlaySession), every game to its end. It prints games finished, moves,
// refusals, moves/s, the connections the client opened and, given the
// server's process id (-server-pid, Linux), the server's CPU a move.
//
//	ramino-farm -server 127.0.0.1:50051 -games 500 -server-pid 1234
//
// bench/farm.py --go starts a server and runs it beside the Python farm.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ramino "github.com/ramino/ramino/clients/go"
	"github.com/ramino/ramino/clients/go/bot"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ramino-farm:", err)
		os.Exit(1)
	}
}

// farm is what one run did.
type farm struct {
	games, finished int
	moves           atomic.Int64
	opened          atomic.Int64 // PlayGame streams opened: a session's first and its reopenings
	refusals        map[string]int
	seconds         float64
	serverCPU       float64 // seconds; negative when not measured
}

func run(args []string) error {
	fs := flag.NewFlagSet("ramino-farm", flag.ContinueOnError)
	server := fs.String("server", "localhost:50051", "the server's address")
	games := fs.Int("games", 500, "two-seat games, both seats played by this process")
	variant := fs.String("variant", "rummy", "the games' variant")
	rounds := fs.Int("rounds", 1, "rounds a match (max_rounds)")
	clients := fs.Int("clients", 1, "clients the games are shared between (each its own connections)")
	pid := fs.Int("server-pid", 0, "the server's process id, to read its CPU from /proc (0: not measured)")
	timeout := fs.Duration("timeout", 30*time.Minute, "gives up after this long")
	stall := fs.Duration("stall", time.Minute, "gives up when no move was sent for this long, naming the seats left")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *games < 1 || *rounds < 1 || *clients < 1 {
		return fmt.Errorf("-games, -rounds and -clients must be at least 1, not %d, %d and %d", *games, *rounds, *clients)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	out := &farm{games: *games, refusals: map[string]int{}, serverCPU: -1}
	var seats []*ramino.Seat
	for i := range *clients {
		client, err := ramino.NewClient(*server, ramino.WithDialOptions(grpc.WithChainStreamInterceptor(out.countMoves)))
		if err != nil {
			return err
		}
		defer client.Close()
		share := *games / *clients
		if i < *games%*clients {
			share++
		}
		some, err := seatsOf(ctx, client, share, *variant, int32(*rounds))
		if err != nil {
			return err
		}
		seats = append(seats, some...)
	}
	cpu0, _ := processCPU(*pid)
	start := time.Now()
	playing, stop := context.WithCancel(ctx)
	defer stop()
	go out.watchdog(playing, stop, *stall)
	var wg sync.WaitGroup
	var mu sync.Mutex
	left := map[*ramino.Seat]bool{}
	for _, seat := range seats {
		left[seat] = true
	}
	for _, seat := range seats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := bot.PlaySession(playing, seat)
			mu.Lock()
			delete(left, seat)
			mu.Unlock()
			if err != nil && playing.Err() == nil {
				reason := ramino.Reason(err)
				if reason == "" {
					reason = err.Error()
				}
				mu.Lock()
				out.refusals[reason]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	out.seconds = time.Since(start).Seconds()
	if cpu1, ok := processCPU(*pid); ok {
		out.serverCPU = cpu1 - cpu0
	}
	for seat := range left {
		view, err := seat.View(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("stalled: %s seat %d at version %d, turn %d, %v\n",
			seat.Name, seat.Number, view.GetVersion(), view.GetTurn(), view.GetStatus())
	}
	for i := 0; i < len(seats); i += 2 {
		view, err := seats[i].View(ctx)
		if err != nil {
			return err
		}
		if view.GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED {
			out.finished++
		}
	}
	fmt.Printf("%d two-seat %s games of %d round(s), every seat on its own session, one Go process:\n",
		*games, *variant, *rounds)
	out.print(len(seats))
	return nil
}

// seatsOf creates the games, ten at a time, and joins both seats of each.
func seatsOf(ctx context.Context, c *ramino.Client, games int, variant string, rounds int32) ([]*ramino.Seat, error) {
	target := int32(0)
	spec := ramino.GameSpec{
		Variant:   variant,
		Seats:     []ramino.SeatSpec{ramino.Person("ann"), ramino.Person("bo")},
		Overrides: &raminov1.VariantParameters{MaxRounds: &rounds, TargetScore: &target},
	}
	seats := make([]*ramino.Seat, 2*games)
	errs := make([]error, games)
	var wg sync.WaitGroup
	limit := make(chan struct{}, 10)
	for i := range games {
		wg.Add(1)
		limit <- struct{}{}
		go func() {
			defer func() { <-limit; wg.Done() }()
			g, err := c.CreateGame(ctx, spec)
			for j, who := range []string{"ann", "bo"} {
				if err == nil {
					seats[2*i+j], err = c.JoinGame(ctx, g.GetName(), who)
				}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return seats, errors.Join(errs...)
}

// watchdog ends the play (stop) when no move was sent for stall.
func (f *farm) watchdog(ctx context.Context, stop context.CancelFunc, stall time.Duration) {
	last, since := f.moves.Load(), time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if n := f.moves.Load(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > stall {
			stop()
			return
		}
	}
}

// countMoves counts the moves sent on sessions (every message but a start).
func (f *farm) countMoves(
	ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption,
) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || !strings.HasSuffix(method, "/PlayGame") {
		return s, err
	}
	f.opened.Add(1)
	return &counted{ClientStream: s, moves: &f.moves}, nil
}

type counted struct {
	grpc.ClientStream
	moves *atomic.Int64
}

// RecvMsg notes why a session's stream ended, when not at its end.
func (c *counted) RecvMsg(m any) error {
	err := c.ClientStream.RecvMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		endings.Lock()
		endings.by[status.Code(err).String()+" "+status.Convert(err).Message()]++
		endings.Unlock()
	}
	return err
}

var endings = struct {
	sync.Mutex
	by map[string]int
}{by: map[string]int{}}

func (c *counted) SendMsg(m any) error {
	if r, ok := m.(*raminov1.PlayGameRequest); ok && r.GetStart() == nil {
		c.moves.Add(1)
	}
	return c.ClientStream.SendMsg(m)
}

// processCPU is a process's CPU seconds (user and system) from /proc.
func processCPU(pid int) (float64, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	text := string(b)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseFloat(fields[11], 64)
	system, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticks = 100 // USER_HZ on Linux
	return (user + system) / ticks, true
}

func (f *farm) print(seats int) {
	moves := f.moves.Load()
	refused := 0
	var reasons []string
	for r, n := range f.refusals {
		refused += n
		reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(reasons)
	fmt.Printf("  sessions (seats)            %d\n", seats)
	fmt.Printf("  sessions refused            %d %s\n", refused, strings.Join(reasons, ", "))
	fmt.Printf("  sessions reopened           %d\n", f.opened.Load()-int64(seats))
	for why, n := range endings.by {
		fmt.Printf("    a stream ended by %s: %d\n", why, n)
	}
	fmt.Printf("  games played to their end   %d of %d\n", f.finished, f.games)
	fmt.Printf("  moves                       %d\n", moves)
	fmt.Printf("  wall time                   %.1f s\n", f.seconds)
	fmt.Printf("  moves/s                     %.0f\n", float64(moves)/f.seconds)
	if f.serverCPU >= 0 && moves > 0 {
		fmt.Printf("  server CPU a move           %.2f ms\n", 1000*f.serverCPU/float64(moves))
	}
}
