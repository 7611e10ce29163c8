// Package bot plays a seat of a Ramino game: PlayPolicy with a Policy of
// your own, handed each decision's options and the seat's view at their
// version and told of its moves overtaken by the game; PlaySession and Play
// with a simple strategy chosen from the server's legal moves and hints: it
// draws from the stock, knocks (gin) with the hint's best knock, lays
// whatever melds and lay-offs the server proposes, and discards the card
// the hint suggests.
package bot

import (
	"context"
	"errors"
	"io"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc/codes"
)

// Policy chooses a seat's moves for PlayPolicy.
type Policy interface {
	// Choose is the move to make from options (nil: none), given the
	// seat's view at options' version: the table they are for (the top of
	// view.DiscardPile is the card TakeDiscard takes).
	Choose(options *raminov1.SeatOptions, view *raminov1.GameView) *raminov1.Move
}

// RefusalObserver is a Policy told of each of its moves the game refused
// for having been overtaken (see Overtaken), with the options it was
// chosen from; play goes on from the next options.
type RefusalObserver interface {
	Refused(err error, options *raminov1.SeatOptions)
}

// PolicyFunc is a Policy of one function.
type PolicyFunc func(options *raminov1.SeatOptions, view *raminov1.GameView) *raminov1.Move

// Choose calls f.
func (f PolicyFunc) Choose(options *raminov1.SeatOptions, view *raminov1.GameView) *raminov1.Move {
	return f(options, view)
}

// Simple is the package's strategy as a Policy (see Choose).
var Simple Policy = PolicyFunc(func(options *raminov1.SeatOptions, _ *raminov1.GameView) *raminov1.Move {
	return choose(options.GetMoves(), options.GetHint())
})

// Overtaken is whether a refused move was overtaken by the game, the next
// options saying what to do: its version was stale (another move came
// first: a bot, a turn timer, a unary call), the turn had passed, the
// match was over.
func Overtaken(err error) bool {
	return errors.Is(err, ramino.ErrStaleVersion) || errors.Is(err, ramino.ErrNotYourTurn) ||
		errors.Is(err, ramino.ErrMatchOver)
}

// Choose is the strategy: the move to make from legal, or nil for none.
func Choose(legal *raminov1.GetLegalMovesResponse) *raminov1.Move {
	return choose(legal.GetMoves(), legal.GetHint())
}

func choose(moves []*raminov1.Move, hint *raminov1.Hint) *raminov1.Move {
	first := func(ok func(*raminov1.Move) bool) *raminov1.Move {
		for _, m := range moves {
			if ok(m) {
				return m
			}
		}
		return nil
	}
	isKnock := func(m *raminov1.Move) bool { return m.GetKnock() != nil }
	if best := hint.GetBestKnock(); best != nil && first(isKnock) != nil {
		return &raminov1.Move{Move: &raminov1.Move_Knock{Knock: best}}
	}
	for _, ok := range []func(*raminov1.Move) bool{
		func(m *raminov1.Move) bool { return m.GetDrawFromStock() != nil },
		func(m *raminov1.Move) bool { return m.GetTurnOverDiscardPile() != nil },
		func(m *raminov1.Move) bool { return m.GetTakeDiscard() != nil },
		func(m *raminov1.Move) bool { return m.GetLayMelds() != nil },
		func(m *raminov1.Move) bool { return m.GetLayOff() != nil },
	} {
		if m := first(ok); m != nil {
			return m
		}
	}
	if d := hint.GetSuggestedDiscard(); d != nil && d.Id != nil {
		if m := first(func(m *raminov1.Move) bool {
			return m.GetDiscard() != nil && m.GetDiscard().GetCardId() == d.GetId()
		}); m != nil {
			return m
		}
	}
	for _, ok := range []func(*raminov1.Move) bool{
		func(m *raminov1.Move) bool { return m.GetDiscard() != nil },
		func(m *raminov1.Move) bool { return m.GetAcceptLayout() != nil },
		func(m *raminov1.Move) bool { return m.GetPassUpcard() != nil },
		func(m *raminov1.Move) bool { return m.GetResign() == nil },
	} {
		if m := first(ok); m != nil {
			return m
		}
	}
	if len(moves) > 0 {
		return moves[0]
	}
	return nil
}

// PlayTurn plays the seat's moves until its turn passes; false when it had
// no move to make (not its turn).
func PlayTurn(ctx context.Context, seat *ramino.Seat) (bool, error) {
	played := false
	legal, err := seat.LegalMoves(ctx)
	for {
		if err != nil {
			return played, err
		}
		move := Choose(legal)
		if move == nil {
			return played, nil
		}
		result, perr := seat.Play(ctx, move, ramino.ExpectVersion(legal.GetVersion()))
		switch {
		case errors.Is(perr, ramino.ErrStaleVersion):
			legal, err = seat.LegalMoves(ctx) // a bot or a timer moved meanwhile: look again
			continue
		case errors.Is(perr, ramino.ErrNotYourTurn), errors.Is(perr, ramino.ErrMatchOver):
			return played, nil
		case perr != nil:
			return played, perr
		}
		played = true
		if len(result.GetLegalMoves()) == 0 {
			return true, nil
		}
		legal = &raminov1.GetLegalMovesResponse{
			Version: result.GetView().GetVersion(), Moves: result.GetLegalMoves(), Hint: result.GetHint(),
		}
	}
}

// Play plays the seat until the match ends, acting whenever its watch
// shows something new, and returns the seat's final view.
func Play(ctx context.Context, seat *ramino.Seat) (*raminov1.GameView, error) {
	w := seat.Watch(ctx)
	for _, err := range w.All() {
		if err != nil {
			return nil, err
		}
		if _, err := PlayTurn(ctx, seat); err != nil {
			return nil, err
		}
	}
	return seat.View(ctx)
}

// PlaySession plays the seat until the match ends from what its session
// pushes (its answers' and the pushed options: no GetLegalMoves) with the
// package's strategy, and returns the seat's last view; against a server
// without PlayGame it plays as Play does (unary moves and the watch).
func PlaySession(ctx context.Context, seat *ramino.Seat) (*raminov1.GameView, error) {
	return PlayPolicy(ctx, seat, Simple)
}

// PlayPolicy plays the seat until the match ends from what its session
// pushes, each move chosen by policy from the options and the seat's view
// at their version, and returns the seat's last view. A move the game
// refused for having been overtaken (Overtaken) is told to the policy when
// it is a RefusalObserver, and play goes on from the next options; any
// other refusal is returned. Against a server without PlayGame it plays
// from the seat's watch, asking for the legal moves and the view.
func PlayPolicy(ctx context.Context, seat *ramino.Seat, policy Policy) (*raminov1.GameView, error) {
	sess, err := seat.Session(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	observer, _ := policy.(RefusalObserver)
	chosen := map[string]*raminov1.SeatOptions{} // by request id: told back with a refusal
	for {
		msg, err := sess.Recv()
		if errors.Is(err, io.EOF) {
			return seat.LastView, nil
		}
		if ramino.Code(err) == codes.Unimplemented {
			return playWatch(ctx, seat, policy)
		}
		if err != nil {
			return nil, err
		}
		options := msg.GetOptions()
		if answer := msg.GetAnswer(); answer != nil {
			from := chosen[answer.GetRequestId()]
			delete(chosen, answer.GetRequestId())
			if refused := ramino.AnswerError(answer); refused != nil {
				if !Overtaken(refused) {
					return nil, refused
				}
				if observer != nil && from != nil {
					observer.Refused(refused, from)
				}
				continue
			}
			options = answer.GetResult().GetOptions()
			if answer.GetResult().GetView().GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED {
				return seat.LastView, nil
			}
		}
		if e := msg.GetEvent(); e != nil && (e.GetMatchEnded() != nil || e.GetGameEnded() != nil) {
			return seat.View(ctx)
		}
		if len(options.GetMoves()) == 0 {
			continue
		}
		if move := policy.Choose(options, seat.LastView); move != nil {
			id, err := sess.Send(move, ramino.ExpectVersion(options.GetVersion()))
			if err != nil {
				return nil, err
			}
			chosen[id] = options
		}
	}
}

// playWatch is PlayPolicy against a server without PlayGame: on each item
// of the seat's watch, the seat's moves while it has any, chosen by policy
// from GetLegalMoves and GetGame.
func playWatch(ctx context.Context, seat *ramino.Seat, policy Policy) (*raminov1.GameView, error) {
	observer, _ := policy.(RefusalObserver)
	w := seat.Watch(ctx)
	for _, err := range w.All() {
		if err != nil {
			return nil, err
		}
		for {
			legal, err := seat.LegalMoves(ctx)
			if err != nil {
				return nil, err
			}
			if len(legal.GetMoves()) == 0 {
				break
			}
			view, err := seat.View(ctx)
			if err != nil {
				return nil, err
			}
			options := legal.GetOptions()
			move := policy.Choose(options, view)
			if move == nil {
				break
			}
			_, err = seat.Play(ctx, move, ramino.ExpectVersion(legal.GetVersion()))
			if err != nil && !Overtaken(err) {
				return nil, err
			}
			if err != nil && observer != nil {
				observer.Refused(err, options)
			}
		}
	}
	return seat.View(ctx)
}
