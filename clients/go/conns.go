package ramino

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/grpc"
)

// DefaultStreamsPerConnection is how many streams (watches, sessions, ticket
// waits) a Client puts on one connection before it dials another. The server
// refuses a connection's streams past its --max-streams-per-connection (100
// by default) with TOO_MANY_STREAMS; half of it leaves room for the streams
// a client has closed and the server has not yet let go of.
const DefaultStreamsPerConnection = 50

// conns is where a Client's calls go: its unary calls on its first
// connection, each stream on the first connection with fewer than most
// streams open, dialed when all are full, so that no connection reaches the
// server's per-connection limit however many seats a process plays. (Each
// grpc.ClientConn has connections of its own: the counts are the client's.)
type conns struct {
	dial func() (*grpc.ClientConn, error)
	most int

	mu   sync.Mutex
	list []*grpc.ClientConn
	open []int
}

var _ grpc.ClientConnInterface = (*conns)(nil)

func newConns(most int, dial func() (*grpc.ClientConn, error)) (*conns, error) {
	if most < 1 {
		return nil, fmt.Errorf("ramino: streams per connection must be at least 1, not %d", most)
	}
	first, err := dial()
	if err != nil {
		return nil, err
	}
	return &conns{dial: dial, most: most, list: []*grpc.ClientConn{first}, open: []int{0}}, nil
}

// Invoke makes a unary call on the first connection.
func (p *conns) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return p.list[0].Invoke(ctx, method, args, reply, opts...)
}

// NewStream opens a stream on the first connection with room for it; its
// place is given back when gRPC finishes the stream.
func (p *conns) NewStream(
	ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption,
) (grpc.ClientStream, error) {
	i, conn, err := p.take()
	if err != nil {
		return nil, err
	}
	var once sync.Once
	giveBack := func() { once.Do(func() { p.giveBack(i) }) }
	opts = append(opts, grpc.OnFinish(func(error) { giveBack() }))
	stream, err := conn.NewStream(ctx, desc, method, opts...)
	if err != nil {
		giveBack()
		return nil, err
	}
	return stream, nil
}

// take counts a stream on the first connection with fewer than most open,
// dialing one when all are full.
func (p *conns) take() (int, *grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, n := range p.open {
		if n < p.most {
			p.open[i]++
			return i, p.list[i], nil
		}
	}
	conn, err := p.dial()
	if err != nil {
		return 0, nil, err
	}
	p.list = append(p.list, conn)
	p.open = append(p.open, 1)
	return len(p.list) - 1, conn, nil
}

func (p *conns) giveBack(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open[i]--
}

// streams is the number of streams open on each connection.
func (p *conns) streams() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.open...)
}

// close closes every connection.
func (p *conns) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, conn := range p.list {
		if err := conn.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
