package ramino

import (
	"context"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

// Session is a seat's PlayGame stream: its moves go out with Send, and
// Recv brings, in version order, each move's answer (by request id), every
// event the seat may see, and the seat's options (SeatOptions) whenever the
// turn comes to it or leaves it. A refused move is an answer carrying its
// google.rpc.Status; the session stays open. A Session is used from one
// goroutine at a time for Send and one for Recv.
type Session struct {
	seat   *Seat
	stream raminov1.GameService_PlayGameClient
	// LastVersion is the version of the last event or answer received:
	// reopen with it (Seat.Session) to miss and repeat nothing.
	LastVersion int64
}

// Session opens this seat's session; afterVersion resumes after a version
// (nil: start with a snapshot).
func (s *Seat) Session(ctx context.Context, afterVersion *int64) (*Session, error) {
	stream, err := s.client.game.PlayGame(s.ctx(ctx))
	if err != nil {
		return nil, err
	}
	start := &raminov1.PlayGameStart{Name: s.Name, AfterVersion: afterVersion}
	if err := stream.Send(&raminov1.PlayGameRequest{Message: &raminov1.PlayGameRequest_Start{Start: start}}); err != nil {
		return nil, err
	}
	sess := &Session{seat: s, stream: stream}
	if afterVersion != nil {
		sess.LastVersion = *afterVersion
	}
	return sess, nil
}

// Send sends move (WithRequestID and ExpectVersion as for Seat.Play) and
// returns its request id, which its answer carries.
func (x *Session) Send(move *raminov1.Move, opts ...CallOption) (string, error) {
	o := collect(opts)
	request, err := moveRequest(move, "", o.requestID, o.expectedVersion)
	if err != nil {
		return "", err
	}
	return o.requestID, x.stream.Send(request)
}

// Recv is the session's next message (io.EOF once it has ended).
func (x *Session) Recv() (*raminov1.PlayGameResponse, error) {
	msg, err := x.stream.Recv()
	if err != nil {
		return nil, err
	}
	switch p := msg.GetPayload().(type) {
	case *raminov1.PlayGameResponse_Event:
		x.LastVersion = p.Event.GetVersion()
	case *raminov1.PlayGameResponse_Snapshot:
		x.LastVersion = msg.GetVersion()
	case *raminov1.PlayGameResponse_Answer:
		if r := p.Answer.GetResult(); r != nil {
			x.LastVersion = max(x.LastVersion, r.GetView().GetVersion())
			x.seat.keep(r.GetView())
		}
	}
	return msg, nil
}

// CloseSend tells the server no more moves come: the session ends once
// they are answered.
func (x *Session) CloseSend() error { return x.stream.CloseSend() }
