package ramino

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"iter"
	"math"
	mrand "math/rand/v2"
	"strings"
	"time"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Metadata keys the server reads.
const (
	// CallerKeyHeader scopes the client's request ids on CreateGame and JoinGame.
	CallerKeyHeader = "ramino-caller-key"
	// PlayerTokenHeader carries the player token of the host's auth.
	PlayerTokenHeader = "ramino-player-token"
	// AuthorizationHeader carries "Bearer <seat or creator token>".
	AuthorizationHeader = "authorization"
)

// RetryPolicy says how calls are retried on UNAVAILABLE (the server
// restarting, a dropped connection) or a CANCELLED the server sent (a server
// that stops cancels the calls it had not started). Every call is safe to
// repeat: reads, and writes with their request id, which a retry keeps, so
// the server applies a move once and answers a retry with its first answer.
type RetryPolicy struct {
	// Attempts in all, the first included; a watch counts failures in a row.
	Attempts int
	// InitialBackoff is the wait before the second attempt.
	InitialBackoff time.Duration
	// MaxBackoff caps each wait.
	MaxBackoff time.Duration
	// Multiplier grows the wait after each attempt.
	Multiplier float64
	// Jitter randomises each wait by up to this fraction, either way.
	Jitter float64
}

// DefaultRetry: 10 attempts, waits from 100 ms doubling up to 2 s.
var DefaultRetry = RetryPolicy{
	Attempts: 10, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second,
	Multiplier: 2, Jitter: 0.2,
}

// NoRetry makes each call once.
var NoRetry = RetryPolicy{Attempts: 1}

// delays yields the waits before the 2nd, 3rd ... attempts.
func (p RetryPolicy) delays() func() (time.Duration, bool) {
	left := p.Attempts - 1
	delay := float64(p.InitialBackoff)
	return func() (time.Duration, bool) {
		if left <= 0 {
			return 0, false
		}
		left--
		d := delay * (1 + p.Jitter*(2*mrand.Float64()-1))
		next := delay * math.Max(p.Multiplier, 1)
		delay = math.Min(next, float64(p.MaxBackoff))
		return time.Duration(d), true
	}
}

// RetryEvent is told to an OnRetry hook before a call is made again.
type RetryEvent struct {
	// Method is the gRPC method's full name ("/ramino.v1.GameService/Discard").
	Method string
	// Attempt is the number of the attempt that failed, from 1.
	Attempt int
	// Err is the failure of that attempt.
	Err error
}

type config struct {
	timeout     time.Duration
	retry       RetryPolicy
	callerKey   string
	playerToken string
	creds       credentials.TransportCredentials
	balancing   string
	dialOptions []grpc.DialOption
	onRetry     func(RetryEvent)
	perConn     int
}

// Option configures a Client.
type Option func(*config)

// WithTimeout bounds each unary call (not a watch); 0 for none. Default 10 s.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithRetry sets the retry policy (DefaultRetry by default; NoRetry for none).
func WithRetry(p RetryPolicy) Option { return func(c *config) { c.retry = p } }

// WithCallerKey sets the secret that scopes this client's request ids on
// CreateGame and JoinGame (a random one per client by default; give the same
// one to retry such a call from another client).
func WithCallerKey(key string) Option { return func(c *config) { c.callerKey = key } }

// WithPlayerToken sends the player token of the host's auth on every call,
// for a server that knows players.
func WithPlayerToken(token string) Option { return func(c *config) { c.playerToken = token } }

// WithTransportCredentials sets TLS (insecure by default).
func WithTransportCredentials(creds credentials.TransportCredentials) Option {
	return func(c *config) { c.creds = creds }
}

// WithLoadBalancing names gRPC's load-balancing policy ("round_robin" by
// default, spreading calls over every address a target resolves to;
// "pick_first" for one connection).
func WithLoadBalancing(policy string) Option { return func(c *config) { c.balancing = policy } }

// WithDialOptions adds gRPC dial options.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(c *config) { c.dialOptions = append(c.dialOptions, opts...) }
}

// WithStreamsPerConnection sets how many streams (watches, sessions, ticket
// waits) the client puts on one connection before it dials another
// (DefaultStreamsPerConnection by default); keep it below the server's
// --max-streams-per-connection.
func WithStreamsPerConnection(n int) Option { return func(c *config) { c.perConn = n } }

// OnRetry calls hook before each retry of a unary call (for logs or metrics).
func OnRetry(hook func(RetryEvent)) Option { return func(c *config) { c.onRetry = hook } }

// Client is a connection to a Ramino server, safe for concurrent use. Its
// streams spread over more connections as they fill (see
// WithStreamsPerConnection), so one client may play any number of seats.
type Client struct {
	conns *conns
	game  raminov1.GameServiceClient
	rules raminov1.RulesServiceClient
	match raminov1.MatchServiceClient
	cfg   config
}

// NewClient connects (lazily, as grpc.NewClient does) to target, such as
// "localhost:50051", "dns:///ramino-grpc.games:50051" or
// "ipv4:10.0.0.1:50051,10.0.0.2:50051".
func NewClient(target string, opts ...Option) (*Client, error) {
	cfg := config{
		timeout: 10 * time.Second, retry: DefaultRetry, balancing: "round_robin",
		perConn: DefaultStreamsPerConnection,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.callerKey == "" {
		cfg.callerKey = NewCallerKey()
	}
	if cfg.creds == nil {
		cfg.creds = insecure.NewCredentials()
	}
	c := &Client{cfg: cfg}
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(cfg.creds),
		// gRPC's own reconnect backoff grows to 2 min; a game client wants to
		// be back within a retry's budget once the server is.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second,
			},
			MinConnectTimeout: 2 * time.Second,
		}),
		grpc.WithChainUnaryInterceptor(c.unaryInterceptor),
		grpc.WithChainStreamInterceptor(c.streamInterceptor),
	}
	if cfg.balancing != "" {
		dial = append(dial,
			grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"`+cfg.balancing+`":{}}]}`),
			grpc.WithDisableServiceConfig())
	}
	dial = append(dial, cfg.dialOptions...)
	conns, err := newConns(cfg.perConn, func() (*grpc.ClientConn, error) {
		return grpc.NewClient(target, dial...)
	})
	if err != nil {
		return nil, err
	}
	c.conns = conns
	c.game = raminov1.NewGameServiceClient(conns)
	c.rules = raminov1.NewRulesServiceClient(conns)
	c.match = raminov1.NewMatchServiceClient(conns)
	return c, nil
}

// Close closes the client's connections.
func (c *Client) Close() error { return c.conns.close() }

// CallerKey is the key that scopes this client's request ids.
func (c *Client) CallerKey() string { return c.cfg.callerKey }

// GameService is the generated stub over this client's connection, with its
// identity, timeout and retries, for calls the ergonomic layer leaves out.
func (c *Client) GameService() raminov1.GameServiceClient { return c.game }

// RulesService is the generated stub of the stateless rules.
func (c *Client) RulesService() raminov1.RulesServiceClient { return c.rules }

func (c *Client) identity(ctx context.Context) context.Context {
	kv := []string{CallerKeyHeader, c.cfg.callerKey}
	if c.cfg.playerToken != "" {
		kv = append(kv, PlayerTokenHeader, c.cfg.playerToken)
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

// AuthContext is ctx carrying a seat or creator token in the authorization
// metadata ("Bearer <token>"), for calls through GameService().
func AuthContext(ctx context.Context, token string) context.Context { return withToken(ctx, token) }

// withToken is ctx carrying a seat or creator token.
func withToken(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, AuthorizationHeader, "Bearer "+token)
}

// retryable: a failure after which the same request is sent again.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false // the caller's own cancel or deadline
	}
	code := status.Code(err)
	return code == codes.Unavailable || code == codes.Canceled
}

func (c *Client) unaryInterceptor(
	ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption,
) error {
	ctx = c.identity(ctx)
	next := c.cfg.retry.delays()
	for attempt := 1; ; attempt++ {
		callCtx, cancel := ctx, context.CancelFunc(func() {})
		if c.cfg.timeout > 0 {
			callCtx, cancel = context.WithTimeout(ctx, c.cfg.timeout)
		}
		err := invoker(callCtx, method, req, reply, cc, opts...)
		cancel()
		if err == nil {
			return nil
		}
		if retryable(ctx, err) && cc.GetState() != connectivity.Shutdown {
			if delay, ok := next(); ok {
				if c.cfg.onRetry != nil {
					c.cfg.onRetry(RetryEvent{Method: method, Attempt: attempt, Err: err})
				}
				if sleep(ctx, delay) == nil {
					continue
				}
			}
		}
		return errorFrom(ctx, err)
	}
}

func (c *Client) streamInterceptor(
	ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption,
) (grpc.ClientStream, error) {
	return streamer(c.identity(ctx), desc, cc, method, opts...)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// NewRequestID is a fresh request id (random, 128 bits).
func NewRequestID() string { return randomString(16) }

// NewCallerKey is a fresh caller key (random, 256 bits).
func NewCallerKey() string { return randomString(32) }

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// GameName is "games/{id}" from a name or a bare id.
func GameName(game string) string {
	if strings.HasPrefix(game, "games/") {
		return game
	}
	return "games/" + game
}

// SeatSpec is one seat asked for at creation: a person (Person) or a bot (Bot).
type SeatSpec = *raminov1.SeatConfig

// Person is a seat for a person; name "" lets anyone take it.
func Person(name string) SeatSpec { return &raminov1.SeatConfig{PlayerName: name} }

// Bot is a seat the server's bot of this level plays.
func Bot(level raminov1.BotLevel) SeatSpec { return &raminov1.SeatConfig{Bot: level} }

// Greedy is a seat for the server's greedy bot.
func Greedy() SeatSpec { return Bot(raminov1.BotLevel_BOT_LEVEL_GREEDY) }

// Random is a seat for the server's random bot.
func Random() SeatSpec { return Bot(raminov1.BotLevel_BOT_LEVEL_RANDOM) }

// GameSpec is what CreateGame asks for.
type GameSpec struct {
	// Variant is the preset: "ramino51", "rami51", "rummy" or "gin".
	Variant string
	// Seats in turn order (Person or Bot); bot seats are filled at once.
	Seats []SeatSpec
	// Overrides are the parameters that differ from the preset (nil: none).
	Overrides *raminov1.VariantParameters
	// TurnTimerSeconds per turn; 0 for no limit.
	TurnTimerSeconds int32
	// SpectatorsDisabled: only seats may watch the game.
	SpectatorsDisabled bool
	// Private: never listed, no spectators; joined with the InviteCode of
	// the Game returned (JoinInvite), which the creator shares.
	Private bool
	// Rated: the game's end changes its players' ratings, as quick play's
	// do (a server that knows players; no bot seat; a turn timer).
	Rated bool
	// QuickPlay: quick-play tickets of the game's queue may take its open
	// seats (a public game only).
	QuickPlay bool
	// RequestID makes a retried CreateGame return the first game ("" for a
	// fresh one); scoped by the client's caller key.
	RequestID string
}

// Game is a game in the lobby, with the creator token and invite code
// CreateGame returns (empty elsewhere).
type Game struct {
	*raminov1.Game
	// CreatorToken cancels the game (Client.CancelGame).
	CreatorToken string
	// InviteCode of a private game: share it (or InviteLink's link); it
	// opens the game (JoinInvite) until the game is dealt.
	InviteCode string
}

// Private reports whether the game is never listed and joined by invite only.
func (g *Game) Private() bool {
	return g.GetVisibility() == raminov1.Visibility_VISIBILITY_PRIVATE
}

// ID is the game's id (its name without "games/").
func (g *Game) ID() string { return strings.TrimPrefix(g.GetName(), "games/") }

// CreateGame creates a game; the people then join with JoinGame.
func (c *Client) CreateGame(ctx context.Context, spec GameSpec) (*Game, error) {
	id := spec.RequestID
	if id == "" {
		id = NewRequestID()
	}
	visibility := raminov1.Visibility_VISIBILITY_PUBLIC
	if spec.Private {
		visibility = raminov1.Visibility_VISIBILITY_PRIVATE
	}
	resp, err := c.game.CreateGame(ctx, &raminov1.CreateGameRequest{
		Variant:            spec.Variant,
		Overrides:          spec.Overrides,
		Seats:              spec.Seats,
		TurnTimerSeconds:   spec.TurnTimerSeconds,
		RequestId:          id,
		SpectatorsDisabled: spec.SpectatorsDisabled,
		Visibility:         visibility,
		Rated:              spec.Rated,
		QuickPlay:          spec.QuickPlay,
	})
	if err != nil {
		return nil, err
	}
	return &Game{Game: resp.GetGame(), CreatorToken: resp.GetCreatorToken(), InviteCode: resp.GetInviteCode()}, nil
}

// inviteMark is how a link carries an invite code: BASE#invite=CODE (or ?invite=).
const inviteMark = "invite="

// InviteLink is the link that opens a private game's invite:
// baseURL#invite=CODE (the web page joins the game it opens).
func InviteLink(baseURL, inviteCode string) string {
	base, _, _ := strings.Cut(baseURL, "#")
	return base + "#" + inviteMark + inviteCode
}

// InviteCodeOf is the invite code in codeOrLink: a code as it is, or the
// code of a link made by InviteLink (#invite= or ?invite=).
func InviteCodeOf(codeOrLink string) string {
	text := strings.TrimSpace(codeOrLink)
	for _, mark := range []string{"#", "?", "&"} {
		if i := strings.Index(text, mark+inviteMark); i >= 0 {
			code, _, _ := strings.Cut(text[i+len(mark)+len(inviteMark):], "&")
			return code
		}
	}
	return text
}

// JoinInvite takes a seat (the first open one unless AtSeat) of the private
// game an invite code, or its link, opens. A code that opens nothing is
// NotFound with reason INVITE_NOT_VALID, whether or not its game exists.
func (c *Client) JoinInvite(ctx context.Context, inviteCode, playerName string, opts ...CallOption) (*Seat, error) {
	o := collect(opts)
	resp, err := c.game.JoinGame(ctx, &raminov1.JoinGameRequest{
		InviteCode: InviteCodeOf(inviteCode), PlayerName: playerName, Seat: o.seat, RequestId: o.requestID,
	})
	if err != nil {
		return nil, err
	}
	view := resp.GetView()
	return &Seat{client: c, Name: view.GetName(), Number: resp.GetSeat(), Token: resp.GetSeatToken(), LastView: view}, nil
}

// CallOption tunes one join or move.
type CallOption func(*callOptions)

type callOptions struct {
	requestID       string
	expectedVersion *int64
	seat            *int32
}

func collect(opts []CallOption) callOptions {
	var o callOptions
	for _, f := range opts {
		f(&o)
	}
	if o.requestID == "" {
		o.requestID = NewRequestID()
	}
	return o
}

// WithRequestID sends this request id (a fresh one by default): the same id
// again returns the first answer and applies nothing twice.
func WithRequestID(id string) CallOption { return func(o *callOptions) { o.requestID = id } }

// ExpectVersion refuses the move with ABORTED if the game is no longer at
// this version.
func ExpectVersion(v int64) CallOption { return func(o *callOptions) { o.expectedVersion = &v } }

// AtSeat joins this seat rather than the first open one.
func AtSeat(seat int32) CallOption { return func(o *callOptions) { o.seat = &seat } }

// JoinGame takes a seat (the first open one unless AtSeat); the deal
// happens once every seat is taken.
func (c *Client) JoinGame(ctx context.Context, game, playerName string, opts ...CallOption) (*Seat, error) {
	o := collect(opts)
	resp, err := c.game.JoinGame(ctx, &raminov1.JoinGameRequest{
		Name: GameName(game), PlayerName: playerName, Seat: o.seat, RequestId: o.requestID,
	})
	if err != nil {
		return nil, err
	}
	view := resp.GetView()
	return &Seat{client: c, Name: view.GetName(), Number: resp.GetSeat(), Token: resp.GetSeatToken(), LastView: view}, nil
}

// SeatFromToken is the seat a saved token acts for (to come back to a game).
func (c *Client) SeatFromToken(ctx context.Context, game, token string) (*Seat, error) {
	view, err := c.view(ctx, GameName(game), token)
	if err != nil {
		return nil, err
	}
	if view.Seat == nil {
		return nil, &Error{Code: codes.PermissionDenied, Reason: ReasonSpectatorToken,
			Message: "the server sees this token as a spectator", Metadata: map[string]string{}}
	}
	return &Seat{client: c, Name: view.GetName(), Number: view.GetSeat(), Token: token, LastView: view}, nil
}

// SeatOf is the seat a saved token acts for, without a call: the server
// checks the token on each of the seat's calls.
func (c *Client) SeatOf(game string, number int32, token string) *Seat {
	return &Seat{client: c, Name: GameName(game), Number: number, Token: token}
}

// GetGame is the game as a spectator sees it.
func (c *Client) GetGame(ctx context.Context, game string) (*raminov1.GameView, error) {
	return c.view(ctx, GameName(game), "")
}

func (c *Client) view(ctx context.Context, name, token string) (*raminov1.GameView, error) {
	resp, err := c.game.GetGame(withToken(ctx, token), &raminov1.GetGameRequest{Name: name})
	if err != nil {
		return nil, err
	}
	return resp.GetView(), nil
}

// CancelGame ends game as cancelled, with the creator token of CreateGame;
// it returns the final view (a spectator's).
func (c *Client) CancelGame(ctx context.Context, game, creatorToken string) (*raminov1.GameView, error) {
	resp, err := c.game.CancelGame(withToken(ctx, creatorToken), &raminov1.CancelGameRequest{Name: GameName(game)})
	if err != nil {
		return nil, err
	}
	return resp.GetView(), nil
}

// ListFilter selects games of the lobby; the zero value selects all.
type ListFilter struct {
	Variant       string
	OpenSeatsOnly bool
	Status        raminov1.GameStatus
	// PageSize per call (50 when 0).
	PageSize int32
}

// ListGames yields every game that matches, page after page; it stops at
// the first error, yielded last.
func (c *Client) ListGames(ctx context.Context, f ListFilter) iter.Seq2[*raminov1.Game, error] {
	return func(yield func(*raminov1.Game, error) bool) {
		size := f.PageSize
		if size == 0 {
			size = 50
		}
		token := ""
		for {
			page, err := c.game.ListGames(ctx, &raminov1.ListGamesRequest{
				PageSize: size, PageToken: token, Variant: f.Variant,
				OpenSeatsOnly: f.OpenSeatsOnly, Status: f.Status,
			})
			if err != nil {
				yield(nil, err)
				return
			}
			for _, g := range page.GetGames() {
				if !yield(g, nil) {
					return
				}
			}
			token = page.GetNextPageToken()
			if token == "" {
				return
			}
		}
	}
}

// ValidateMeld says whether the cards (in notation, "QH KH AH" as
// []string{"QH","KH","AH"}), in this order, are a legal meld of variant.
func (c *Client) ValidateMeld(ctx context.Context, variant string, cards []string) (*raminov1.ValidateMeldResponse, error) {
	return c.rules.ValidateMeld(ctx, &raminov1.ValidateMeldRequest{Variant: variant, Cards: cards})
}

// AnalyzeHand is the best opening, the minimum deadwood, and the lay-offs
// and joker swaps of hand against table (melds in notation).
func (c *Client) AnalyzeHand(ctx context.Context, variant string, hand []string, table [][]string) (*raminov1.AnalyzeHandResponse, error) {
	req := &raminov1.AnalyzeHandRequest{Variant: variant, Hand: hand}
	for _, m := range table {
		req.Table = append(req.Table, &raminov1.MeldCodes{Cards: m})
	}
	return c.rules.AnalyzeHand(ctx, req)
}

// ListVariants is the variant presets with every parameter.
func (c *Client) ListVariants(ctx context.Context) ([]*raminov1.Variant, error) {
	resp, err := c.rules.ListVariants(ctx, &raminov1.ListVariantsRequest{})
	if err != nil {
		return nil, err
	}
	return resp.GetVariants(), nil
}

// ListBotLevels is the bot levels a person picks from, weakest first: how
// each plays, its time a decision on the server, and its rating on one
// scale for every level (Rating: mu - 3 sigma, from the server's arena of
// the levels).
func (c *Client) ListBotLevels(ctx context.Context) ([]*raminov1.BotLevelInfo, error) {
	resp, err := c.rules.ListBotLevels(ctx, &raminov1.ListBotLevelsRequest{})
	if err != nil {
		return nil, err
	}
	return resp.GetLevels(), nil
}
