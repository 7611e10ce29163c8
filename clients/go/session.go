package ramino

import (
	"context"
	"errors"
	"io"
	"sync"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc/status"
)

// Session is a seat's PlayGame stream: its moves go out with Send, and
// Recv brings, in version order, each move's answer (by request id), every
// event the seat may see, and the seat's options (SeatOptions) whenever the
// turn comes to it or leaves it. A refused move is an answer carrying its
// google.rpc.Status; the session stays open. Options pushed with moves carry
// the seat's view at their version (SeatOptions.View), which Recv keeps as
// the seat's LastView, as it keeps a snapshot and an answer's view.
//
// A stream the server drains or loses is opened again after the last
// version received, with the moves not yet answered sent again under their
// request ids and named in the start (PlayGameStart.resend): the server
// answers each once (a move played before the loss with its first answer,
// in place of its events) and pushes no options before those answers, so
// Recv misses and repeats nothing across it with no filtering here. A
// Session is used from one goroutine at a time for Send and one for Recv.
type Session struct {
	ctx  context.Context
	seat *Seat

	mu         sync.Mutex
	stream     raminov1.GameService_PlayGameClient
	cancel     context.CancelFunc
	last       *int64
	unanswered []pending
	closedSend bool
	ended      bool
	reconnects int
}

// Session opens this seat's session; afterVersion resumes after a version
// (nil: start with a snapshot).
func (s *Seat) Session(ctx context.Context, afterVersion *int64) (*Session, error) {
	x := &Session{ctx: ctx, seat: s, last: afterVersion}
	if _, err := x.open(); err != nil {
		return nil, err
	}
	return x, nil
}

// LastVersion is the version of the last event or answer received (false
// before any).
func (x *Session) LastVersion() (int64, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.last == nil {
		return 0, false
	}
	return *x.last, true
}

// Reconnects is how many times the stream was opened again.
func (x *Session) Reconnects() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.reconnects
}

// pending is a move sent and not yet answered.
type pending struct {
	id      string
	request *raminov1.PlayGameRequest
}

// open is the session's stream, opened when there is none: its start
// (after the last version received), then the moves not yet answered.
func (x *Session) open() (raminov1.GameService_PlayGameClient, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stream != nil {
		return x.stream, nil
	}
	ctx, cancel := context.WithCancel(x.ctx)
	stream, err := x.seat.client.game.PlayGame(x.seat.ctx(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	// Options with their hint (and, pushed with moves, the seat's view) and
	// answers with the mover's view: what the session's callers read (the
	// server sends none of them unless asked). The moves sent again are
	// named: each is answered once.
	start := &raminov1.PlayGameStart{
		Name: x.seat.Name, AfterVersion: x.last, Hints: true, AnswerViews: true, OptionViews: true,
	}
	requests := []*raminov1.PlayGameRequest{{Message: &raminov1.PlayGameRequest_Start{Start: start}}}
	for _, p := range x.unanswered {
		start.Resend = append(start.Resend, p.id)
		requests = append(requests, p.request)
	}
	for _, r := range requests {
		if err := stream.Send(r); err != nil {
			break // the stream's end comes from Recv
		}
	}
	if x.closedSend {
		_ = stream.CloseSend()
	}
	x.stream, x.cancel = stream, cancel
	return stream, nil
}

func (x *Session) drop(stream raminov1.GameService_PlayGameClient) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stream == stream && x.cancel != nil {
		x.cancel()
		x.stream, x.cancel = nil, nil
	}
}

// Send sends move (WithRequestID and ExpectVersion as for Seat.Play) and
// returns its request id, which its answer carries.
func (x *Session) Send(move *raminov1.Move, opts ...CallOption) (string, error) {
	o := collect(opts)
	request, err := moveRequest(move, "", o.requestID, o.expectedVersion)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	x.unanswered = append(x.unanswered, pending{o.requestID, request})
	x.mu.Unlock()
	stream, err := x.open()
	if err != nil {
		return o.requestID, nil // Recv opens it again, sending the move
	}
	// io.EOF: the stream ended under the send; Recv opens another and sends
	// the move again.
	if err := stream.Send(request); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return o.requestID, nil
}

// answered takes a move's answer off the unanswered list.
func (x *Session) answered(id string) {
	for i, p := range x.unanswered {
		if p.id == id {
			x.unanswered = append(x.unanswered[:i], x.unanswered[i+1:]...)
			return
		}
	}
}

// take keeps what msg tells: the moves it answers, the last version, the end.
func (x *Session) take(msg *raminov1.PlayGameResponse) {
	x.mu.Lock()
	defer x.mu.Unlock()
	v := msg.GetVersion()
	switch p := msg.GetPayload().(type) {
	case *raminov1.PlayGameResponse_Event:
		v = p.Event.GetVersion()
		x.ended = x.ended || p.Event.GetMatchEnded() != nil || p.Event.GetGameEnded() != nil
		x.seat.keep(msg.GetOptions().GetView())
	case *raminov1.PlayGameResponse_Answer:
		x.answered(p.Answer.GetRequestId())
		r := p.Answer.GetResult()
		if r == nil {
			return
		}
		x.seat.keep(r.GetView())
		v = r.GetView().GetVersion()
		x.ended = x.ended || r.GetView().GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED
	case *raminov1.PlayGameResponse_Snapshot:
		x.ended = x.ended || p.Snapshot.GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED
		x.seat.keep(p.Snapshot)
	default: // options alone
		x.seat.keep(msg.GetOptions().GetView())
		return
	}
	if x.last == nil || v > *x.last {
		x.last = &v
	}
}

func (x *Session) done() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.unanswered) == 0 && (x.ended || x.closedSend)
}

// Recv is the session's next message (io.EOF once it has ended: the match
// is over or CloseSend was called, and every move is answered).
func (x *Session) Recv() (*raminov1.PlayGameResponse, error) {
	next := x.seat.client.cfg.retry.delays()
	for {
		stream, err := x.open()
		var failure error
		if err == nil {
			msg, rerr := stream.Recv()
			switch {
			case rerr == nil:
				x.take(msg)
				return msg, nil
			case errors.Is(rerr, io.EOF):
				x.drop(stream)
				if x.done() {
					return nil, io.EOF
				}
				// the server is draining: open again after the last version
			default:
				err = rerr
			}
		}
		if err != nil {
			x.drop(stream)
			if x.ctx.Err() != nil {
				return nil, errorFrom(x.ctx, err)
			}
			failure = errorFrom(x.ctx, err)
			var e *Error
			if !errors.As(failure, &e) || !watchResumable(e) {
				return nil, failure
			}
		}
		delay, ok := next()
		if !ok {
			if failure == nil {
				failure = ErrUnavailable
			}
			return nil, failure
		}
		x.mu.Lock()
		x.reconnects++
		x.mu.Unlock()
		if err := sleep(x.ctx, delay); err != nil {
			return nil, errorFrom(x.ctx, err)
		}
	}
}

// CloseSend tells the server no more moves come: the session ends once
// they are answered.
func (x *Session) CloseSend() error {
	x.mu.Lock()
	x.closedSend = true
	stream := x.stream
	x.mu.Unlock()
	if stream == nil {
		return nil
	}
	return stream.CloseSend()
}

// Close ends the session at once.
func (x *Session) Close() {
	x.mu.Lock()
	cancel := x.cancel
	x.stream, x.cancel = nil, nil
	x.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// AnswerError is the error of a refused move's answer, an *Error as the
// unary call would return it (nil for an answer with a result).
func AnswerError(answer *raminov1.MoveAnswer) error {
	e := answer.GetError()
	if e == nil {
		return nil
	}
	return errorFrom(context.Background(), status.ErrorProto(e))
}
