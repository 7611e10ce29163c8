package ramino

import (
	"context"
	"errors"
	"io"
	"iter"
	"sync"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc/codes"
)

// WatchOption tunes a Watch.
type WatchOption func(*watchOptions)

type watchOptions struct {
	after     *int64
	snapshot  bool
	keepGoing bool
}

// AfterVersion resumes after this version (no snapshot first, unless WithSnapshot).
func AfterVersion(v int64) WatchOption { return func(o *watchOptions) { o.after = &v } }

// WithSnapshot starts with a full snapshot even when resuming.
func WithSnapshot() WatchOption { return func(o *watchOptions) { o.snapshot = true } }

// PastTheEnd keeps the watch open after the match has ended (by default it
// ends there).
func PastTheEnd() WatchOption { return func(o *watchOptions) { o.keepGoing = true } }

// Watch is the live feed of a game: each item is a snapshot (the game's
// view) or an event, with the game's version after it.
//
// Without AfterVersion it starts with a snapshot, then yields each event.
// When the stream drops (the server restarts, the network fails) it
// reconnects and resumes after the last version it yielded, so no event is
// missed or yielded twice; a resume point the server no longer has comes
// back as a snapshot. It ends (io.EOF from Next) once the match has ended,
// unless PastTheEnd. Close, or cancelling its context, ends it.
type Watch struct {
	ctx    context.Context
	client *Client
	name   string
	token  string
	opts   watchOptions

	mu     sync.Mutex
	stream raminov1.GameService_WatchGameClient
	cancel context.CancelFunc
	closed bool

	last       *int64
	ended      bool
	reconnects int
	// batch holds the events of a batch received, after the one handed out.
	batch []*raminov1.WatchGameResponse
}

// Watch is the game's events as a spectator sees them.
func (c *Client) Watch(ctx context.Context, game string, opts ...WatchOption) *Watch {
	return newWatch(ctx, c, GameName(game), "", opts)
}

func newWatch(ctx context.Context, c *Client, name, token string, opts []WatchOption) *Watch {
	w := &Watch{ctx: ctx, client: c, name: name, token: token}
	for _, o := range opts {
		o(&w.opts)
	}
	return w
}

// LastVersion is the version of the last item yielded (false before any).
func (w *Watch) LastVersion() (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		return 0, false
	}
	return *w.last, true
}

// Reconnects counts the streams opened again after one dropped.
func (w *Watch) Reconnects() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reconnects
}

// Close ends the watch; it may be called from any goroutine.
func (w *Watch) Close() {
	w.mu.Lock()
	w.closed = true
	cancel := w.cancel
	w.stream, w.cancel = nil, nil
	w.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// request goes on after the last item yielded (the first: from AfterVersion,
// with a snapshot when asked), the events several to a message (fewer
// messages for the server to send when many watch); what was left of a
// batch comes again.
func (w *Watch) request() *raminov1.WatchGameRequest {
	w.batch = nil
	if w.last == nil {
		return &raminov1.WatchGameRequest{Name: w.name, AfterVersion: w.opts.after, Snapshot: w.opts.snapshot, BatchEvents: true}
	}
	after := *w.last
	return &raminov1.WatchGameRequest{Name: w.name, AfterVersion: &after, BatchEvents: true}
}

// receive is the next message of the stream, a batch's events one at a time.
func (w *Watch) receive(stream raminov1.GameService_WatchGameClient) (*raminov1.WatchGameResponse, error) {
	w.mu.Lock()
	if len(w.batch) > 0 {
		item := w.batch[0]
		w.batch = w.batch[1:]
		w.mu.Unlock()
		return item, nil
	}
	w.mu.Unlock()
	item, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	if events := item.GetEvents().GetEvents(); len(events) > 0 {
		items := Split(item)
		w.mu.Lock()
		w.batch = items[1:]
		w.mu.Unlock()
		return items[0], nil
	}
	return item, nil
}

// Split is the messages of one event each that a batch (the events payload)
// carries, in order; any other message as it is.
func Split(item *raminov1.WatchGameResponse) []*raminov1.WatchGameResponse {
	events := item.GetEvents().GetEvents()
	if len(events) == 0 {
		return []*raminov1.WatchGameResponse{item}
	}
	items := make([]*raminov1.WatchGameResponse, len(events))
	for i, e := range events {
		items[i] = &raminov1.WatchGameResponse{Version: e.GetVersion(), Payload: &raminov1.WatchGameResponse_Event{Event: e}}
	}
	return items
}

func (w *Watch) open() (raminov1.GameService_WatchGameClient, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, io.EOF
	}
	if w.stream != nil {
		return w.stream, nil
	}
	ctx, cancel := context.WithCancel(w.ctx)
	stream, err := w.client.game.WatchGame(withToken(ctx, w.token), w.request())
	if err != nil {
		cancel()
		return nil, err
	}
	w.stream, w.cancel = stream, cancel
	return stream, nil
}

func (w *Watch) drop() {
	w.mu.Lock()
	cancel := w.cancel
	w.stream, w.cancel = nil, nil
	w.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// endsMatch: nothing can follow item (the match, or the game, has ended).
func endsMatch(item *raminov1.WatchGameResponse) bool {
	if s := item.GetSnapshot(); s != nil {
		return s.GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED
	}
	e := item.GetEvent()
	return e.GetMatchEnded() != nil || e.GetGameEnded() != nil
}

// Next is the next item; io.EOF once the watch has ended.
func (w *Watch) Next() (*raminov1.WatchGameResponse, error) {
	next := w.client.cfg.retry.delays()
	for {
		stream, err := w.open()
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		var failure error
		if err == nil {
			item, rerr := w.receive(stream)
			switch {
			case rerr == nil:
				w.mu.Lock()
				switch {
				case item.GetSnapshot() != nil || w.last == nil || item.GetVersion() == *w.last+1:
					v := item.GetVersion()
					w.last = &v
					w.ended = endsMatch(item)
					done := w.ended && !w.opts.keepGoing
					w.mu.Unlock()
					if done {
						w.Close()
					}
					return item, nil
				case item.GetVersion() <= *w.last:
					w.mu.Unlock()
					continue // yielded before a reconnect
				}
				w.mu.Unlock()
				// a gap: ask again from what was yielded
			case errors.Is(rerr, io.EOF):
				if w.ended {
					w.Close()
					return nil, io.EOF
				}
				// otherwise the server is going away (draining): resume
			default:
				err = rerr
			}
		}
		if err != nil {
			if w.isClosed() {
				return nil, io.EOF
			}
			if w.ctx.Err() != nil {
				return nil, errorFrom(w.ctx, err)
			}
			failure = errorFrom(w.ctx, err)
			var e *Error
			if !errors.As(failure, &e) || !watchResumable(e) {
				w.drop()
				return nil, failure
			}
		}
		w.drop()
		delay, ok := next()
		if !ok {
			if failure == nil {
				failure = &Error{Code: codes.Unavailable, Reason: "UNAVAILABLE", Message: "stream closed", Metadata: map[string]string{}}
			}
			return nil, failure
		}
		w.mu.Lock()
		w.reconnects++
		w.mu.Unlock()
		if err := sleep(w.ctx, delay); err != nil {
			return nil, errorFrom(w.ctx, err)
		}
	}
}

func (w *Watch) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// All yields every item until the watch ends; an error is yielded last.
// Breaking out of the loop closes the watch.
//
//	for item, err := range client.Watch(ctx, game).All() { ... }
func (w *Watch) All() iter.Seq2[*raminov1.WatchGameResponse, error] {
	return func(yield func(*raminov1.WatchGameResponse, error) bool) {
		defer w.Close()
		for {
			item, err := w.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(item, err) || err != nil {
				return
			}
		}
	}
}
