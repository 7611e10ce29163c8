package ramino

import (
	"context"
	"errors"
	"io"
	"strings"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

// MatchService is the generated stub of quick play (tickets, ratings,
// leaderboards, histories, game records) over this client's connection. Its
// calls need the client's player token (WithPlayerToken).
func (c *Client) MatchService() raminov1.MatchServiceClient { return c.match }

// ErrTicketEnded: a ticket expired or was cancelled before a game was found.
var ErrTicketEnded = errors.New("ramino: the ticket ended without a game")

// TicketName is "tickets/ID" for an id or a name.
func TicketName(ticket string) string {
	if strings.HasPrefix(ticket, "tickets/") {
		return ticket
	}
	return "tickets/" + ticket
}

// QuickPlay submits a ticket and follows it until it is matched: the seat
// found, with its token. onUpdate, when not nil, is told every update
// (searching, widened, matched). A ticket that expires or is cancelled ends
// with ErrTicketEnded.
func (c *Client) QuickPlay(
	ctx context.Context, req *raminov1.SubmitTicketRequest, onUpdate func(*raminov1.TicketUpdate),
) (*Seat, error) {
	stream, err := c.match.SubmitTicket(ctx, req)
	if err != nil {
		return nil, errorFrom(ctx, err)
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, ErrTicketEnded
		}
		if err != nil {
			return nil, errorFrom(ctx, err)
		}
		update := msg.GetUpdate()
		if onUpdate != nil {
			onUpdate(update)
		}
		switch update.GetState() {
		case raminov1.TicketState_TICKET_STATE_MATCHED:
			return c.SeatOf(update.GetGame(), update.GetSeat(), update.GetSeatToken()), nil
		case raminov1.TicketState_TICKET_STATE_EXPIRED, raminov1.TicketState_TICKET_STATE_CANCELLED:
			return nil, ErrTicketEnded
		}
	}
}

// CancelTicket cancels one of the caller's tickets while it waits; a ticket
// already matched or ended is answered as it is.
func (c *Client) CancelTicket(ctx context.Context, ticket string) (*raminov1.TicketUpdate, error) {
	r, err := c.match.CancelTicket(ctx, &raminov1.CancelTicketRequest{Ticket: TicketName(ticket)})
	return r.GetUpdate(), err
}

// Rating is the caller's rating in a variant, and its rank (0 while unrated).
func (c *Client) Rating(ctx context.Context, variant string) (*raminov1.Rating, int32, error) {
	r, err := c.match.GetRating(ctx, &raminov1.GetRatingRequest{Variant: variant})
	return r.GetRating(), r.GetRank(), err
}

// Leaderboard is a page of a variant's board: from pageToken ("" for the
// top), or, with aroundCaller, the page with the caller in its middle.
func (c *Client) Leaderboard(
	ctx context.Context, variant string, pageSize int32, pageToken string, aroundCaller bool,
) (*raminov1.ListLeaderboardResponse, error) {
	return c.match.ListLeaderboard(ctx, &raminov1.ListLeaderboardRequest{
		Variant: variant, PageSize: pageSize, PageToken: pageToken, AroundCaller: aroundCaller,
	})
}

// PlayerGames are the caller's most recent finished games, newest first
// (variant "" for all).
func (c *Client) PlayerGames(ctx context.Context, variant string, pageSize int32) ([]*raminov1.PlayerGame, error) {
	r, err := c.match.ListPlayerGames(ctx, &raminov1.ListPlayerGamesRequest{Variant: variant, PageSize: pageSize})
	return r.GetGames(), err
}

// GameRecord is a finished game's whole record: its events and its seed.
func (c *Client) GameRecord(ctx context.Context, game string) (*raminov1.GetGameRecordResponse, error) {
	return c.match.GetGameRecord(ctx, &raminov1.GetGameRecordRequest{Name: GameName(game)})
}
