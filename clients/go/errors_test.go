package ramino_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// asError is err as an *ramino.Error, or fails the test.
func asError(t *testing.T, err error, code codes.Code, reason string) *ramino.Error {
	t.Helper()
	var e *ramino.Error
	if !errors.As(err, &e) {
		t.Fatalf("want %s %s, got %v", code, reason, err)
	}
	if e.Code != code || e.Reason != reason {
		t.Fatalf("want %s %s, got %s %s (%s)", code, reason, e.Code, e.Reason, e.Message)
	}
	if status.Code(err) != code || ramino.Code(err) != code || ramino.Reason(err) != reason {
		t.Fatalf("status.Code, ramino.Code or ramino.Reason disagree with the error: %v", err)
	}
	return e
}

func TestRefusedMovesCarryTheRulesReason(t *testing.T) {
	srv := shared
	ctx := testCtx(t)
	client := dial(t, srv)
	_, waiting := twoPeople(t, ctx, client, "ramino51")
	_, err := waiting.DrawFromStock(ctx)
	e := asError(t, err, codes.FailedPrecondition, "NOT_YOUR_TURN")
	if e.Domain != "ramino.v1" || e.Message == "" {
		t.Errorf("domain %q message %q", e.Domain, e.Message)
	}
	if !errors.Is(err, ramino.ErrNotYourTurn) || !errors.Is(err, ramino.ErrMoveRejected) || errors.Is(err, ramino.ErrStaleVersion) {
		t.Errorf("errors.Is does not match the reason and code: %v", err)
	}
}

func TestAStaleExpectedVersionIsAborted(t *testing.T) {
	srv := shared
	ctx := testCtx(t)
	client := dial(t, srv)
	onTurn, _ := twoPeople(t, ctx, client, "ramino51")
	view, err := onTurn.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	card := view.GetHand()[0].GetId()
	_, err = onTurn.Discard(ctx, card, ramino.ExpectVersion(view.GetVersion()-1))
	e := asError(t, err, codes.Aborted, "VERSION_MISMATCH")
	expected, ok1 := e.Expected()
	actual, ok2 := e.Actual()
	if !ok1 || !ok2 || expected != view.GetVersion()-1 || actual != view.GetVersion() {
		t.Errorf("expected %d (%v), actual %d (%v); the game is at %d", expected, ok1, actual, ok2, view.GetVersion())
	}
	if !errors.Is(err, ramino.ErrStaleVersion) {
		t.Errorf("errors.Is(err, ErrStaleVersion) is false")
	}
	again, err := onTurn.View(ctx)
	if err != nil || again.GetVersion() != view.GetVersion() {
		t.Fatalf("the refused move changed the game: %v %v", again.GetVersion(), err)
	}
	result, err := onTurn.Discard(ctx, card, ramino.ExpectVersion(view.GetVersion()))
	if err != nil {
		t.Fatal(err)
	}
	if result.GetView().GetVersion() <= view.GetVersion() {
		t.Errorf("the discard did not move the game on")
	}
	for _, c := range result.GetView().GetHand() {
		if c.GetId() == card {
			t.Errorf("the discarded card is still in the hand")
		}
	}
}

func TestLookupsAndTokensAreRefusedWithTheirReason(t *testing.T) {
	srv := shared
	ctx := testCtx(t)
	client := dial(t, srv)
	onTurn, waiting := twoPeople(t, ctx, client, "ramino51")

	_, err := client.GetGame(ctx, "games/nosuchgame")
	asError(t, err, codes.NotFound, "GAME_NOT_FOUND")

	_, err = client.SeatFromToken(ctx, onTurn.Name, "not-a-token")
	asError(t, err, codes.Unauthenticated, "TOKEN_INVALID")

	other, err := client.CreateGame(ctx, ramino.GameSpec{Variant: "rummy", Seats: []ramino.SeatSpec{ramino.Person("carol"), ramino.Greedy()}})
	if err != nil {
		t.Fatal(err)
	}
	intruder, err := client.SeatFromToken(ctx, onTurn.Name, onTurn.Token)
	if err != nil {
		t.Fatal(err)
	}
	intruder.Name = other.GetName() // another game's token
	_, err = intruder.LegalMoves(ctx)
	asError(t, err, codes.PermissionDenied, "WRONG_GAME")

	_, err = onTurn.LayMelds(ctx, [][]int32{{}})
	asError(t, err, codes.InvalidArgument, "EMPTY_MELD")

	_, err = client.CreateGame(ctx, ramino.GameSpec{Variant: "ramino51"})
	var e *ramino.Error
	if !errors.As(err, &e) || e.Code != codes.InvalidArgument {
		t.Errorf("a game without seats: %v", err)
	}

	back, err := client.SeatFromToken(ctx, waiting.GameID(), waiting.Token)
	if err != nil || back.Number != waiting.Number {
		t.Errorf("coming back with a saved token: %v", err)
	}
}

// loseFirstAnswer lets the first call of method reach the server, then
// reports UNAVAILABLE as if the answer had been lost on the way back.
type loseFirstAnswer struct {
	method string
	mu     sync.Mutex
	ids    []string
}

func (l *loseFirstAnswer) intercept(ctx context.Context, method string, req, reply any,
	cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption,
) error {
	err := invoker(ctx, method, req, reply, cc, opts...)
	if method != l.method {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = append(l.ids, req.(interface{ GetRequestId() string }).GetRequestId())
	if len(l.ids) == 1 && err == nil {
		return status.Error(codes.Unavailable, "connection reset")
	}
	return err
}

func TestALostAnswerIsRetriedWithTheSameRequestIDAndAppliedOnce(t *testing.T) {
	srv := shared
	ctx := testCtx(t)
	lose := &loseFirstAnswer{method: "/ramino.v1.GameService/DrawFromStock"}
	var retries []ramino.RetryEvent
	client := dial(t, srv, ramino.WithRetry(fastRetry),
		ramino.WithDialOptions(grpc.WithChainUnaryInterceptor(lose.intercept)),
		ramino.OnRetry(func(e ramino.RetryEvent) { retries = append(retries, e) }))
	seat, _ := twoPeople(t, ctx, client, "rummy")
	before, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	result, err := seat.DrawFromStock(ctx, ramino.ExpectVersion(before.GetVersion()))
	if err != nil {
		t.Fatal(err)
	}
	after, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(lose.ids) != 2 || lose.ids[0] != lose.ids[1] || lose.ids[0] == "" {
		t.Fatalf("request ids sent: %v", lose.ids)
	}
	if len(retries) != 1 || retries[0].Method != lose.method || status.Code(retries[0].Err) != codes.Unavailable {
		t.Fatalf("retries told: %v", retries)
	}
	// Applied once: one card more, one event, and the first answer again.
	if len(after.GetHand()) != len(before.GetHand())+1 {
		t.Errorf("hand %d -> %d", len(before.GetHand()), len(after.GetHand()))
	}
	if after.GetVersion() != before.GetVersion()+1 || result.GetView().GetVersion() != after.GetVersion() {
		t.Errorf("versions: before %d, answer %d, after %d", before.GetVersion(), result.GetView().GetVersion(), after.GetVersion())
	}
	if len(result.GetEvents()) != 1 || result.GetEvents()[0].GetDrewFromStock() == nil {
		t.Errorf("the answer's events: %v", result.GetEvents())
	}
}

func TestARepeatedRequestIDIsAppliedOnce(t *testing.T) {
	srv := shared
	ctx := testCtx(t)
	client := dial(t, srv)
	spec := ramino.GameSpec{Variant: "rummy", Seats: []ramino.SeatSpec{ramino.Person("ann"), ramino.Person("bob")}, RequestID: "create-once"}
	first, err := client.CreateGame(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	second, err := client.CreateGame(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if first.GetName() != second.GetName() {
		t.Fatalf("CreateGame with one request id made two games: %s, %s", first.GetName(), second.GetName())
	}
	// Another client (another caller key) with the same request id is another caller.
	stranger := dial(t, srv)
	third, err := stranger.CreateGame(ctx, spec)
	if err != nil || third.GetName() == first.GetName() {
		t.Fatalf("another caller's request id answered with the first caller's game: %v", err)
	}
	ann, err := client.JoinGame(ctx, first.GetName(), "ann", ramino.WithRequestID("join-ann"))
	if err != nil {
		t.Fatal(err)
	}
	annAgain, err := client.JoinGame(ctx, first.GetName(), "ann", ramino.WithRequestID("join-ann"))
	if err != nil || annAgain.Number != ann.Number || annAgain.Token != ann.Token {
		t.Fatalf("a repeated join took another seat: %v", err)
	}
	bob, err := client.JoinGame(ctx, first.GetName(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	seat := ann
	if view, err := bob.View(ctx); err != nil || view.GetTurn() == bob.Number {
		seat = bob
	}
	before, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := seat.DrawFromStock(ctx, ramino.WithRequestID("draw-once"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := seat.DrawFromStock(ctx, ramino.WithRequestID("draw-once"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.GetView().GetVersion() != b.GetView().GetVersion() || after.GetVersion() != before.GetVersion()+1 {
		t.Errorf("versions: before %d, answers %d %d, after %d", before.GetVersion(),
			a.GetView().GetVersion(), b.GetView().GetVersion(), after.GetVersion())
	}
	if len(after.GetHand()) != len(before.GetHand())+1 {
		t.Errorf("hand %d -> %d", len(before.GetHand()), len(after.GetHand()))
	}
}

// A closed client's calls fail at once (CANCELLED, not retried).
func TestACallOnAClosedClientIsNotRetried(t *testing.T) {
	var retries int
	client, err := ramino.NewClient(shared.Address(), ramino.OnRetry(func(ramino.RetryEvent) { retries++ }))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = client.GetGame(testCtx(t), "games/nosuchgame")
	if ramino.Code(err) != codes.Canceled || retries != 0 {
		t.Errorf("after Close: %v, %d retries", err, retries)
	}
}
