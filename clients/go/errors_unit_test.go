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

func TestReasonCodeIsTheRegistrysCode(t *testing.T) {
	for reason, want := range map[string]codes.Code{
		ramino.ReasonNotYourTurn:      codes.FailedPrecondition,
		ramino.ReasonVersionMismatch:  codes.Aborted,
		ramino.ReasonTokenInvalid:     codes.Unauthenticated,
		ramino.ReasonWatcherTooSlow:   codes.ResourceExhausted,
		ramino.ReasonSpectatorToken:   codes.PermissionDenied,
		ramino.ReasonMalformedRequest: codes.InvalidArgument,
		ramino.ReasonGameNotFound:     codes.NotFound,
		ramino.ReasonStoreUnavailable: codes.Unavailable,
	} {
		if got, ok := ramino.ReasonCode(reason); !ok || got != want {
			t.Errorf("ReasonCode(%q) = %v, %v; want %v", reason, got, ok, want)
		}
	}
	if _, ok := ramino.ReasonCode("NO_SUCH_REASON"); ok {
		t.Error("an unknown reason has no code")
	}
}
