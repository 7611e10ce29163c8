"""Scenarios: a constructed deal of each variant played move by move, as a
game log, to a known final score."""

from __future__ import annotations

import ramino
from engine_helpers import discard, lay_off, melds, stacked, swap
from ramino.engine import (
    Command,
    DrawFromStock,
    Game,
    MatchEnded,
    RoundEnded,
    TakeDiscard,
    TurnOverDiscardPile,
    stack_deck,
)


def command(game: Game, line: str) -> tuple[int, Command]:
    """``"<seat> <verb> <args>"``: draw, take, turnover, meld A B C | D E F,
    layoff CARD MELD [start|end], swap CARD MELD, discard CARD."""
    seat_text, verb, *rest = line.split(maxsplit=2)
    seat = int(seat_text)
    args = rest[0] if rest else ""
    if verb == "draw":
        return seat, DrawFromStock()
    if verb == "take":
        return seat, TakeDiscard()
    if verb == "turnover":
        return seat, TurnOverDiscardPile()
    if verb == "meld":
        return seat, melds(game, seat, *(m.strip() for m in args.split("|")))
    if verb == "layoff":
        name, meld, *end = args.split()
        return seat, lay_off(game, seat, name, int(meld), end[0] if end else "end")
    if verb == "swap":
        name, meld = args.split()
        return seat, swap(game, seat, name, int(meld))
    if verb == "discard":
        return seat, discard(game, seat, args.strip())
    raise ValueError(line)


def play(game: Game, log: str) -> None:
    for line in log.strip().splitlines():
        line = line.split("#")[0].strip()
        if line:
            seat, cmd = command(game, line)
            assert not game.finished, f"the match ended before {line!r}"
            game.apply(seat, cmd)
            assert not game.conservation_errors()


def results(game: Game) -> list[tuple[int | None, tuple[int, ...], bool]]:
    return [
        (e.winner, e.scores, e.closed_hand) for e in game.record.events if isinstance(e, RoundEnded)
    ]


def test_scenario_ramino51() -> None:
    g = stacked(
        "ramino51",
        [
            "6S JK 8S TD TC TH 9H 9C TS 5S 4D 5D 2H KC 2C",
            "AH 2H 3H QC QD QS 5C 5S 5H 7S 9D 8C 4S 7D",
        ],
        stock="JC 9S 3D",
    )
    play(
        g,
        """
        0 meld 6S JK 8S | TD TC TH      # opening: 21 + 30, no draw on the first turn
        0 discard 2C
        1 draw                          # JC
        1 meld AH 2H 3H | QC QD QS | 5C 5S 5H   # 15 + 30 + 15
        1 discard JC
        0 draw                          # 9S
        0 meld 9H 9C 9S
        0 layoff TS 1                   # TD TC TH TS: closed
        0 layoff 5S 0 start             # 5S 6S JK 8S
        0 discard KC
        1 draw                          # 3D
        1 swap 7S 0                     # the joker stood for 7S
        1 meld 7D JK 9D
        1 discard 3D
        0 take                          # opened: taking the discard is free
        0 meld 3D 4D 5D
        0 discard 2H                    # out by the last discard
    """,
    )
    assert results(g) == [(0, (-40, 12), False)]  # seat 1 keeps 8C 4S
    assert g.finished and g.state.winners == (0,)
    assert isinstance(g.record.events[-1], MatchEnded)
    assert [s.total for s in g.state.seats] == [-40, 12]


def test_scenario_rami51() -> None:
    g = stacked(
        "rami51",
        [
            "AS 2S 3S 4S QH KH AH 9C 9D JK 5D 5C 8S TC",
            "6C 7C 8C KS KD KC 2D 3D JH QD 7H 7S AD JK",
            "2C 3C 4C 6S 7D 8D TS JS QS 9H 9S TH 4D 6H",
        ],
        stock="9H 5H 2H 5S",
    )
    play(
        g,
        """
        0 draw                          # 9H: rami51's first player draws
        0 meld AS 2S 3S | QH KH AH | 9C 9D 9H   # 6 + 31 + 27, a pure run
        0 layoff 4S 0                   # lay-offs are allowed on the opening turn
        0 discard TC
        1 draw                          # 5H
        1 meld 6C 7C 8C | KS KD KC      # 21 + 30 = 51
        1 discard JH
        2 draw                          # 2H
        2 discard 2H
        0 draw                          # 5S
        0 meld 5D 5C 5S
        0 layoff JK 0                   # AS 2S 3S 4S JK
        0 discard 8S
    """,
    )
    # Seat 1: 2D 3D QD 7H 7S AD JK 5H = 2+3+10+7+7+11+20+5; seat 2 never opened.
    assert results(g) == [(0, (0, 65, 100), False)]
    assert g.state.winners == (0,)


def test_scenario_rummy_match() -> None:
    overrides = {"target_score": 60}
    round2 = stack_deck(
        ramino.Variant("rummy", **overrides),
        # Round 2: seat 0 deals, seat 1 plays first.
        ["4C 5C 6C 7C 8D 8H 8S KD QD JD", "AS 2D 3H 4S 5D 6H 7S 9D TH JC"],
        upcard="KS",
        stock="3C",
    )
    g = stacked(
        "rummy",
        ["AS 2S 3S 4S 7H 7D 7C KH QH 9C", "5S 6S 8S JD JC JS 2H 3C 6D TC"],
        upcard="JH",
        stock="8D TH",
        overrides=overrides,
        later_decks=[round2],
    )
    play(
        g,
        """
        0 take                          # the upcard JH
        0 meld AS 2S 3S | JH QH KH
        0 discard 9C
        1 draw                          # 8D
        1 meld JD JC JS
        1 discard TC
        0 draw                          # TH
        0 layoff TH 1 start
        0 layoff 4S 0                   # onto its own run
        0 meld 7H 7D 7C                 # out by melding, no discard needed
    """,
    )
    assert results(g) == [(0, (38, 0), False)]  # 5S 6S 8S 2H 3C 6D 8D
    assert g.state.round == 2 and g.state.dealer == 0 and g.state.turn == 1
    play(
        g,
        """
        1 draw                          # 3C
        1 meld 3C 4C 5C 6C 7C | 8D 8H 8S | JD QD KD   # rummy: all in one turn
    """,
    )
    # Seat 0 holds A 2 3 4 5 6 7 9 10 J = 57, doubled for going rummy.
    assert results(g)[1] == (1, (0, 114), True)
    assert [s.total for s in g.state.seats] == [38, 114]
    assert g.finished and g.state.winners == (1,)
