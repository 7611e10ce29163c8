package ramino_test

import (
	"errors"
	"fmt"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	"google.golang.org/grpc/codes"
)

func TestErrorsIsMatchesTargetsByReasonAndCode(t *testing.T) {
	err := fmt.Errorf("playing: %w", &ramino.Error{Code: codes.FailedPrecondition, Reason: "NOT_YOUR_TURN"})
	for target, want := range map[*ramino.Error]bool{
		ramino.ErrNotYourTurn: true, ramino.ErrMoveRejected: true, ramino.ErrMatchOver: false,
		ramino.ErrStaleVersion: false, {Code: codes.Aborted, Reason: "NOT_YOUR_TURN"}: false,
	} {
		if errors.Is(err, target) != want {
			t.Errorf("errors.Is(%v, %v) != %v", err, target, want)
		}
	}
	if ramino.Code(err) != codes.FailedPrecondition || ramino.Reason(err) != "NOT_YOUR_TURN" {
		t.Errorf("Code %v, Reason %q", ramino.Code(err), ramino.Reason(err))
	}
	if ramino.Reason(errors.New("plain")) != "" || ramino.Code(nil) != codes.OK {
		t.Errorf("a plain error has a reason, or nil a code")
	}
	stale := &ramino.Error{Code: codes.Aborted, Reason: "VERSION_MISMATCH", Metadata: map[string]string{"expected": "4", "actual": "x"}}
	if v, ok := stale.Expected(); !ok || v != 4 {
		t.Errorf("Expected() = %d, %v", v, ok)
	}
	if _, ok := stale.Actual(); ok {
		t.Errorf("Actual() read a number from %q", "x")
	}
	if ramino.CodeName(codes.FailedPrecondition) != "FAILED_PRECONDITION" || ramino.CodeName(codes.Canceled) != "CANCELLED" {
		t.Errorf("CodeName is not the canonical name")
	}
}
