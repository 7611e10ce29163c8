package ramino

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

// MatchService is the generated stub of quick play (tickets, ratings,
// leaderboards, histories, game records) over this client's connection. Its
// calls need the client's player token (WithPlayerToken).
func (c *Client) MatchService() raminov1.MatchServiceClient { return c.match }

// ErrTicketEnded: a ticket expired or was cancelled before a game was found,
// or its stream stayed broken. QuickPlay's error is then a *TicketError,
// which errors.Is matches to ErrTicketEnded.
var ErrTicketEnded = errors.New("ramino: the ticket ended without a game")

// QuickPlayResumes is how many times QuickPlay submits its ticket again
// after a broken stream.
var QuickPlayResumes = 8

// TicketError is how QuickPlay ends without a seat: the ticket expired or was
// cancelled (State), or its stream stayed broken after every resume (State
// UNSPECIFIED, Err the last error). It always carries the ticket
// ("tickets/ID"; empty only when no answer ever named it) and the request id
// it was submitted under: WatchTicket, CancelTicket, or QuickPlay again with
// that RequestId take it up.
type TicketError struct {
	Ticket    string
	RequestID string
	State     raminov1.TicketState
	Err       error
}

func (e *TicketError) Error() string {
	if e.State == raminov1.TicketState_TICKET_STATE_UNSPECIFIED {
		return fmt.Sprintf("ramino: the ticket's stream stayed broken: %s may still wait (request id %s): %v",
			e.Ticket, e.RequestID, e.Err)
	}
	return fmt.Sprintf("ramino: the ticket ended without a game (%s)", e.State)
}

// Unwrap gives ErrTicketEnded and the last error of a broken stream.
func (e *TicketError) Unwrap() []error { return []error{ErrTicketEnded, e.Err} }

// TicketName is "tickets/ID" for an id or a name.
func TicketName(ticket string) string {
	if strings.HasPrefix(ticket, "tickets/") {
		return ticket
	}
	return "tickets/" + ticket
}

// QuickPlay submits a ticket and follows it until it is matched: the seat
// found, with its token. onUpdate, when not nil, is told every update
// (searching, widened, matched). A broken stream (the server unavailable or
// gone, the connection cut, before or after its first answer) is resumed:
// the ticket is submitted again under the same request id (one is chosen
// when req has none; req itself is not changed), which follows the same
// ticket and never makes a second. A ticket that expires or is cancelled, or
// whose stream stays broken, ends with a *TicketError carrying the ticket;
// an error of the request itself (a bad variant...) is returned as it is.
func (c *Client) QuickPlay(
	ctx context.Context, req *raminov1.SubmitTicketRequest, onUpdate func(*raminov1.TicketUpdate),
) (*Seat, error) {
	asked := proto.Clone(req).(*raminov1.SubmitTicketRequest)
	if asked.GetRequestId() == "" {
		asked.RequestId = NewRequestID()
	}
	ticket := ""
	var broken error
	for attempt := 0; attempt <= QuickPlayResumes; attempt++ {
		if attempt > 0 {
			wait := time.Duration(min(100<<attempt, 2000)) * time.Millisecond
			select {
			case <-ctx.Done():
				return nil, &TicketError{Ticket: ticket, RequestID: asked.RequestId, Err: ctx.Err()}
			case <-time.After(wait):
			}
		}
		seat, update, err := c.followTicket(ctx, asked, onUpdate, &ticket)
		switch {
		case seat != nil:
			return seat, nil
		case update != nil:
			return nil, &TicketError{Ticket: ticket, RequestID: asked.RequestId, State: update.GetState()}
		case err == nil: // the stream ended without a final state: resumed
		case ctx.Err() == nil && (Code(err) == codes.Unavailable || Code(err) == codes.Canceled):
			broken = err
		case ticket == "":
			return nil, err
		default:
			return nil, &TicketError{Ticket: ticket, RequestID: asked.RequestId, Err: err}
		}
	}
	return nil, &TicketError{Ticket: ticket, RequestID: asked.RequestId, Err: broken}
}

// followTicket is one SubmitTicket stream of QuickPlay: the seat once
// matched, the final update of a ticket that ended, or the stream's error
// (nil for a stream that ended early). *ticket is kept as the answers name it.
func (c *Client) followTicket(
	ctx context.Context, req *raminov1.SubmitTicketRequest, onUpdate func(*raminov1.TicketUpdate), ticket *string,
) (*Seat, *raminov1.TicketUpdate, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.match.SubmitTicket(ctx, req)
	if err != nil {
		return nil, nil, errorFrom(ctx, err)
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, errorFrom(ctx, err)
		}
		update := msg.GetUpdate()
		*ticket = update.GetTicket()
		if onUpdate != nil {
			onUpdate(update)
		}
		switch update.GetState() {
		case raminov1.TicketState_TICKET_STATE_MATCHED:
			return c.SeatOf(update.GetGame(), update.GetSeat(), update.GetSeatToken()), nil, nil
		case raminov1.TicketState_TICKET_STATE_EXPIRED, raminov1.TicketState_TICKET_STATE_CANCELLED:
			return nil, update, nil
		}
	}
}

// Tickets are the caller's live tickets (waiting or being seated), oldest first.
func (c *Client) Tickets(ctx context.Context) ([]*raminov1.TicketUpdate, error) {
	r, err := c.match.ListTickets(ctx, &raminov1.ListTicketsRequest{})
	return r.GetTickets(), err
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

// PartyName is "parties/ID" for an id or a name.
func PartyName(party string) string {
	if strings.HasPrefix(party, "parties/") {
		return party
	}
	return "parties/" + party
}

// PartyLook is how long PartyPlay waits between two looks at a party that
// is not queued.
var PartyLook = 500 * time.Millisecond

// CreateParty makes a new party led by the caller, who sits under playerName.
// The leader queues it with QuickPlay and a request whose Party names it.
func (c *Client) CreateParty(ctx context.Context, playerName string) (*raminov1.Party, error) {
	r, err := c.match.CreateParty(ctx, &raminov1.CreatePartyRequest{PlayerName: playerName})
	return r.GetParty(), err
}

// InviteToParty invites player (their player token's subject) to the
// caller's party: the answer's Invitation is what the leader sends them,
// accepted once, before its ExpireTime.
func (c *Client) InviteToParty(ctx context.Context, party, player string) (*raminov1.InviteToPartyResponse, error) {
	return c.match.InviteToParty(ctx, &raminov1.InviteToPartyRequest{Party: PartyName(party), Player: player})
}

// JoinParty joins the party an invitation naming the caller is to.
func (c *Client) JoinParty(ctx context.Context, party, invitation, playerName string) (*raminov1.Party, error) {
	r, err := c.match.JoinParty(ctx, &raminov1.JoinPartyRequest{
		Party: PartyName(party), Invitation: invitation, PlayerName: playerName,
	})
	return r.GetParty(), err
}

// LeaveParty leaves the party (its leader disbands it); a waiting ticket of
// the party is cancelled.
func (c *Client) LeaveParty(ctx context.Context, party string) error {
	_, err := c.match.LeaveParty(ctx, &raminov1.LeavePartyRequest{Party: PartyName(party)})
	return err
}

// GetParty is the party, to its leader and members.
func (c *Client) GetParty(ctx context.Context, party string) (*raminov1.Party, error) {
	r, err := c.match.GetParty(ctx, &raminov1.GetPartyRequest{Party: PartyName(party)})
	return r.GetParty(), err
}

// PartyPlay is a member's QuickPlay: it waits for the party's ticket (its
// leader's QuickPlay with Party set), follows it, and returns the caller's
// seat in its game. A ticket that ends unseated, or whose game has finished
// (the party's last game), is followed by the party's next one; the context
// bounds the wait (a *TicketError carrying the last ticket when it ends), and
// a party that is gone is its NotFound error.
func (c *Client) PartyPlay(ctx context.Context, party string) (*Seat, error) {
	ended := ""
	for {
		found, err := c.GetParty(ctx, party)
		if err != nil {
			return nil, err
		}
		if ticket := found.GetTicket(); ticket != "" && ticket != ended {
			seat, err := c.partySeat(ctx, ticket)
			if seat != nil || err != nil {
				return seat, err
			}
			ended = ticket
		}
		select {
		case <-ctx.Done():
			return nil, &TicketError{Ticket: ended, Err: ctx.Err()}
		case <-time.After(PartyLook):
		}
	}
}

// partySeat follows one ticket of a party: the caller's seat once matched to
// a game still in play, nil when it ended otherwise.
func (c *Client) partySeat(ctx context.Context, ticket string) (*Seat, error) {
	stream, err := c.match.WatchTicket(ctx, &raminov1.WatchTicketRequest{Ticket: TicketName(ticket)})
	if err != nil {
		return nil, errorFrom(ctx, err)
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, errorFrom(ctx, err)
		}
		u := msg.GetUpdate()
		if u.GetState() != raminov1.TicketState_TICKET_STATE_MATCHED {
			continue
		}
		seat := c.SeatOf(u.GetGame(), u.GetSeat(), u.GetSeatToken())
		view, err := seat.View(ctx)
		if err != nil {
			return nil, err
		}
		if view.GetStatus() == raminov1.GameStatus_GAME_STATUS_FINISHED {
			return nil, nil
		}
		return seat, nil
	}
}
