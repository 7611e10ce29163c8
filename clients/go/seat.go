package ramino

import (
	"context"
	"fmt"
	"strings"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/protobuf/proto"
)

// Seat is one seat of one game, acting with its seat token. Each move sends
// a fresh request id (kept across retries on UNAVAILABLE) unless
// WithRequestID gives one, and ExpectVersion when given. A Seat's methods may
// be called from one goroutine at a time.
type Seat struct {
	client *Client
	// Name is "games/{id}".
	Name string
	// Number is the seat's number, from 0 in turn order.
	Number int32
	// Token is the seat token: keep it to come back (Client.SeatFromToken).
	Token string
	// LastView is the latest view this seat received (join, moves, View).
	// A move's answer leaves the variant's parameters and the deck unset;
	// they are kept from the last full view.
	LastView *raminov1.GameView
}

// GameID is the game's id (its name without "games/").
func (s *Seat) GameID() string { return strings.TrimPrefix(s.Name, "games/") }

func (s *Seat) ctx(ctx context.Context) context.Context { return withToken(ctx, s.Token) }

// View is the game as this seat sees it.
func (s *Seat) View(ctx context.Context) (*raminov1.GameView, error) {
	v, err := s.client.view(ctx, s.Name, s.Token)
	if err != nil {
		return nil, err
	}
	s.LastView = v
	return v, nil
}

// LegalMoves is the moves this seat may make now, with hints from the meld
// search; none when it is not the seat's turn.
func (s *Seat) LegalMoves(ctx context.Context) (*raminov1.GetLegalMovesResponse, error) {
	return s.client.game.GetLegalMoves(s.ctx(ctx), &raminov1.GetLegalMovesRequest{Name: s.Name})
}

// Watch is this seat's view of every event (see Watch).
func (s *Seat) Watch(ctx context.Context, opts ...WatchOption) *Watch {
	return newWatch(ctx, s.client, s.Name, s.Token, opts)
}

// Play makes any move, such as one of LegalMoves.
func (s *Seat) Play(ctx context.Context, move *raminov1.Move, opts ...CallOption) (*raminov1.MoveResult, error) {
	o := collect(opts)
	request, err := moveRequest(move, s.Name, o.requestID, o.expectedVersion)
	if err != nil {
		return nil, err
	}
	ctx = s.ctx(ctx)
	g := s.client.game
	var res interface{ GetResult() *raminov1.MoveResult }
	switch r := request.GetMessage().(type) {
	case *raminov1.PlayGameRequest_DrawFromStock:
		res, err = g.DrawFromStock(ctx, r.DrawFromStock)
	case *raminov1.PlayGameRequest_TakeDiscard:
		res, err = g.TakeDiscard(ctx, r.TakeDiscard)
	case *raminov1.PlayGameRequest_TurnOverDiscardPile:
		res, err = g.TurnOverDiscardPile(ctx, r.TurnOverDiscardPile)
	case *raminov1.PlayGameRequest_LayMelds:
		res, err = g.LayMelds(ctx, r.LayMelds)
	case *raminov1.PlayGameRequest_LayOff:
		res, err = g.LayOff(ctx, r.LayOff)
	case *raminov1.PlayGameRequest_SwapJoker:
		res, err = g.SwapJoker(ctx, r.SwapJoker)
	case *raminov1.PlayGameRequest_Discard:
		res, err = g.Discard(ctx, r.Discard)
	case *raminov1.PlayGameRequest_Resign:
		res, err = g.Resign(ctx, r.Resign)
	case *raminov1.PlayGameRequest_PassUpcard:
		res, err = g.PassUpcard(ctx, r.PassUpcard)
	case *raminov1.PlayGameRequest_Knock:
		res, err = g.Knock(ctx, r.Knock)
	case *raminov1.PlayGameRequest_AcceptLayout:
		res, err = g.AcceptLayout(ctx, r.AcceptLayout)
	}
	if err != nil {
		return nil, err
	}
	result := res.GetResult()
	s.keep(result.GetView())
	return result, nil
}

// moveRequest is the request that makes move, as a session's message (its
// unary request inside).
func moveRequest(move *raminov1.Move, name, id string, ev *int64) (*raminov1.PlayGameRequest, error) {
	var r raminov1.PlayGameRequest
	switch m := move.GetMove().(type) {
	case *raminov1.Move_DrawFromStock:
		r.Message = &raminov1.PlayGameRequest_DrawFromStock{DrawFromStock: &raminov1.DrawFromStockRequest{Name: name, RequestId: id, ExpectedVersion: ev}}
	case *raminov1.Move_TakeDiscard:
		r.Message = &raminov1.PlayGameRequest_TakeDiscard{TakeDiscard: &raminov1.TakeDiscardRequest{Name: name, RequestId: id, ExpectedVersion: ev}}
	case *raminov1.Move_TurnOverDiscardPile:
		r.Message = &raminov1.PlayGameRequest_TurnOverDiscardPile{TurnOverDiscardPile: &raminov1.TurnOverDiscardPileRequest{Name: name, RequestId: id, ExpectedVersion: ev}}
	case *raminov1.Move_LayMelds:
		r.Message = &raminov1.PlayGameRequest_LayMelds{LayMelds: &raminov1.LayMeldsRequest{Name: name, RequestId: id, ExpectedVersion: ev,
			Melds: m.LayMelds.GetMelds()}}
	case *raminov1.Move_LayOff:
		lo := m.LayOff
		r.Message = &raminov1.PlayGameRequest_LayOff{LayOff: &raminov1.LayOffRequest{Name: name, RequestId: id, ExpectedVersion: ev,
			CardId: lo.GetCardId(), MeldIndex: lo.GetMeldIndex(), End: lo.GetEnd()}}
	case *raminov1.Move_SwapJoker:
		sj := m.SwapJoker
		r.Message = &raminov1.PlayGameRequest_SwapJoker{SwapJoker: &raminov1.SwapJokerRequest{Name: name, RequestId: id, ExpectedVersion: ev,
			CardId: sj.GetCardId(), MeldIndex: sj.GetMeldIndex(), JokerId: sj.GetJokerId()}}
	case *raminov1.Move_Discard:
		r.Message = &raminov1.PlayGameRequest_Discard{Discard: &raminov1.DiscardRequest{Name: name, RequestId: id, ExpectedVersion: ev,
			CardId: m.Discard.GetCardId()}}
	case *raminov1.Move_Resign:
		r.Message = &raminov1.PlayGameRequest_Resign{Resign: &raminov1.ResignRequest{Name: name, RequestId: id, ExpectedVersion: ev}}
	case *raminov1.Move_PassUpcard:
		r.Message = &raminov1.PlayGameRequest_PassUpcard{PassUpcard: &raminov1.PassUpcardRequest{Name: name, RequestId: id, ExpectedVersion: ev}}
	case *raminov1.Move_Knock:
		k := m.Knock
		r.Message = &raminov1.PlayGameRequest_Knock{Knock: &raminov1.KnockRequest{Name: name, RequestId: id, ExpectedVersion: ev,
			DiscardCardId: k.DiscardCardId, Melds: k.GetMelds()}}
	case *raminov1.Move_AcceptLayout:
		r.Message = &raminov1.PlayGameRequest_AcceptLayout{AcceptLayout: &raminov1.AcceptLayoutRequest{Name: name, RequestId: id, ExpectedVersion: ev}}
	default:
		return nil, fmt.Errorf("ramino: not a move: %v", move)
	}
	return &r, nil
}

// keep makes view the last one, with the variant's parameters and the deck
// of the last full view (a move's answer leaves them unset).
func (s *Seat) keep(view *raminov1.GameView) {
	if view == nil {
		return
	}
	if known := s.LastView; known != nil {
		if view.GetVariant().GetParameters() == nil && known.GetVariant() != nil {
			view.Variant = proto.Clone(known.GetVariant()).(*raminov1.Variant)
		}
		if len(view.GetDeck()) == 0 {
			view.Deck = known.GetDeck()
		}
	}
	s.LastView = view
}

// Melds builds the melds of LayMelds and Knock from card ids, a meld each.
func Melds(melds ...[]int32) []*raminov1.MeldCardIds {
	out := make([]*raminov1.MeldCardIds, len(melds))
	for i, m := range melds {
		out[i] = &raminov1.MeldCardIds{CardIds: m}
	}
	return out
}

// DrawFromStock draws the top card of the stock.
func (s *Seat) DrawFromStock(ctx context.Context, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_DrawFromStock{DrawFromStock: &raminov1.DrawFromStockMove{}}}, opts...)
}

// TakeDiscard takes the top card of the discard pile.
func (s *Seat) TakeDiscard(ctx context.Context, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_TakeDiscard{TakeDiscard: &raminov1.TakeDiscardMove{}}}, opts...)
}

// TurnOverDiscardPile turns the discard pile over as the stock, and draws.
func (s *Seat) TurnOverDiscardPile(ctx context.Context, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_TurnOverDiscardPile{TurnOverDiscardPile: &raminov1.TurnOverDiscardPileMove{}}}, opts...)
}

// LayMelds lays new melds, each a list of card ids in meld order (a run
// ascending); the first time, the opening.
func (s *Seat) LayMelds(ctx context.Context, melds [][]int32, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_LayMelds{LayMelds: &raminov1.LayMeldsMove{Melds: Melds(melds...)}}}, opts...)
}

// LayOff adds one card to table meld meldIndex, at end (END_UNSPECIFIED: the last).
func (s *Seat) LayOff(ctx context.Context, cardID, meldIndex int32, end raminov1.End, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_LayOff{LayOff: &raminov1.LayOffMove{
		CardId: cardID, MeldIndex: meldIndex, End: end}}}, opts...)
}

// SwapJoker gives cardID for the table joker jokerID of meld meldIndex.
func (s *Seat) SwapJoker(ctx context.Context, cardID, meldIndex, jokerID int32, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_SwapJoker{SwapJoker: &raminov1.SwapJokerMove{
		CardId: cardID, MeldIndex: meldIndex, JokerId: jokerID}}}, opts...)
}

// Discard discards one card, ending the turn.
func (s *Seat) Discard(ctx context.Context, cardID int32, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_Discard{Discard: &raminov1.DiscardMove{CardId: cardID}}}, opts...)
}

// Resign leaves the match.
func (s *Seat) Resign(ctx context.Context, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_Resign{Resign: &raminov1.ResignMove{}}}, opts...)
}

// PassUpcard (gin) declines the first upcard, or the upcard at the wall.
func (s *Seat) PassUpcard(ctx context.Context, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_PassUpcard{PassUpcard: &raminov1.PassUpcardMove{}}}, opts...)
}

// Knock (gin) discards discard (nil: big gin) and lays the hand in melds.
func (s *Seat) Knock(ctx context.Context, discard *int32, melds [][]int32, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_Knock{Knock: &raminov1.KnockMove{
		DiscardCardId: discard, Melds: Melds(melds...)}}}, opts...)
}

// AcceptLayout (gin): the defender is done laying off and melding.
func (s *Seat) AcceptLayout(ctx context.Context, opts ...CallOption) (*raminov1.MoveResult, error) {
	return s.Play(ctx, &raminov1.Move{Move: &raminov1.Move_AcceptLayout{AcceptLayout: &raminov1.AcceptLayoutMove{}}}, opts...)
}
