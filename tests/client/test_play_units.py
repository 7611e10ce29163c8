"""``ramino-play``'s parts without a server: the reading of typed lines
(play/commands.py) and the drawing of the screen (play/render.py), on views
and legal moves built by hand."""

from __future__ import annotations

import io
import re
import sys

import pytest
from ramino_client import (
    AcceptLayout,
    BotLevel,
    Card,
    Discard,
    Discarded,
    DrawFromStock,
    DrewFromStock,
    End,
    Event,
    GameStatus,
    GameView,
    Hint,
    JokerRole,
    JokerSwapped,
    Knock,
    Knocked,
    LayMelds,
    LayOff,
    LayoutAccepted,
    LegalMoves,
    Meld,
    MeldKind,
    MeldsLaid,
    PassedUpcard,
    PassUpcard,
    RoundEnded,
    RoundScores,
    ScorePart,
    SeatInfo,
    SeatReclaimed,
    SwapJoker,
    TableMeld,
    TakeDiscard,
    TookDiscard,
    TurnOverDiscardPile,
    TurnPhase,
    VariantInfo,
    play,
)
from ramino_client.play import commands, render
from ramino_client.play.commands import Action, Numbering, Refused, parse
from rich.console import Console, RenderableType

# The person's hand, by id; shown sorted: ♠ first, then ♥, ♣, ♦, jokers last.
HAND = (
    Card.from_code("KD", 6),
    Card.from_code("3H", 1),
    Card.from_code("TC", 7),
    Card.from_code("4H", 2),
    Card.from_code("JK", 4),
    Card.from_code("5H", 3),
    Card.from_code("KS", 5),
)
RUN_WITH_JOKER = TableMeld(
    index=0,
    owner=1,
    meld=Meld(
        MeldKind.RUN,
        24,
        (Card.from_code("7S", 10), Card.from_code("JK", 11), Card.from_code("9S", 12)),
        jokers=(JokerRole(1, ("8S",)),),
    ),
)
SET = TableMeld(
    index=1,
    owner=1,
    meld=Meld(
        MeldKind.SET,
        30,
        (Card.from_code("QS", 20), Card.from_code("QH", 21), Card.from_code("QC", 22)),
    ),
)
TWO_JOKERS = TableMeld(
    index=2,
    owner=0,
    meld=Meld(
        MeldKind.RUN,
        15,
        (Card.from_code("4C", 30), Card.from_code("JK", 31), Card.from_code("JK", 32)),
    ),
)


def view(
    phase: TurnPhase = TurnPhase.PLAY,
    turn: int | None = 0,
    parameters: dict[str, object] | None = None,
    status: GameStatus = GameStatus.PLAYING,
    winners: tuple[int, ...] = (),
    rounds: tuple[RoundScores, ...] = (),
) -> GameView:
    return GameView(
        name="games/g1",
        version=7,
        status=status,
        variant=VariantInfo("ramino51", parameters or {"open_threshold": 51}),
        seat=0,
        hand=HAND,
        seats=(
            SeatInfo(0, "ann", None, True, hand_size=len(HAND), total=12),
            SeatInfo(1, "Greedy bot 2", BotLevel.GREEDY, True, hand_size=9, opened=True, total=3),
        ),
        table=(RUN_WITH_JOKER, SET),
        discard_pile=(Card.from_code("2C", 40), Card.from_code("8D", 41)),
        stock_size=1,
        turn=turn,
        phase=phase,
        round=2,
        dealer=1,
        seed_hash="ab" * 32,
        seed="s33d" if status is GameStatus.FINISHED else "",
        winners=winners,
        turn_timer_seconds=0,
        turn_deadline=None,
        rounds=rounds,
    )


SHOWN = render.numbering(view())
# The numbers the board gives: 1 K♠, 2 3♥, 3 4♥, 4 5♥, 5 10♣, 6 K♦, 7 JK.
ID = {n: c.id for n, c in enumerate(SHOWN.hand, 1)}


def legal(*moves: object, hint: Hint | None = None) -> LegalMoves:
    return LegalMoves(7, tuple(moves), hint)  # type: ignore[arg-type]


def text(*items: RenderableType | None) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, highlight=False, color_system=None)
    for item in items:
        if item is not None:
            console.print(item)
    return out.getvalue()


# --- reading what is typed ------------------------------------------------


def test_the_board_numbers_the_hand_by_suit_then_rank_jokers_last() -> None:
    assert [c.code for c in SHOWN.hand] == ["KS", "3H", "4H", "5H", "TC", "KD", "JK"]
    assert SHOWN.table == (RUN_WITH_JOKER, SET)


@pytest.mark.parametrize(
    ("line", "action"),
    [("q", Action.QUIT), ("resign", Action.QUIT), ("?", Action.HELP), ("HELP", Action.HELP)]
    + [
        ("b", Action.BOARD),
        (" board ", Action.BOARD),
        ("h", Action.HINTS),
        ("hints", Action.HINTS),
    ],
)
def test_local_commands_are_actions(line: str, action: Action) -> None:
    assert parse(line, SHOWN, None) is action


def test_a_blank_line_is_no_command() -> None:
    assert parse("", SHOWN, None) is None and parse("   ", SHOWN, None) is None


@pytest.mark.parametrize(
    ("line", "move"),
    [
        ("d", DrawFromStock()),
        ("draw", DrawFromStock()),
        ("t", TakeDiscard()),
        ("u", TurnOverDiscardPile()),
        ("p", PassUpcard()),
        ("pass", PassUpcard()),
        ("a", AcceptLayout()),
        ("accept", AcceptLayout()),
        ("x 1", Discard(5)),
        ("X kd", Discard(6)),
        ("discard 10c", Discard(7)),
    ],
)
def test_moves_without_choices(line: str, move: object) -> None:
    assert parse(line, SHOWN, None) == move


def test_cards_by_number_or_code() -> None:
    hand = SHOWN.hand
    assert commands.cards(["2", "4h", "jk"], hand) == [1, 2, 4]
    assert commands.cards(["tc"], hand) == commands.cards(["10C"], hand) == [7]
    with pytest.raises(Refused, match=r"No card 99 in your hand \(1 to 7\)"):
        commands.cards(["99"], hand)
    with pytest.raises(Refused, match="3♥ is named twice"):
        commands.cards(["2", "2"], hand)
    with pytest.raises(Refused, match="No 3h in your hand"):
        commands.cards(["2", "3h"], hand)
    with pytest.raises(Refused, match="neither a card number nor a card"):
        commands.cards(["zz"], hand)
    with pytest.raises(Refused, match="No 2S in your hand"):
        commands.cards(["2S"], hand)


def test_a_code_names_the_first_copy_not_yet_named() -> None:
    twins = (Card.from_code("7C", 50), Card.from_code("7C", 51))
    assert commands.cards(["7c", "7c"], twins) == [50, 51]
    with pytest.raises(Refused, match="No 7c in your hand"):
        commands.cards(["7c", "7c", "7c"], twins)


def test_melds_are_split_by_slashes_bars_or_commas() -> None:
    two = LayMelds(((1, 2, 3), (5, 6, 4)))
    assert parse("m 2 3 4 / 1 6 7", SHOWN, None) == two
    assert parse("meld 2 3 4 | 1 6 7", SHOWN, None) == two
    assert parse("m 2 3 4, 1 6 7", SHOWN, None) == two
    with pytest.raises(Refused, match="Meld which cards"):
        parse("m", SHOWN, None)
    with pytest.raises(Refused, match="Meld which cards"):
        parse("m / /", SHOWN, None)


def test_a_meld_takes_the_order_the_server_proposed_for_the_same_cards() -> None:
    # K♠ JK K♦ typed in any order: the server's order puts the joker in place.
    proposed = LayMelds(((5, 4, 6),), value=30)
    assert parse("m jk ks kd", SHOWN, legal(proposed)) == LayMelds(((5, 4, 6),))
    assert parse("m jk ks kd", SHOWN, None) == LayMelds(((4, 5, 6),))


def test_lay_off_names_the_card_the_meld_and_the_end() -> None:
    assert parse("o 1 1", SHOWN, None) == LayOff(5, 0, End.LAST)
    assert parse("o 1 1 start", SHOWN, None) == LayOff(5, 0, End.FIRST)
    assert parse("layoff 1 2 end", SHOWN, None) == LayOff(5, 1, End.LAST)
    # The one end the server allows, when none is typed.
    assert parse("o 1 1", SHOWN, legal(LayOff(5, 0, End.FIRST))) == LayOff(5, 0, End.FIRST)
    two_ends = legal(LayOff(5, 0, End.FIRST), LayOff(5, 0, End.LAST))
    assert parse("o 1 1", SHOWN, two_ends) == LayOff(5, 0, End.LAST)
    with pytest.raises(Refused, match="Lay off how"):
        parse("o 1", SHOWN, None)
    with pytest.raises(Refused, match=r"No meld 3 on the table \(1 to 2\)"):
        parse("o 1 3", SHOWN, None)
    with pytest.raises(Refused, match="no meld on the table yet"):
        parse("o 1 1", Numbering(SHOWN.hand, ()), None)
    with pytest.raises(Refused, match="The end is start or end"):
        parse("o 1 1 middle", SHOWN, None)


def test_swap_names_the_card_the_meld_and_which_joker() -> None:
    assert parse("s 1 1", SHOWN, None) == SwapJoker(5, 0, 11)
    assert parse("swap 1 1 1", SHOWN, None) == SwapJoker(5, 0, 11)
    with pytest.raises(Refused, match="That meld has no joker"):
        parse("s 1 2", SHOWN, None)
    with pytest.raises(Refused, match="Swap how"):
        parse("s 1", SHOWN, None)
    jokers = Numbering(SHOWN.hand, (TWO_JOKERS,))
    with pytest.raises(Refused, match="has 2 jokers: say which, 1 to 2"):
        parse("s 1 1", jokers, None)
    assert parse("s 1 1 2", jokers, None) == SwapJoker(5, 2, 32)
    with pytest.raises(Refused, match="Say which joker of the meld, 1 to 2"):
        parse("s 1 1 3", jokers, None)


GIN_KNOCKS = legal(
    Knock(5, ((1, 2, 3),), deadwood=4),
    Knock(6, ((1, 2, 3),), deadwood=7),
    Discard(5),
)


def test_knock_alone_is_the_best_knock() -> None:
    assert parse("k", SHOWN, GIN_KNOCKS) == Knock(5, ((1, 2, 3),), deadwood=4)
    with pytest.raises(Refused, match="You cannot knock now"):
        parse("k", SHOWN, legal(Discard(5)))
    with pytest.raises(Refused, match="You cannot knock now"):
        parse("knock", SHOWN, None)


def test_knock_with_a_card_is_the_knock_discarding_it() -> None:
    assert parse("k 6", SHOWN, GIN_KNOCKS) == Knock(6, ((1, 2, 3),), deadwood=7)
    assert parse("k kd", SHOWN, GIN_KNOCKS) == Knock(6, ((1, 2, 3),), deadwood=7)
    with pytest.raises(Refused, match="No knock discarding that card"):
        parse("k 5", SHOWN, GIN_KNOCKS)


def test_knock_with_melds_sends_that_discard_and_those_melds() -> None:
    assert parse("k 1 2 3 4 / 7 6", SHOWN, None) == Knock(5, ((1, 2, 3), (4, 6)))
    with pytest.raises(Refused, match="named twice"):
        parse("k 1 1 2 3", SHOWN, None)
    with pytest.raises(Refused, match="named twice"):
        parse("k 1 2 3 2", SHOWN, None)


def test_unknown_commands_and_wrong_arguments_are_refused() -> None:
    with pytest.raises(Refused, match="Unknown command 'zz'; type \\? for help"):
        parse("zz 1", SHOWN, None)
    with pytest.raises(Refused, match="Discard which card"):
        parse("x", SHOWN, None)
    with pytest.raises(Refused, match="Discard which card"):
        parse("x 1 2", SHOWN, None)


def test_bots_and_overrides_of_the_command_line() -> None:
    assert commands.bots("greedy, Random,,") == [BotLevel.GREEDY, BotLevel.RANDOM]
    assert commands.bots("") == []
    assert commands.bots("easy,Hard, expert") == [BotLevel.EASY, BotLevel.HARD, BotLevel.EXPERT]
    choices = "random, greedy, easy, medium, hard, expert"
    with pytest.raises(Refused, match=f"unknown bot 'genius' \\(choose from {choices}\\)"):
        commands.bots("greedy,genius")
    assert commands.overrides(["max_rounds=3", "ace_high=false", "scoring=classic"]) == {
        "max_rounds": 3,
        "ace_high": False,
        "scoring": "classic",
    }
    assert commands.overrides(None) == {}


# --- drawing the screen ---------------------------------------------------


def test_the_board_shows_the_numbers_the_commands_read() -> None:
    seen = render.Seen(view(), 0, {c.id: c for c in HAND if c.id is not None})
    shown = text(*render.board(seen, None, fresh={2}))
    numbered = re.findall(r"(\d+):(\S+)", shown.split("Your hand")[1])
    assert numbered == [(str(n), c.symbol) for n, c in enumerate(SHOWN.hand, 1)]
    assert "Round 2 · ramino51 · games/g1" in shown
    assert "ann (you)" in shown and "Greedy bot 2" in shown
    assert "opened" in shown  # ramino51 opens at 51
    assert "7♠ JK=8♠ 9♠" in shown and "run 24, Greedy bot 2" in shown
    assert "Discard pile 8♦ (2 cards)    Stock 1 card" in shown
    assert "Your hand (7 cards)" in shown


def test_the_board_leaves_out_opened_where_any_meld_opens() -> None:
    seen = render.Seen(view(parameters={"open_threshold": 0}), 0)
    assert "opened" not in text(*render.board(seen, None, fresh=set()))


HINTED = legal(
    LayMelds(((1, 2, 3),), value=12),
    LayOff(5, 0, End.FIRST),
    SwapJoker(5, 0, 11),
    Discard(6),
    Discard(7),
    hint=Hint(None, None, Card.from_code("KD", 6)),
)


def test_hints_are_the_commands_that_play_them() -> None:
    seen = render.Seen(view(), 0, {c.id: c for c in HAND if c.id is not None})
    shown = text(render.hints(seen, HINTED, SHOWN, full=False))
    assert "meld: m 2 3 4  (3♥ 4♥ 5♥, 12 points)" in shown
    assert "lay off: o 1 1 start  (K♠)" in shown
    assert "swap: s 1 1  (K♠ for the joker)" in shown
    assert "discard: x 6  (K♦)" in shown
    assert render.hints(seen, None, SHOWN, full=True) is None
    not_mine = render.Seen(view(turn=1), 0)
    assert render.hints(not_mine, HINTED, SHOWN, full=True) is None
    assert "you cannot open yet" in text(render.hints(seen, legal(), SHOWN, full=True))
    drawing = render.Seen(view(TurnPhase.DRAW), 0)
    assert "No hints" in text(render.hints(drawing, legal(), SHOWN, full=True))


def test_the_knock_hint_is_the_k_command() -> None:
    seen = render.Seen(view(), 0, {c.id: c for c in HAND if c.id is not None})
    hint = Hint(None, None, None, best_knock=Knock(6, ((1, 2, 3),), deadwood=5))
    shown = text(render.hints(seen, legal(*GIN_KNOCKS.moves, hint=hint), SHOWN, full=False))
    assert "knock: k 6  (3♥ 4♥ 5♥; 5 unmatched)" in shown


def test_the_prompt_offers_what_the_phase_allows() -> None:
    draw = render.prompt(view(TurnPhase.DRAW), legal(DrawFromStock(), TakeDiscard(), PassUpcard()))
    assert "[cyan]d[/cyan] draw" in draw and "[cyan]p[/cyan] pass" in draw
    assert "take [bold red]8♦[/]" in draw
    assert "draw" not in render.prompt(view(TurnPhase.DRAW), legal(PassUpcard()))
    defend = render.prompt(view(TurnPhase.LAYOFF), legal())
    assert defend.startswith("Defend:") and "[cyan]a[/cyan] accept" in defend
    gin = view(parameters={"knocking": True})
    assert "[cyan]k[/cyan] knock" in render.prompt(gin, GIN_KNOCKS)
    assert "knock" not in render.prompt(gin, legal(Discard(5)))
    assert "[cyan]m[/cyan] meld" in render.prompt(view(), legal())


def event(e: Event, me: int = 0) -> str | None:
    known = {c.id: c for c in (*HAND, *RUN_WITH_JOKER.meld.cards) if c.id is not None}
    return render.event_text(render.Seen(view(), me, known), e)


def test_events_are_told_from_the_persons_side() -> None:
    assert event(DrewFromStock(version=8, seat=0, card=2)) == (
        "You draw [bold red]4♥[/] from the stock."
    )
    assert event(DrewFromStock(version=8, seat=1, card=None)) == (
        "Greedy bot 2 draws from the stock."
    )
    assert event(TookDiscard(version=8, seat=1, card=99)) == (
        "Greedy bot 2 takes a card from the pile."
    )
    assert event(Discarded(version=9, seat=0, card=6)) == "You discard [bold red]K♦[/]."
    laid = event(MeldsLaid(version=9, seat=1, melds=((1, 2, 3),), opening=True))
    assert laid is not None and laid.startswith("Greedy bot 2 opens with")
    swapped = event(JokerSwapped(version=9, seat=0, card=5, meld=0, joker=11))
    assert swapped == "You give [bold]K♠[/] for the joker of meld 1."
    assert event(SeatReclaimed(version=9, seat=1)) is None


def test_gin_events_are_told() -> None:
    assert event(PassedUpcard(version=3, seat=1)) == "Greedy bot 2 passes on the upcard."
    assert event(PassedUpcard(version=3, seat=0)) == "You pass on the upcard."
    gin = event(Knocked(version=5, seat=0, discard=None, melds=((1, 2, 3),), deadwood=0))
    assert gin is not None and gin.startswith("You go gin: ")
    knock = event(Knocked(version=5, seat=1, discard=6, melds=(), deadwood=8))
    assert knock == "Greedy bot 2 knocks with 8 unmatched: no melds."
    assert event(LayoutAccepted(version=6, seat=1)) == "Greedy bot 2 accepts the layout."


def test_the_cards_an_event_names() -> None:
    assert render.event_cards(DrewFromStock(version=1, seat=0, card=None)) == []
    assert render.event_cards(DrewFromStock(version=1, seat=0, card=4)) == [4]
    assert render.event_cards(JokerSwapped(version=1, seat=0, card=5, meld=0, joker=11)) == [5, 11]
    laid = MeldsLaid(version=1, seat=0, melds=((1, 2), (3,)), opening=False)
    assert render.event_cards(laid) == [1, 2, 3]


def test_round_scores_and_the_final_table() -> None:
    ended = RoundEnded(
        version=30,
        round=2,
        ending="went_out",
        winner=0,
        closed_hand=False,
        scores=(0, 45),
        hands=((), ()),
    )
    seen = render.Seen(view(), 0)
    assert "Round 2 is over: you went out." in text(*render.round_scores(seen, ended, table=False))
    scores = text(*render.round_scores(seen, ended, table=True))
    assert re.search(r"Greedy bot 2\s+45\s+3", scores)
    rounds = (RoundScores(1, (12, 0), 1, "went_out"), RoundScores(2, (0, 45), 0, "went_out"))
    over = view(status=GameStatus.FINISHED, winners=(0,), rounds=rounds, turn=None)
    final = text(*render.final(render.Seen(over, 0)))
    assert "Game over" in final and "You win the match." in final
    assert re.search(r"you\s+12\s+0\s+12", final) and "Seed s33d" in final


def test_a_rounds_scores_are_explained_by_the_parts_the_server_sent() -> None:
    ended = RoundEnded(
        version=30,
        round=1,
        ending="went_out",
        winner=1,
        closed_hand=False,
        scores=(100, -40),
        hands=((), ()),
        parts=(
            (ScorePart(kind="never_opened", points=100, base=83),),
            (ScorePart(kind="went_out", points=-40),),
        ),
    )
    scores = text(*render.round_scores(render.Seen(view(), 0), ended, table=True))
    assert "how it counts" in scores
    assert re.search(r"you\s+100\s+83 in hand → 100: never opened", scores), scores
    assert re.search(r"Greedy bot 2\s+-40\s+went out: -40", scores), scores
    seen = render.Seen(view(), 1)
    collected = ScorePart(kind="hand_collected", points=12, base=12, seat=0)
    undercut = ScorePart(kind="undercut_bonus", points=25)
    assert render.score_parts(seen, (collected, undercut)) == "ann's hand +12, undercut +25"
    # A kind this client does not know: its points, never an error.
    assert render.score_part(seen, ScorePart(kind="future_bonus", points=7)) == "+7"


def test_waiting_and_leaving() -> None:
    assert render.waiting(render.Seen(view(turn=1), 0)) == "[dim]… Greedy bot 2 to play[/dim]"
    waiting = render.waiting(render.Seen(view(status=GameStatus.WAITING, turn=None), 0))
    assert waiting is not None and "ramino-play --game games/g1" in waiting
    back = render.come_back(view(), "tok")
    assert "ramino-play --game games/g1 --token tok" in back


def test_ramino_play_without_the_play_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ramino-client without its play extra: rich cannot be imported."""
    for name in ("rich", "rich.console", "rich.markup"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(SystemExit, match=re.escape("pip install 'ramino-client[play]'")):
        play.main(["--server", "127.0.0.1:1"])
