package ramino_test

import (
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"google.golang.org/grpc/codes"
)

func TestListGamesPagesThroughTheLobby(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	created := map[string]bool{}
	for range 5 {
		g, err := client.CreateGame(ctx, ramino.GameSpec{Variant: "rummy", Seats: []ramino.SeatSpec{ramino.Person(""), ramino.Greedy()}})
		if err != nil {
			t.Fatal(err)
		}
		created[g.GetName()] = true
	}
	seen := map[string]int{}
	filter := ramino.ListFilter{Variant: "rummy", OpenSeatsOnly: true, PageSize: 2}
	for g, err := range client.ListGames(ctx, filter) {
		if err != nil {
			t.Fatal(err)
		}
		if g.GetVariant() != "rummy" || g.GetOpenSeats() == 0 {
			t.Errorf("%s: %s with %d open seats passed the filter", g.GetName(), g.GetVariant(), g.GetOpenSeats())
		}
		seen[g.GetName()]++
	}
	for name := range created {
		if seen[name] != 1 {
			t.Errorf("%s listed %d times", name, seen[name])
		}
	}
	for g, err := range client.ListGames(ctx, ramino.ListFilter{Variant: "nosuchvariant"}) {
		if err == nil {
			t.Errorf("a game of an unknown variant was listed: %v", g)
		}
	}
}

func TestTheCreatorCancelsAGameAndASeatCannot(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	game, err := client.CreateGame(ctx, ramino.GameSpec{Variant: "ramino51", Seats: []ramino.SeatSpec{ramino.Person("ann"), ramino.Person("")}})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := client.JoinGame(ctx, game.ID(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CancelGame(ctx, game.GetName(), seat.Token)
	asError(t, err, codes.PermissionDenied, "NOT_CREATOR")
	view, err := client.CancelGame(ctx, game.GetName(), game.CreatorToken)
	if err != nil {
		t.Fatal(err)
	}
	if view.GetStatus() != raminov1.GameStatus_GAME_STATUS_FINISHED || view.GetEndReason() != "cancelled" || view.Seat != nil {
		t.Errorf("cancelled: %v, %q, seat %v", view.GetStatus(), view.GetEndReason(), view.Seat)
	}
	// The seat's watch of a cancelled game: its snapshot, then it ends.
	var items []*raminov1.WatchGameResponse
	for item, err := range seat.Watch(ctx).All() {
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, item)
	}
	if len(items) != 1 || items[0].GetSnapshot().GetEndReason() != "cancelled" {
		t.Errorf("the watch of a cancelled game yielded %v", items)
	}
}

func TestTheRulesServiceValidatesMeldsAndAnalysesHands(t *testing.T) {
	ctx := testCtx(t)
	client := dial(t, shared)
	ok, err := client.ValidateMeld(ctx, "ramino51", []string{"QH", "KH", "AH"})
	if err != nil || !ok.GetValid() || ok.GetMeld().GetKind() != raminov1.MeldKind_MELD_KIND_RUN {
		t.Fatalf("QH KH AH: %v %v", ok, err)
	}
	bad, err := client.ValidateMeld(ctx, "ramino51", []string{"2H", "5H", "9C"})
	if err != nil || bad.GetValid() || bad.GetReason() == "" {
		t.Fatalf("2H 5H 9C: %v %v", bad, err)
	}
	analysis, err := client.AnalyzeHand(ctx, "ramino51", []string{"AS", "2S", "3S", "7H", "7D", "7C", "KD"}, [][]string{{"4S", "5S", "6S"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(analysis.GetMinDeadwood().GetMelds()) != 2 || len(analysis.GetLayOffs()) == 0 {
		t.Errorf("analysis: %v", analysis)
	}
	_, err = client.ValidateMeld(ctx, "nosuchvariant", []string{"AS"})
	if ramino.Code(err) != codes.InvalidArgument {
		t.Errorf("an unknown variant: %v", err)
	}
}

func TestAFriendJoinsAPrivateGameByItsLink(t *testing.T) {
	ctx := testCtx(t)
	ann, bob := dial(t, shared), dial(t, shared)
	game, err := ann.CreateGame(ctx, ramino.GameSpec{Variant: "rummy", Seats: []ramino.SeatSpec{ramino.Person(""), ramino.Person("")}, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if !game.Private() || game.InviteCode == "" || !game.GetSpectatorsDisabled() {
		t.Fatalf("a private game: %v, code %q", game.Game, game.InviteCode)
	}
	for g, err := range ann.ListGames(ctx, ramino.ListFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		if g.GetName() == game.GetName() {
			t.Errorf("the private game %s was listed", g.GetName())
		}
	}
	_, err = bob.JoinInvite(ctx, game.InviteCode[:len(game.InviteCode)-1], "Bob")
	asError(t, err, codes.NotFound, "INVITE_NOT_VALID")
	link := ramino.InviteLink("https://play.example/ramino/", game.InviteCode)
	if link != "https://play.example/ramino/#invite="+game.InviteCode {
		t.Errorf("the link is %q", link)
	}
	mine, err := ann.JoinInvite(ctx, game.InviteCode, "Ann")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := bob.JoinInvite(ctx, link, "Bob")
	if err != nil {
		t.Fatal(err)
	}
	if mine.Number != 0 || theirs.Number != 1 || theirs.Name != game.GetName() {
		t.Errorf("seats %d and %d of %s", mine.Number, theirs.Number, theirs.Name)
	}
	// Dealt: the code opens nothing now.
	_, err = dial(t, shared).JoinInvite(ctx, game.InviteCode, "Cid")
	asError(t, err, codes.NotFound, "INVITE_NOT_VALID")
}

func TestInviteCodesAreReadFromLinks(t *testing.T) {
	code := "0123456789abcdef.AbC-d_ef"
	for _, text := range []string{
		code,
		" " + code + " ",
		ramino.InviteLink("https://x.example/#old", code),
		"https://x.example/?invite=" + code,
		"https://x.example/?a=1&invite=" + code + "&b=2",
	} {
		if got := ramino.InviteCodeOf(text); got != code {
			t.Errorf("InviteCodeOf(%q) = %q", text, got)
		}
	}
}
