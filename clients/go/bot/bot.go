// Package bot plays a seat of a Ramino game with a simple strategy chosen
// from the server's legal moves and hints: it draws from the stock, knocks
// (gin) with the hint's best knock, lays whatever melds and lay-offs the
// server proposes, and discards the card the hint suggests.
package bot

import (
	"context"
	"errors"
	"io"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
// pushes (its answers' and the pushed options: no GetLegalMoves), and
// returns the seat's last view; against a server without PlayGame it plays
// as Play does (unary moves and the watch).
func PlaySession(ctx context.Context, seat *ramino.Seat) (*raminov1.GameView, error) {
	sess, err := seat.Session(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	for {
		msg, err := sess.Recv()
		if errors.Is(err, io.EOF) {
			return seat.LastView, nil
		}
		if ramino.Code(err) == codes.Unimplemented {
			return Play(ctx, seat)
		}
		if err != nil {
			return nil, err
		}
		options := msg.GetOptions()
		if answer := msg.GetAnswer(); answer != nil {
			if e := answer.GetError(); e != nil {
				return nil, status.ErrorProto(e)
			}
			options = answer.GetResult().GetOptions()
			if answer.GetResult().GetView().GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED {
				return seat.LastView, nil
			}
		}
		if e := msg.GetEvent(); e != nil && (e.GetMatchEnded() != nil || e.GetGameEnded() != nil) {
			return seat.View(ctx)
		}
		if move := choose(options.GetMoves(), options.GetHint()); move != nil {
			if _, err := sess.Send(move, ramino.ExpectVersion(options.GetVersion())); err != nil {
				return nil, err
			}
		}
	}
}
