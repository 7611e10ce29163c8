package conformance

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	formatVersion = 1
	forgedToken   = "forged.conformance.token"
	watchTimeout  = 10 * time.Second
	// A player token's exp (2100-01-01): the same token from every runner.
	playerTokenExp = 4102444800
)

var (
	stepFields = map[string]bool{"op": true, "game": true, "as": true, "args": true, "watch": true,
		"session": true, "count": true, "resume": true, "expect": true, "ticket": true, "party": true}
	// The ops whose game and caller are those of the stream they act on.
	onAStream = map[string]bool{"watch_next": true, "watch_close": true, "session_send": true,
		"session_next": true, "session_close": true, "session_end": true}
	tokenKeys = map[string]bool{"seatToken": true, "creatorToken": true}
	timeKeys  = map[string]bool{"createTime": true, "turnDeadline": true, "submitTime": true, "expireTime": true}
	// Doubles (their JSON differs by language; a wait or window by the clock).
	numberKeys  = map[string]bool{"ratingWindow": true, "expectedWait": true, "rating": true}
	secretKeys  = map[string]string{"inviteCode": "<invite>", "invitation": "<invitation>"}
	finalStates = map[raminov1.TicketState]bool{raminov1.TicketState_TICKET_STATE_MATCHED: true,
		raminov1.TicketState_TICKET_STATE_EXPIRED: true, raminov1.TicketState_TICKET_STATE_CANCELLED: true}
	// The calls that change something carry a request id (the SDK's own when
	// the scenario gives none).
	withoutRequestID = map[string]bool{"get_game": true, "legal_moves": true, "cancel_game": true, "join_invite": true}
)

// errScenario: the scenario file itself is malformed.
type errScenario struct{ msg string }

func (e errScenario) Error() string { return e.msg }

// mismatch: an expectation of the scenario was not met.
type mismatch struct{ msg string }

func (e mismatch) Error() string { return e.msg }

func malformed(format string, args ...any) error { return errScenario{fmt.Sprintf(format, args...)} }
func differ(format string, args ...any) error    { return mismatch{fmt.Sprintf(format, args...)} }

type unaryOp struct {
	request func() proto.Message
	call    func(context.Context, proto.Message) (proto.Message, error)
}

func op[Req, Resp proto.Message](newReq func() Req, call func(context.Context, Req, ...grpc.CallOption) (Resp, error)) unaryOp {
	return unaryOp{
		request: func() proto.Message { return newReq() },
		call: func(ctx context.Context, m proto.Message) (proto.Message, error) {
			return call(ctx, m.(Req))
		},
	}
}

func unaryOps(g raminov1.GameServiceClient) map[string]unaryOp {
	return map[string]unaryOp{
		"create":                 op(func() *raminov1.CreateGameRequest { return new(raminov1.CreateGameRequest) }, g.CreateGame),
		"join":                   op(func() *raminov1.JoinGameRequest { return new(raminov1.JoinGameRequest) }, g.JoinGame),
		"get_game":               op(func() *raminov1.GetGameRequest { return new(raminov1.GetGameRequest) }, g.GetGame),
		"legal_moves":            op(func() *raminov1.GetLegalMovesRequest { return new(raminov1.GetLegalMovesRequest) }, g.GetLegalMoves),
		"draw_from_stock":        op(func() *raminov1.DrawFromStockRequest { return new(raminov1.DrawFromStockRequest) }, g.DrawFromStock),
		"take_discard":           op(func() *raminov1.TakeDiscardRequest { return new(raminov1.TakeDiscardRequest) }, g.TakeDiscard),
		"turn_over_discard_pile": op(func() *raminov1.TurnOverDiscardPileRequest { return new(raminov1.TurnOverDiscardPileRequest) }, g.TurnOverDiscardPile),
		"lay_melds":              op(func() *raminov1.LayMeldsRequest { return new(raminov1.LayMeldsRequest) }, g.LayMelds),
		"lay_off":                op(func() *raminov1.LayOffRequest { return new(raminov1.LayOffRequest) }, g.LayOff),
		"swap_joker":             op(func() *raminov1.SwapJokerRequest { return new(raminov1.SwapJokerRequest) }, g.SwapJoker),
		"discard":                op(func() *raminov1.DiscardRequest { return new(raminov1.DiscardRequest) }, g.Discard),
		"resign":                 op(func() *raminov1.ResignRequest { return new(raminov1.ResignRequest) }, g.Resign),
		"pass_upcard":            op(func() *raminov1.PassUpcardRequest { return new(raminov1.PassUpcardRequest) }, g.PassUpcard),
		"knock":                  op(func() *raminov1.KnockRequest { return new(raminov1.KnockRequest) }, g.Knock),
		"accept_layout":          op(func() *raminov1.AcceptLayoutRequest { return new(raminov1.AcceptLayoutRequest) }, g.AcceptLayout),
		"cancel_game":            op(func() *raminov1.CancelGameRequest { return new(raminov1.CancelGameRequest) }, g.CancelGame),
		"join_invite":            op(func() *raminov1.JoinGameRequest { return new(raminov1.JoinGameRequest) }, g.JoinGame),
	}
}

func matchOps(m raminov1.MatchServiceClient) map[string]unaryOp {
	return map[string]unaryOp{
		"ticket_cancel": op(func() *raminov1.CancelTicketRequest { return new(raminov1.CancelTicketRequest) }, m.CancelTicket),
		"ticket_list":   op(func() *raminov1.ListTicketsRequest { return new(raminov1.ListTicketsRequest) }, m.ListTickets),
		"party_create":  op(func() *raminov1.CreatePartyRequest { return new(raminov1.CreatePartyRequest) }, m.CreateParty),
		"party_invite":  op(func() *raminov1.InviteToPartyRequest { return new(raminov1.InviteToPartyRequest) }, m.InviteToParty),
		"party_join":    op(func() *raminov1.JoinPartyRequest { return new(raminov1.JoinPartyRequest) }, m.JoinParty),
		"party_get":     op(func() *raminov1.GetPartyRequest { return new(raminov1.GetPartyRequest) }, m.GetParty),
	}
}

// playerToken is the player token of the README ("Players"): an HS256 JWT,
// byte for byte the same from every runner.
func playerToken(player string, secret []byte) string {
	b64 := base64.RawURLEncoding.EncodeToString
	signed := b64([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		b64([]byte(fmt.Sprintf(`{"sub":"%s","exp":%d}`, player, playerTokenExp)))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(signed))
	return signed + "." + b64(mac.Sum(nil))
}

type scenario struct {
	name    string
	sha256  string
	players bool // replayed on the server of players
	steps   []map[string]json.RawMessage
}

func decode(data []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(into)
}

func loadScenarios(t *testing.T, dir string) []scenario {
	t.Helper()
	var suite struct {
		FormatVersion int `json:"formatVersion"`
		TestSeed      int `json:"testSeed"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &suite); err != nil || suite.FormatVersion != formatVersion {
		t.Fatalf("suite.json: unknown formatVersion %d (%v)", suite.FormatVersion, err)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "scenarios", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths) // byte order of the file names (one folder)
	var out []scenario
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Description string                       `json:"description"`
			Server      string                       `json:"server"`
			Steps       []map[string]json.RawMessage `json:"steps"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sum := sha256.Sum256(raw)
		out = append(out, scenario{strings.TrimSuffix(filepath.Base(p), ".json"), hex.EncodeToString(sum[:]), doc.Server == "players", doc.Steps})
	}
	return out
}

func testSeed(t *testing.T, dir string) string {
	var suite struct {
		TestSeed json.Number `json:"testSeed"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := decode(raw, &suite); err != nil {
		t.Fatal(err)
	}
	return suite.TestSeed.String()
}

// canonical is the canonical JSON of the README ("The transcript").
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// protoJSON is m in protobuf JSON, fields without presence always printed,
// as a plain JSON value.
func protoJSON(m proto.Message) (any, error) {
	b, err := protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	return v, decode(b, &v)
}

func normalize(v any, labels map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			switch {
			case tokenKeys[k]:
				out[k] = "<token>"
			case timeKeys[k]:
				out[k] = "<time>"
			case numberKeys[k] && isNumber(val):
				out[k] = "<number>"
			case secretKeys[k] != "" && val != "" && isString(val):
				out[k] = secretKeys[k]
			default:
				out[k] = normalize(val, labels)
			}
		}
		if _, answer := out["requestId"]; answer {
			// A session's refused answer (a google.rpc.Status): its text is
			// never compared, as no unary error's is.
			if refusal, ok := out["error"].(map[string]any); ok {
				if _, ok := refusal["message"]; ok {
					refusal["message"] = "<message>"
				}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = normalize(val, labels)
		}
		return out
	case string:
		if label, ok := labels[x]; ok {
			if strings.Contains(label, "/") {
				return label
			}
			return "games/" + label
		}
	}
	return v
}

func isNumber(v any) bool { _, ok := v.(json.Number); return ok }
func isString(v any) bool { _, ok := v.(string); return ok }

func kindOf(v map[string]any, path string) (any, error) {
	var keys []string
	for k := range v {
		// Beside the kind: a GameEvent's version, seat and turn after it,
		// a watch message's version and the seat's options.
		if k != "version" && k != "seat" && k != "turn" && k != "options" {
			keys = append(keys, k)
		}
	}
	if _, ok := v["options"]; ok && len(keys) == 0 {
		return "options", nil // a session's message of options alone
	}
	if len(keys) != 1 {
		slices.Sort(keys)
		return nil, differ("%s: @kind of an object with members %v", path, keys)
	}
	if keys[0] == "event" {
		if inner, ok := v["event"].(map[string]any); ok {
			return kindOf(inner, path)
		}
	}
	return keys[0], nil
}

// evaluate is the value path (README, "Paths") gives on v.
func evaluate(v any, path string) (any, error) { return walk(v, strings.Split(path, "."), path) }

func walk(v any, segs []string, path string) (any, error) {
	for i, seg := range segs {
		if v == nil {
			return nil, nil
		}
		switch {
		case seg == "*":
			arr, ok := v.([]any)
			if !ok {
				return nil, differ("%s: '*' of a non-array", path)
			}
			out := make([]any, len(arr))
			for j, el := range arr {
				r, err := walk(el, segs[i+1:], path)
				if err != nil {
					return nil, err
				}
				out[j] = r
			}
			return out, nil
		case seg == "#":
			arr, ok := v.([]any)
			if !ok {
				return nil, differ("%s: '#' of a non-array", path)
			}
			v = json.Number(strconv.Itoa(len(arr)))
		case seg == "@kind":
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, differ("%s: '@kind' of a non-object", path)
			}
			k, err := kindOf(obj, path)
			if err != nil {
				return nil, err
			}
			v = k
		case isIndex(seg):
			arr, ok := v.([]any)
			if !ok {
				return nil, differ("%s: index %s of a non-array", path, seg)
			}
			idx, _ := strconv.Atoi(seg)
			if idx < 0 {
				idx += len(arr)
			}
			if idx < 0 || idx >= len(arr) {
				v = nil
			} else {
				v = arr[idx]
			}
		default:
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, differ("%s: field %q of a non-object", path, seg)
			}
			v = obj[seg] // nil when absent
		}
	}
	return v, nil
}

func isIndex(seg string) bool {
	s := strings.TrimPrefix(seg, "-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// same is JSON equality: the same type, the same members.
func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !same(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, err1 := x.Float64()
		fy, err2 := y.Float64()
		return err1 == nil && err2 == nil && fx == fy
	default:
		return a == b // strings, bools, nil
	}
}

type watch struct {
	w           *ramino.Watch
	caller      string
	game        string
	lastVersion any // the JSON string of the last message's version
	open        bool
}

// session is a PlayGame stream of the generated client, read by one
// goroutine into a channel (so that a read can time out).
type session struct {
	stream      grpc.BidiStreamingClient[raminov1.PlayGameRequest, raminov1.PlayGameResponse]
	cancel      context.CancelFunc
	received    chan received
	caller      string
	game        string
	lastVersion any // the JSON string of the last message's version
	open        bool
}

type received struct {
	msg *raminov1.PlayGameResponse
	err error // io.EOF: the server ended the stream with OK
}

// ticketStream is a player's SubmitTicket or WatchTicket call and the last
// update read.
type ticketStream struct {
	recv   func() (*raminov1.TicketUpdate, error)
	cancel context.CancelFunc
	last   *raminov1.TicketUpdate
}

// updates reads a SubmitTicket or WatchTicket stream's updates.
func updates[Resp any, P interface {
	*Resp
	GetUpdate() *raminov1.TicketUpdate
}](stream grpc.ServerStreamingClient[Resp]) func() (*raminov1.TicketUpdate, error) {
	return func() (*raminov1.TicketUpdate, error) {
		msg, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		return P(msg).GetUpdate(), nil
	}
}

type gameBinding struct{ name, creator, invite string }

type replay struct {
	client   *ramino.Client
	player   func(string) (*ramino.Client, error) // a player's client on the server of players
	ops      map[string]unaryOp
	sc       scenario
	games    map[string]gameBinding
	seats    map[string]struct{ game, token string }
	watches  map[string]*watch
	sessions map[string]*session
	// Tickets and parties by label, in the order bound (the first label of
	// a name is the one printed).
	tickets, parties        map[string]string
	ticketOrder, partyOrder []string
	invitations             map[[2]string]string
	ticketStreams           map[[2]string]*ticketStream
	lines                   []string
}

func (r *replay) labels() map[string]string {
	out := map[string]string{}
	for label, g := range r.games {
		out[g.name] = label
	}
	for i := len(r.ticketOrder) - 1; i >= 0; i-- { // the first label wins
		out[r.tickets[r.ticketOrder[i]]] = "tickets/" + r.ticketOrder[i]
	}
	for i := len(r.partyOrder) - 1; i >= 0; i-- {
		out[r.parties[r.partyOrder[i]]] = "parties/" + r.partyOrder[i]
	}
	return out
}

func (r *replay) gameName(label string) (string, error) {
	g, ok := r.games[label]
	if !ok {
		return "", malformed("no game labelled %q yet", label)
	}
	return g.name, nil
}

func (r *replay) token(caller, game string) (string, error) {
	switch caller {
	case "spectator":
		return "", nil
	case "forged":
		return forgedToken, nil
	case "creator":
		g, ok := r.games[game]
		if !ok {
			return "", malformed("no game labelled %q yet", game)
		}
		return g.creator, nil
	}
	s, ok := r.seats[caller]
	if !ok {
		return "", malformed("no seat labelled %q yet", caller)
	}
	return s.token, nil
}

// run replays the scenario; the failure, or nil.
func (r *replay) run(ctx context.Context) error {
	r.lines = append(r.lines, fmt.Sprintf("format %d", formatVersion), fmt.Sprintf("scenario %s sha256=%s", r.sc.name, r.sc.sha256))
	defer func() {
		for _, w := range r.watches {
			if w.open {
				w.w.Close()
			}
		}
		for _, s := range r.sessions {
			if s.open {
				s.cancel()
			}
		}
		for _, t := range r.ticketStreams {
			t.cancel()
		}
	}()
	for i, step := range r.sc.steps {
		if err := r.step(ctx, i, step); err != nil {
			var m mismatch
			if errors.As(err, &m) {
				r.lines = append(r.lines, "FAILED "+m.msg)
				return fmt.Errorf("step %d: %w", i, err)
			}
			r.lines = append(r.lines, "FAILED malformed scenario: "+err.Error())
			return fmt.Errorf("step %d: malformed scenario: %w", i, err)
		}
	}
	return nil
}

func str(raw json.RawMessage, fallback string) (string, error) {
	if raw == nil {
		return fallback, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", malformed("not a string: %s", raw)
	}
	return s, nil
}

type expectation struct {
	Error *struct {
		Code   string `json:"code"`
		Reason string `json:"reason"`
	} `json:"error"`
	Facts []struct {
		Path   string `json:"path"`
		Equals any    `json:"equals"`
	} `json:"facts"`
}

func (r *replay) step(ctx context.Context, index int, step map[string]json.RawMessage) error {
	for k := range step {
		if !stepFields[k] {
			return malformed("step %d: unknown field %q", index, k)
		}
	}
	op, err := str(step["op"], "")
	if err != nil {
		return err
	}
	game, err := str(step["game"], "g")
	if err != nil {
		return err
	}
	caller, err := str(step["as"], "spectator")
	if err != nil {
		return err
	}
	if onAStream[op] {
		if strings.HasPrefix(op, "session_") {
			s, err := r.sessionOf(step)
			if err != nil {
				return err
			}
			game, caller = s.game, s.caller
		} else {
			label, err := str(step["watch"], "")
			if err != nil {
				return err
			}
			w, ok := r.watches[label]
			if !ok {
				return malformed("no watch labelled %q", label)
			}
			game, caller = w.game, w.caller
		}
	}
	r.lines = append(r.lines, fmt.Sprintf("step %d %s %s %s", index, op, game, caller))
	var expect expectation
	if raw := step["expect"]; raw != nil {
		if err := decode(raw, &expect); err != nil {
			return malformed("expect: %v", err)
		}
	}
	response, err := r.call(ctx, op, game, caller, step)
	var failure *ramino.Error
	if errors.As(err, &failure) {
		code := ramino.CodeName(failure.Code)
		r.lines = append(r.lines, fmt.Sprintf("error %s %s", code, failure.Reason))
		if expect.Error == nil {
			return differ("expected success, got %s %s: %s", code, failure.Reason, failure.Message)
		}
		if expect.Error.Code != code || expect.Error.Reason != failure.Reason {
			return differ("expected %s %s, got %s %s", expect.Error.Code, expect.Error.Reason, code, failure.Reason)
		}
		return nil
	}
	if err != nil {
		return err
	}
	normalized := normalize(response, r.labels())
	r.lines = append(r.lines, "ok "+canonical(normalized))
	if expect.Error != nil {
		return differ("expected %s %s, got success", expect.Error.Code, expect.Error.Reason)
	}
	for _, fact := range expect.Facts {
		got, err := evaluate(normalized, fact.Path)
		if err != nil {
			return err
		}
		r.lines = append(r.lines, fmt.Sprintf("fact %s %s", fact.Path, canonical(got)))
		if !same(got, fact.Equals) {
			return differ("%s: expected %s, got %s", fact.Path, canonical(fact.Equals), canonical(got))
		}
	}
	return nil
}

func (r *replay) call(ctx context.Context, op, game, caller string, step map[string]json.RawMessage) (any, error) {
	args := map[string]any{}
	if raw := step["args"]; raw != nil {
		if err := decode(raw, &args); err != nil {
			return nil, malformed("args: %v", err)
		}
	}
	if strings.HasPrefix(op, "watch_") {
		return r.watch(ctx, op, game, caller, step, args)
	}
	if strings.HasPrefix(op, "session_") {
		return r.session(ctx, op, game, caller, step, args)
	}
	if op == "ticket_submit" || op == "ticket_watch" || op == "ticket_wait" {
		return r.ticket(ctx, op, game, caller, step, args)
	}
	if strings.HasPrefix(op, "ticket_") || strings.HasPrefix(op, "party_") {
		return r.match(ctx, op, caller, step, args)
	}
	if op == "list_games" {
		return r.listGames(ctx, args)
	}
	unary, ok := r.ops[op]
	if !ok {
		return nil, malformed("unknown op %q", op)
	}
	if op == "join_invite" {
		if _, given := args["inviteCode"]; !given {
			g, ok := r.games[game]
			if !ok {
				return nil, malformed("no game labelled %q yet", game)
			}
			args["inviteCode"] = g.invite
		}
	} else if op != "create" {
		name, err := r.gameName(game)
		if err != nil {
			return nil, err
		}
		args["name"] = name
	}
	if _, given := args["requestId"]; !given && !withoutRequestID[op] {
		args["requestId"] = ramino.NewRequestID()
	}
	request := unary.request()
	if err := protojson.Unmarshal([]byte(canonical(args)), request); err != nil {
		return nil, malformed("args of %s: %v", op, err)
	}
	if op != "create" && op != "join" && op != "join_invite" {
		token, err := r.token(caller, game)
		if err != nil {
			return nil, err
		}
		ctx = ramino.AuthContext(ctx, token)
	}
	response, err := unary.call(ctx, request)
	if err != nil {
		return nil, err
	}
	switch resp := response.(type) {
	case *raminov1.CreateGameResponse:
		// The creator token is remembered before normalization hides it.
		r.games[game] = gameBinding{resp.GetGame().GetName(), resp.GetCreatorToken(), resp.GetInviteCode()}
	case *raminov1.JoinGameResponse:
		r.seats[caller] = struct{ game, token string }{game, resp.GetSeatToken()}
	}
	return protoJSON(response)
}

// listGames is every page of ListGames, only the scenario's games kept.
func (r *replay) listGames(ctx context.Context, args map[string]any) (any, error) {
	if _, given := args["pageSize"]; !given {
		args["pageSize"] = 100
	}
	mine := r.labels()
	games := []any{}
	for {
		request := new(raminov1.ListGamesRequest)
		if err := protojson.Unmarshal([]byte(canonical(args)), request); err != nil {
			return nil, malformed("args of list_games: %v", err)
		}
		page, err := r.client.GameService().ListGames(ctx, request)
		if err != nil {
			return nil, err
		}
		for _, g := range page.GetGames() {
			if _, ok := mine[g.GetName()]; ok {
				m, err := protoJSON(g)
				if err != nil {
					return nil, err
				}
				games = append(games, m)
			}
		}
		if page.GetNextPageToken() == "" {
			return map[string]any{"games": games}, nil
		}
		args["pageToken"] = page.GetNextPageToken()
	}
}

func (r *replay) label(step map[string]json.RawMessage, key string, bound map[string]string) (string, string, error) {
	label, err := str(step[key], "")
	if err != nil {
		return "", "", err
	}
	name, ok := bound[label]
	if !ok {
		return "", "", malformed("no %s labelled %q", key, label)
	}
	return label, name, nil
}

// match is a unary call of MatchService as the player caller.
func (r *replay) match(ctx context.Context, op, caller string, step map[string]json.RawMessage, args map[string]any) (any, error) {
	client, err := r.player(caller)
	if err != nil {
		return nil, err
	}
	unary, ok := matchOps(client.MatchService())[op]
	if !ok {
		return nil, malformed("unknown op %q", op)
	}
	party := ""
	switch op {
	case "ticket_cancel":
		_, name, err := r.label(step, "ticket", r.tickets)
		if err != nil {
			return nil, err
		}
		args["ticket"] = name
	case "ticket_list", "party_create":
	default:
		party, args["party"], err = r.label(step, "party", r.parties)
		if err != nil {
			return nil, err
		}
	}
	if _, given := args["invitation"]; op == "party_join" && !given {
		args["invitation"] = r.invitations[[2]string{party, caller}]
	}
	request := unary.request()
	if err := protojson.Unmarshal([]byte(canonical(args)), request); err != nil {
		return nil, malformed("args of %s: %v", op, err)
	}
	response, err := unary.call(ctx, request)
	if err != nil {
		return nil, err
	}
	switch resp := response.(type) {
	case *raminov1.CreatePartyResponse:
		label, _ := str(step["party"], "")
		r.parties[label] = resp.GetParty().GetName()
		r.partyOrder = append(r.partyOrder, label)
	case *raminov1.InviteToPartyResponse:
		r.invitations[[2]string{party, request.(*raminov1.InviteToPartyRequest).GetPlayer()}] = resp.GetInvitation()
	}
	return protoJSON(response)
}

// ticket opens a ticket's stream as the player caller (SubmitTicket or
// WatchTicket, its first update read) or reads it to its final update.
func (r *replay) ticket(ctx context.Context, op, game, caller string, step map[string]json.RawMessage, args map[string]any) (any, error) {
	label, err := str(step["ticket"], "")
	if err != nil || label == "" {
		return nil, malformed("%s: no ticket label", op)
	}
	key := [2]string{label, caller}
	if op == "ticket_wait" {
		t, ok := r.ticketStreams[key]
		if !ok {
			return nil, malformed("ticket %q has no stream of %q", label, caller)
		}
		for !finalStates[t.last.GetState()] {
			if t.last, err = readUpdate(t, label); err != nil {
				return nil, err
			}
		}
		update := t.last
		if update.GetGame() != "" {
			if bound, ok := r.games[game]; ok && bound.name != update.GetGame() {
				return nil, differ("ticket %q seated in another game than %q", label, game)
			}
			r.games[game] = gameBinding{name: update.GetGame()}
			r.seats[caller] = struct{ game, token string }{game, update.GetSeatToken()}
		}
		m, err := protoJSON(update)
		if err != nil {
			return nil, err
		}
		return map[string]any{"update": m}, nil
	}
	client, err := r.player(caller)
	if err != nil {
		return nil, err
	}
	streamCtx, cancel := context.WithCancel(ctx)
	t := &ticketStream{cancel: cancel}
	if op == "ticket_submit" {
		if step["party"] != nil {
			if _, args["party"], err = r.label(step, "party", r.parties); err != nil {
				cancel()
				return nil, err
			}
		}
		request := new(raminov1.SubmitTicketRequest)
		if err := protojson.Unmarshal([]byte(canonical(args)), request); err != nil {
			cancel()
			return nil, malformed("args of ticket_submit: %v", err)
		}
		stream, err := client.MatchService().SubmitTicket(streamCtx, request)
		if err != nil {
			cancel()
			return nil, streamError(err)
		}
		t.recv = updates[raminov1.SubmitTicketResponse](stream)
	} else {
		if _, args["ticket"], err = r.label(step, "ticket", r.tickets); err != nil {
			cancel()
			return nil, err
		}
		request := new(raminov1.WatchTicketRequest)
		if err := protojson.Unmarshal([]byte(canonical(args)), request); err != nil {
			cancel()
			return nil, malformed("args of ticket_watch: %v", err)
		}
		stream, err := client.MatchService().WatchTicket(streamCtx, request)
		if err != nil {
			cancel()
			return nil, streamError(err)
		}
		t.recv = updates[raminov1.WatchTicketResponse](stream)
	}
	if before, ok := r.ticketStreams[key]; ok {
		before.cancel()
		delete(r.ticketStreams, key)
	}
	if t.last, err = readUpdate(t, label); err != nil {
		cancel()
		return nil, err
	}
	r.ticketStreams[key] = t
	if _, bound := r.tickets[label]; !bound {
		r.tickets[label] = t.last.GetTicket()
		r.ticketOrder = append(r.ticketOrder, label)
	}
	return map[string]any{"ticket": t.last.GetTicket()}, nil
}

// readUpdate reads the stream's next update (10 s at most).
func readUpdate(t *ticketStream, label string) (*raminov1.TicketUpdate, error) {
	type next struct {
		update *raminov1.TicketUpdate
		err    error
	}
	got := make(chan next, 1)
	go func() {
		update, err := t.recv()
		got <- next{update, err}
	}()
	select {
	case n := <-got:
		if errors.Is(n.err, io.EOF) {
			return nil, differ("ticket %q: the stream ended", label)
		}
		if n.err != nil {
			return nil, streamError(n.err)
		}
		return n.update, nil
	case <-time.After(watchTimeout):
		t.cancel()
		return nil, differ("ticket %q: no update within %s", label, watchTimeout)
	}
}

func (r *replay) watch(ctx context.Context, op, game, caller string, step map[string]json.RawMessage, args map[string]any) (any, error) {
	label, err := str(step["watch"], "")
	if err != nil {
		return nil, err
	}
	if op == "watch_open" {
		if raw := step["resume"]; raw != nil {
			from, err := str(raw, "")
			if err != nil {
				return nil, err
			}
			w, ok := r.watches[from]
			if !ok || w.lastVersion == nil {
				return nil, malformed("watch %q read nothing to resume after", from)
			}
			args["afterVersion"] = w.lastVersion
		}
		name, err := r.gameName(game)
		if err != nil {
			return nil, err
		}
		args["name"] = name
		request := new(raminov1.WatchGameRequest)
		if err := protojson.Unmarshal([]byte(canonical(args)), request); err != nil {
			return nil, malformed("args of watch_open: %v", err)
		}
		token, err := r.token(caller, game)
		if err != nil {
			return nil, err
		}
		opts := []ramino.WatchOption{ramino.PastTheEnd()}
		if request.AfterVersion != nil {
			opts = append(opts, ramino.AfterVersion(request.GetAfterVersion()))
		}
		if request.GetSnapshot() {
			opts = append(opts, ramino.WithSnapshot())
		}
		var w *ramino.Watch
		if token == "" {
			w = r.client.Watch(ctx, name, opts...)
		} else {
			w = r.client.SeatOf(name, 0, token).Watch(ctx, opts...)
		}
		r.watches[label] = &watch{w: w, caller: caller, game: game, open: true}
		return map[string]any{}, nil
	}
	w, ok := r.watches[label]
	if !ok {
		return nil, malformed("no watch labelled %q", label)
	}
	if op == "watch_close" {
		w.w.Close()
		w.open = false
		return map[string]any{}, nil
	}
	if op != "watch_next" {
		return nil, malformed("unknown op %q", op)
	}
	var count int
	if err := json.Unmarshal(step["count"], &count); err != nil {
		return nil, malformed("count: %s", step["count"])
	}
	messages := []any{}
	for range count {
		type next struct {
			item *raminov1.WatchGameResponse
			err  error
		}
		got := make(chan next, 1)
		go func() {
			item, err := w.w.Next()
			got <- next{item, err}
		}()
		var n next
		select {
		case n = <-got:
		case <-time.After(watchTimeout):
			w.w.Close()
			w.open = false
			<-got
			return nil, differ("watch %q: no message within %s", label, watchTimeout)
		}
		if n.err != nil {
			var e *ramino.Error
			if errors.As(n.err, &e) {
				return nil, n.err
			}
			return nil, differ("watch %q: the stream ended (%v)", label, n.err)
		}
		m, err := protoJSON(n.item)
		if err != nil {
			return nil, err
		}
		messages = append(messages, m)
		w.lastVersion = m.(map[string]any)["version"]
	}
	return map[string]any{"messages": messages}, nil
}

func (r *replay) sessionOf(step map[string]json.RawMessage) (*session, error) {
	label, err := str(step["session"], "")
	if err != nil {
		return nil, err
	}
	s, ok := r.sessions[label]
	if !ok {
		return nil, malformed("no session labelled %q", label)
	}
	return s, nil
}

// streamError is a failed stream's status as the SDK's *ramino.Error: its
// code and ErrorInfo reason (the code's name without one).
func streamError(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	e := &ramino.Error{Code: st.Code(), Message: st.Message(), Reason: ramino.CodeName(st.Code())}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			e.Reason = info.GetReason()
			break
		}
	}
	return e
}

func (r *replay) session(ctx context.Context, op, game, caller string, step map[string]json.RawMessage, args map[string]any) (any, error) {
	label, err := str(step["session"], "")
	if err != nil {
		return nil, err
	}
	if op == "session_open" {
		if raw := step["resume"]; raw != nil {
			from, err := str(raw, "")
			if err != nil {
				return nil, err
			}
			before, ok := r.sessions[from]
			if !ok || before.lastVersion == nil {
				return nil, malformed("session %q read nothing to resume after", from)
			}
			args["afterVersion"] = before.lastVersion
		}
		name, err := r.gameName(game)
		if err != nil {
			return nil, err
		}
		args["name"] = name
		start := new(raminov1.PlayGameStart)
		if err := protojson.Unmarshal([]byte(canonical(args)), start); err != nil {
			return nil, malformed("args of session_open: %v", err)
		}
		token, err := r.token(caller, game)
		if err != nil {
			return nil, err
		}
		// The generated client's bidi stream, with the SDK's identity (its
		// interceptor) and the caller's token.
		streamCtx, cancel := context.WithCancel(ctx)
		stream, err := r.client.GameService().PlayGame(ramino.AuthContext(streamCtx, token))
		if err != nil {
			cancel()
			return nil, streamError(err)
		}
		s := &session{stream: stream, cancel: cancel, received: make(chan received, 64), caller: caller, game: game, open: true}
		r.sessions[label] = s
		go func() {
			for {
				msg, err := stream.Recv()
				s.received <- received{msg, err}
				if err != nil {
					return
				}
			}
		}()
		if err := stream.Send(&raminov1.PlayGameRequest{Message: &raminov1.PlayGameRequest_Start{Start: start}}); err != nil && !errors.Is(err, io.EOF) {
			return nil, differ("session %q: the start was not sent: %v", label, err)
		}
		return map[string]any{}, nil
	}
	s, ok := r.sessions[label]
	if !ok {
		return nil, malformed("no session labelled %q", label)
	}
	switch op {
	case "session_send":
		move := new(raminov1.PlayGameRequest)
		if err := protojson.Unmarshal([]byte(canonical(args)), move); err != nil {
			return nil, malformed("args of session_send: %v", err)
		}
		if _, start := move.GetMessage().(*raminov1.PlayGameRequest_Start); start || move.GetMessage() == nil {
			return nil, malformed("session_send: args must hold one move")
		}
		// io.EOF: the stream has ended; its status comes with the next read.
		if err := s.stream.Send(move); err != nil && !errors.Is(err, io.EOF) {
			return nil, differ("session %q: the move was not sent: %v", label, err)
		}
		return map[string]any{}, nil
	case "session_close":
		s.cancel()
		s.open = false
		return map[string]any{}, nil
	case "session_end":
		if err := s.stream.CloseSend(); err != nil {
			return nil, differ("session %q: half-close: %v", label, err)
		}
	case "session_next":
	default:
		return nil, malformed("unknown op %q", op)
	}
	count := -1 // session_end: until the stream ends
	if op == "session_next" {
		if err := json.Unmarshal(step["count"], &count); err != nil {
			return nil, malformed("count: %s", step["count"])
		}
	}
	messages := []any{}
	for count < 0 || len(messages) < count {
		var got received
		select {
		case got = <-s.received:
		case <-time.After(watchTimeout):
			s.cancel()
			s.open = false
			return nil, differ("session %q: no message within %s", label, watchTimeout)
		}
		if errors.Is(got.err, io.EOF) {
			s.open = false
			if count < 0 {
				break
			}
			return nil, differ("session %q: the stream ended", label)
		}
		if got.err != nil {
			s.open = false
			s.cancel()
			return nil, streamError(got.err)
		}
		m, err := protoJSON(got.msg)
		if err != nil {
			return nil, err
		}
		messages = append(messages, m)
		s.lastVersion = m.(map[string]any)["version"]
	}
	return map[string]any{"messages": messages}, nil
}

// TestConformance replays every scenario of tests/conformance against a
// live server in test mode, writes the transcripts of the Go runner, and
// fails for each scenario whose expectations are not met.
func TestConformance(t *testing.T) {
	root := testserver.RepoRoot(t)
	dir := filepath.Join(root, "tests", "conformance")
	scenarios := loadScenarios(t, dir)
	if len(scenarios) == 0 {
		t.Fatal("no scenario in tests/conformance/scenarios")
	}
	out := filepath.Join(dir, "transcripts", "go")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	testMode := []string{"--test-seed", testSeed(t, dir), "--abandon-after", "0"}
	srv := testserver.Start(t, testserver.Options{Args: testMode})
	client, err := ramino.NewClient(srv.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	// The server of players (README, "Starting the servers").
	secretFile := filepath.Join(dir, "player-token.secret")
	players := testserver.Start(t, testserver.Options{Args: append(slices.Clone(testMode),
		"--player-token-secret-file", secretFile, "--quick-bots-after", "0", "--quick-settle", "0")})
	raw, err := os.ReadFile(secretFile)
	if err != nil {
		t.Fatal(err)
	}
	secret := bytes.TrimSpace(raw)
	playerClients := map[string]*ramino.Client{}
	defer func() {
		for _, c := range playerClients {
			c.Close()
		}
	}()
	// player is the client of a player ("": one without a player token).
	player := func(label string) (*ramino.Client, error) {
		if c, ok := playerClients[label]; ok {
			return c, nil
		}
		var opts []ramino.Option
		if label != "" {
			opts = append(opts, ramino.WithPlayerToken(playerToken(label, secret)))
		}
		c, err := ramino.NewClient(players.Address(), opts...)
		if err != nil {
			return nil, err
		}
		playerClients[label] = c
		return c, nil
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			on := client
			if sc.players {
				var err error
				if on, err = player(""); err != nil {
					t.Fatal(err)
				}
			}
			r := &replay{client: on, player: player, ops: unaryOps(on.GameService()), sc: sc,
				games: map[string]gameBinding{}, seats: map[string]struct{ game, token string }{},
				watches: map[string]*watch{}, sessions: map[string]*session{},
				tickets: map[string]string{}, parties: map[string]string{},
				invitations: map[[2]string]string{}, ticketStreams: map[[2]string]*ticketStream{}}
			failure := r.run(ctx)
			text := strings.Join(r.lines, "\n") + "\n"
			if err := os.WriteFile(filepath.Join(out, sc.name+".txt"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if failure != nil {
				t.Fatalf("%s: %v", sc.name, failure)
			}
		})
	}
}
