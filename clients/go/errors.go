package ramino

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is a call the server refused, or could not be reached for.
//
// Branch on Code for the kind of failure and on Reason (the server's
// google.rpc.ErrorInfo reason, a stable UPPER_SNAKE code such as
// "NOT_YOUR_TURN") for the rule that refused it:
//
//	var e *ramino.Error
//	if errors.As(err, &e) && e.Reason == "NOT_YOUR_TURN" { ... }
type Error struct {
	// Code is the gRPC status code.
	Code codes.Code
	// Reason is the ErrorInfo reason; the code's name ("UNAVAILABLE") when
	// the answer carried none.
	Reason string
	// Message is the server's explanation.
	Message string
	// Domain is the ErrorInfo domain.
	Domain string
	// Metadata is the ErrorInfo metadata (for ABORTED: "expected", "actual").
	Metadata map[string]string

	status *status.Status
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("ramino: %s (%s)", e.Reason, e.Code)
	}
	return fmt.Sprintf("ramino: %s (%s): %s", e.Reason, e.Code, e.Message)
}

// GRPCStatus lets status.FromError and status.Code see the status.
func (e *Error) GRPCStatus() *status.Status {
	if e.status != nil {
		return e.status
	}
	return status.New(e.Code, e.Message)
}

// Is matches a target *Error on its Reason and Code, each when set, so that
// errors.Is(err, ramino.ErrNotYourTurn) holds for any NOT_YOUR_TURN refusal.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t.Reason != "" && t.Reason != e.Reason {
		return false
	}
	return t.Code == codes.OK || t.Code == e.Code
}

// Expected is the version an ABORTED move expected (metadata "expected").
func (e *Error) Expected() (int64, bool) { return e.intMetadata("expected") }

// Actual is the game's version an ABORTED move met (metadata "actual").
func (e *Error) Actual() (int64, bool) { return e.intMetadata("actual") }

func (e *Error) intMetadata(key string) (int64, bool) {
	v, ok := e.Metadata[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// Targets for errors.Is: each matches every error of its reason (or code).
var (
	ErrNotYourTurn    = &Error{Reason: ReasonNotYourTurn}
	ErrStaleVersion   = &Error{Code: codes.Aborted}
	ErrNotFound       = &Error{Code: codes.NotFound}
	ErrUnauthorized   = &Error{Code: codes.Unauthenticated}
	ErrPermission     = &Error{Code: codes.PermissionDenied}
	ErrInvalid        = &Error{Code: codes.InvalidArgument}
	ErrMoveRejected   = &Error{Code: codes.FailedPrecondition}
	ErrUnavailable    = &Error{Code: codes.Unavailable}
	ErrMatchOver      = &Error{Reason: ReasonMatchOver}
	ErrGameNotStarted = &Error{Reason: ReasonGameNotStarted}
)

// Code is the gRPC code of err: an *Error's, a status's, or codes.Unknown
// (codes.OK for nil).
func Code(err error) codes.Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return status.Code(err)
}

// Reason is the ErrorInfo reason of err, or "" when it is not an *Error.
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// errorFrom turns a failed call's error into an *Error; context errors of
// the caller's own context are returned as they are.
func errorFrom(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		status.Code(err) == codes.Canceled || status.Code(err) == codes.DeadlineExceeded) {
		return fmt.Errorf("ramino: %w", ctx.Err())
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	out := &Error{Code: st.Code(), Message: st.Message(), status: st}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			out.Reason = info.GetReason()
			out.Domain = info.GetDomain()
			out.Metadata = info.GetMetadata()
			break
		}
	}
	if out.Reason == "" {
		out.Reason = codeName(st.Code())
	}
	if out.Metadata == nil {
		out.Metadata = map[string]string{}
	}
	return out
}

// CodeName is the code's canonical name, as the status protocol spells it
// ("NOT_FOUND", "FAILED_PRECONDITION").
func CodeName(c codes.Code) string { return codeName(c) }

func codeName(c codes.Code) string {
	names := map[codes.Code]string{
		codes.OK: "OK", codes.Canceled: "CANCELLED", codes.Unknown: "UNKNOWN",
		codes.InvalidArgument: "INVALID_ARGUMENT", codes.DeadlineExceeded: "DEADLINE_EXCEEDED",
		codes.NotFound: "NOT_FOUND", codes.AlreadyExists: "ALREADY_EXISTS",
		codes.PermissionDenied: "PERMISSION_DENIED", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
		codes.FailedPrecondition: "FAILED_PRECONDITION", codes.Aborted: "ABORTED",
		codes.OutOfRange: "OUT_OF_RANGE", codes.Unimplemented: "UNIMPLEMENTED",
		codes.Internal: "INTERNAL", codes.Unavailable: "UNAVAILABLE", codes.DataLoss: "DATA_LOSS",
		codes.Unauthenticated: "UNAUTHENTICATED",
	}
	if n, ok := names[c]; ok {
		return n
	}
	return c.String()
}

// ReasonCode is the status code a reason comes with (reasons_gen.go, from
// the server's registry), and whether the reason is a known one.
func ReasonCode(reason string) (codes.Code, bool) {
	for _, r := range reasonCodes {
		if r.reason == reason {
			return r.code, true
		}
	}
	return codes.Unknown, false
}

// watchResumable: a watch that ended with err continues when resumed (the
// server was unavailable or cancelled the call, or ended a stream that fell
// too far behind).
func watchResumable(err *Error) bool {
	return err.Code == codes.Unavailable || err.Code == codes.Canceled || resumableWatchReasons[err.Reason]
}
