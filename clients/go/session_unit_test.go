package ramino

import (
	"testing"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
)

// A reopened session is pushed again the options of the version it resumed
// at while the move made from them is sent again: Recv does not hand them
// out (its player would make a second move at a version already played);
// once that move is answered, options at that version are new again.
func TestOptionsPushedAgainForAResentMovesVersionAreNotHandedOut(t *testing.T) {
	at := int64(7)
	draw := &raminov1.Move{Move: &raminov1.Move_DrawFromStock{DrawFromStock: &raminov1.DrawFromStockMove{}}}
	request, err := moveRequest(draw, "", "draw", &at)
	if err != nil {
		t.Fatal(err)
	}
	x := &Session{last: &at, unanswered: []pending{{"draw", request, &at}}}
	pushed := &raminov1.PlayGameResponse{Version: at, Options: &raminov1.SeatOptions{Version: at, Moves: []*raminov1.Move{draw}}}
	if x.take(pushed) {
		t.Fatalf("options at %d handed out while the draw sent at %d waits for its answer", at, at)
	}
	refused := &raminov1.PlayGameResponse{Version: at, Payload: &raminov1.PlayGameResponse_Answer{Answer: &raminov1.MoveAnswer{
		RequestId: "draw", Outcome: &raminov1.MoveAnswer_Error{Error: &status.Status{Code: int32(codes.Aborted)}},
	}}}
	if !x.take(refused) {
		t.Fatal("the draw's answer was not handed out")
	}
	if !x.take(pushed) {
		t.Fatalf("options at %d dropped with no move waiting for its answer", at)
	}
}
