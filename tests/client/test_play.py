"""``ramino play`` driven by a script as a person would type, over a real server."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator

import pytest
from ramino_client import (
    BotLevel,
    Client,
    Discard,
    DrawFromStock,
    End,
    LayMelds,
    LayOff,
    Move,
    PassUpcard,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
    TurnPhase,
    play,
)
from ramino_client.play import commands, words
from ramino_client.play.session import Session
from rich.console import Console

from .conftest import ThreadServer, choose

SEEDS = [2, 3]


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The words these tests read are English, whatever the machine's language."""
    monkeypatch.setenv("RAMINO_LANG", "en")
    yield
    words.set_lang("en")


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ramino")
    play.add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["play", *argv])


def command_for(session: Session, move: Move) -> str:
    """What a person types for ``move``, with the numbers the board shows."""
    index = {c.id: i for i, c in enumerate(session.numbering.hand, 1)}
    melds = {t.index: i for i, t in enumerate(session.numbering.table, 1)}
    match move:
        case DrawFromStock():
            return "d"
        case TakeDiscard():
            return "t"
        case TurnOverDiscardPile():
            return "u"
        case LayMelds(melds=cards):
            return "m " + " / ".join(" ".join(str(index[c]) for c in m) for m in cards)
        case LayOff(card_id=card, meld_index=meld, end=end):
            return f"o {index[card]} {melds[meld]} {'start' if end is End.FIRST else 'end'}"
        case SwapJoker(card_id=card, meld_index=meld, joker_id=joker):
            jokers = [c.id for c in session.numbering.table[melds[meld] - 1].meld.cards if c.joker]
            return f"s {index[card]} {melds[meld]} {jokers.index(joker) + 1}"
        case Discard(card_id=card):
            return f"x {index[card]}"
    raise AssertionError(move)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_whole_game_typed_at_the_prompt(seed: int) -> None:
    """A fixed deal (the server's seed) in which the person lays melds."""
    server = ThreadServer(seed=seed)
    server.start()
    try:
        play_a_whole_game(server)
    finally:
        server.close()


def play_a_whole_game(server: ThreadServer) -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, highlight=False)
    typed: list[str] = []
    mistakes = ["x 99", "zz", "o 1", "?", "h", "b"]
    with Client(server.address) as client:
        game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        session = Session(seat, console)

        def read(prompt: str) -> str:
            if mistakes:
                line = mistakes.pop(0)
            elif session.view.phase is TurnPhase.PLAY and "d" not in typed:
                line = "d"  # refused by the server: no second draw
            else:
                legal = session.legal
                move = choose(legal) if legal is not None else None
                line = command_for(session, move) if move is not None else "b"
            typed.append(line)
            return line

        session._read = read
        assert session.run() == 0
        final = seat.view()
    text = out.getvalue()
    assert final.finished
    assert "No card 99 in your hand" in text
    assert "Unknown command 'zz'" in text
    assert "Lay off how?" in text
    assert "Commands" in text and "Your hand" in text and "Discard pile" in text
    assert "Refused:" in text and ("ALREADY_DREW" in text or "FIRST_TURN_HAS_NO_DRAW" in text)
    assert "Greedy bot 2" in text  # the bot's moves, followed from the watch
    assert "Game over" in text and "the match" in text
    assert any(t.startswith("x ") for t in typed) and any(t.startswith("m ") for t in typed)


def test_cards_by_number_or_code(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        session = Session(seat, Console(file=io.StringIO()))
        session._board()
        hand = session.numbering.hand
        first = hand[0]
        assert commands.cards(["1"], hand) == [first.id]
        assert commands.cards([first.code.lower()], hand) == [first.id]
        if first.rank == 10:
            assert commands.cards(["10" + first.code[1].lower()], hand) == [first.id]
        with pytest.raises(commands.Refused):
            commands.cards(["1", "1"], hand)
        with pytest.raises(commands.Refused):
            commands.cards(["ZZ"], hand)


def test_resigning_from_the_command_line(
    server: ThreadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO("q\ny\n"))
    args = parse("--server", server.address, "--bots", "greedy", "--name", "ann")
    assert args.variant == "ramino51" and args.func is play.run
    assert play.run(args, Console(file=out, width=100)) == 0
    text = out.getvalue()
    assert "Started games/" in text and "You resign." in text and "Game over" in text


@pytest.mark.parametrize(
    ("flag", "env"), [(["--lang", "uk"], "en"), ([], "uk")], ids=["flag", "RAMINO_LANG"]
)
def test_ramino_play_speaks_ukrainian_when_asked(
    server: ThreadServer, monkeypatch: pytest.MonkeyPatch, flag: list[str], env: str
) -> None:
    """``--lang uk`` (over RAMINO_LANG), or RAMINO_LANG=uk: the whole game in Ukrainian,
    an answer of "т" (так) to resign included."""
    out = io.StringIO()
    monkeypatch.setenv("RAMINO_LANG", env)
    monkeypatch.setattr("sys.stdin", io.StringIO("?\nq\nт\n"))
    args = parse("--server", server.address, "--bots", "greedy", "--name", "ann", *flag)
    assert play.run(args, Console(file=out, width=100)) == 0
    text = out.getvalue()
    assert "Почато games/" in text and "суперники: жадібний" in text
    assert "Ваша рука (" in text and "Команди" in text
    assert "Ви здаєтеся." in text and "Гру завершено" in text
    assert "Your hand" not in text and "Game over" not in text


def test_joining_a_missing_game_says_why(server: ThreadServer) -> None:
    out = io.StringIO()
    args = parse("--server", server.address, "--game", "games/nosuchgame", "--name", "ann")
    assert play.run(args, Console(file=out, width=100)) == 1
    assert "GAME_NOT_FOUND" in out.getvalue()


def test_unknown_bots_are_refused(server: ThreadServer) -> None:
    args = parse("--server", server.address, "--bots", "greedy,genius")
    with pytest.raises(SystemExit, match="unknown bot 'genius'"):
        play.run(args, Console(file=io.StringIO()))


def test_a_gin_match_typed_at_the_prompt() -> None:
    """Gin at the prompt, on a fixed deal (the server's seed): pass the first
    upcard, knock (k), defend and accept (a)."""
    server = ThreadServer(seed=GIN_SEED)
    server.start()
    try:
        play_a_gin_match(server)
    finally:
        server.close()


# A deal on which the person, following the hint, passes the first upcard and
# knocks before the greedy bot does (seed 4 did until the hint took the shared
# discard policy).
GIN_SEED = 1


def play_a_gin_match(server: ThreadServer) -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, highlight=False)
    typed: list[str] = []
    with Client(server.address) as client:
        game = client.create_game(
            "gin", seats=["ann", BotLevel.GREEDY], overrides={"target_score": 100}
        )
        seat = client.join(game.name, "ann")
        session = Session(seat, console)

        def read(prompt: str) -> str:
            legal = session.legal
            if legal is None or not legal.moves:
                line = "b"
            elif legal.knocks:
                line = "h" if not any(t == "h" for t in typed) else "k"
            elif PassUpcard() in legal.moves:
                line = "p"
            elif session.view.phase is TurnPhase.LAYOFF:
                defend = [*legal.lay_offs, *legal.melds]
                line = command_for(session, defend[0]) if defend else "a"
            else:
                move = choose(legal)
                line = command_for(session, move) if move is not None else "b"
            typed.append(line)
            return line

        session._read = read
        assert session.run() == 0
        final = seat.view()
    text = out.getvalue()
    assert final.finished
    assert "k" in typed and "p" in typed
    assert "knock: k" in text  # the hint's best knock
    assert "pass on the upcard" in text or "passes on the upcard" in text
    assert "Game over" in text


def test_the_servers_ramino_play_is_ramino_play_of_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ramino-client[play] installed beside the server (as make build
    installs them), ``ramino play`` takes the same arguments and runs the same
    command as ``ramino-play``."""
    from ramino.cli import build_parser

    monkeypatch.delenv("RAMINO_SERVER", raising=False)
    args = build_parser().parse_args(["play", "--bots", "random", "--variant", "gin"])
    assert args.func is play.run
    assert (args.bots, args.variant, args.server) == ("random", "gin", "localhost:50051")


def test_levels_lists_the_servers_bot_levels_with_their_ratings(server: ThreadServer) -> None:
    """``ramino play --levels``: every level of the server, weakest first,
    with its rating and time a move, then nothing else (no game started)."""
    out = io.StringIO()
    args = parse("--server", server.address, "--levels")
    assert play.run(args, Console(file=out, width=160)) == 0
    with Client(server.address) as client:
        levels = client.rules.list_bot_levels()
        assert not list(client.list_games())
    text = out.getvalue()
    rows = [line for line in text.splitlines() if any(b.level.value in line for b in levels)]
    for b in levels:
        assert any(b.level.value in row and f"{b.rating:.1f}" in row for row in rows), text
    assert [b.level.value for b in levels] == [r.split()[1] for r in rows[: len(levels)]]
    assert "20 ms" in text and "100 ms" in text
