// Package ramino is the Go SDK of Ramino, an authoritative rummy game server.
//
// It wraps the gRPC API of proto/ramino/v1 (generated into the gen/ramino/v1
// package, imported as raminov1) in Go's idiom: every call takes a
// context.Context first; a [Client] creates, lists and joins games; a [Seat]
// has one method per move; a [Watch] follows a game's events as an iterator
// and resumes after a dropped stream with no event missed or repeated; a
// failed call is an [*Error] (use errors.As) carrying the gRPC code and the
// server's google.rpc.ErrorInfo reason, such as "NOT_YOUR_TURN".
//
// Calls are retried on UNAVAILABLE (and on a CANCELLED the server sent, as a
// stopping server does) with the same request, so a move's request id makes
// a retried move apply once.
//
// The module path is github.com/ramino/ramino/clients/go; its package name is
// ramino:
//
//	import ramino "github.com/ramino/ramino/clients/go"
package ramino
