"""The game kernel's binding (``ramino._core``: ``GameRules``, ``GameKernel``
and the policies): commands, events, the state and the hint cross as the
engine's own classes and come back unchanged; refusals keep the engine's
class, reason and detail; bad input is refused, before the state, with the
engine's reason and nothing changed; a setup or a record that does not fit is
refused with its reason.

The engine (``ramino.engine``, itself over a kernel game) plays a small
corpus of seeded games that between them hold every event type; a second
kernel folds their events, applies their commands and answers the same legal
moves and hints: the conversions lose nothing. The policies answer what the
Python engine the kernel replaced answered on the same hands: its answers
were recorded into ``tests/vectors/policies/policies.jsonl.gz`` at commit
164b872 (``python -m tests.engine.record_policies --write`` there, beside the
frozen engine it read, ``tests/engine_reference``).
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
import json
import random
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import ramino
from ramino import _core, reasons
from ramino.engine import (
    EVENT_TYPES,
    AcceptLayout,
    Discard,
    Discarded,
    DrawFromStock,
    Game,
    IllegalMove,
    InvalidSetup,
    Knock,
    LaidOff,
    LayMelds,
    LayOff,
    MalformedCommand,
    PassUpcard,
    RecordError,
    Resign,
    RoundEnded,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino.engine.context import rules_for
from ramino.engine.hint import Hint
from ramino.engine.snapshot import state_to_data
from ramino.engine.state import Seat, State, TableMeld

# (variant, overrides, players, seed, step of a resignation): seeded games
# that between them hold every event type (test_the_corpus_holds_every_event_type).
CORPUS: list[tuple[str, dict[str, Any], int, int, int | None]] = [
    ("ramino51", {}, 2, 11, None),  # a joker swap
    ("ramino51", {}, 3, 2, 5),  # a resignation
    ("rummy", {"target_score": 30, "stock_exhausted": "turn_over"}, 2, 3, None),
    ("rummy", {"target_score": 30}, 2, 10, None),  # a reshuffle
    ("gin", {"target_score": 10}, 2, 5, None),  # passes, a knock, the layout
]
HINT_EVERY = 5
"""The legal moves and hints of every seat are recorded every few steps."""
POLICY_VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "policies" / "policies.jsonl.gz"


@dataclasses.dataclass
class Step:
    seat: int
    command: Any
    events: list[Any]
    turns: tuple[int | None, ...]
    before: State
    """The state before the command."""
    answers: dict[int, tuple[list[Any], Any]] | None
    """Per seat: its legal moves and hint before the command (some steps)."""


@dataclasses.dataclass
class Played:
    variant: str
    overrides: dict[str, Any]
    players: list[str]
    seed: int
    game: Game
    deal: list[Any]
    deal_turns: tuple[int | None, ...]
    steps: list[Step]
    states: dict[int, State]
    """The engine's state at each version reached after a command."""


@cache
def played(case: int) -> Played:
    """The engine's game of ``CORPUS[case]``: commands picked at random (a
    move other than a discard four times in five) from its legal moves."""
    variant, overrides, n, seed, resign_at = CORPUS[case]
    players = [f"p{i}" for i in range(n)]
    game = Game.new(variant, players, seed=seed, overrides=overrides)
    rng = random.Random(seed)
    out = Played(
        variant,
        overrides,
        players,
        seed,
        game,
        list(game.record.events),
        game.turns,
        [],
        {game.version: copy.deepcopy(game.state)},
    )
    while not game.finished and len(out.steps) < 3000:
        seat = game.turn
        assert seat is not None
        before = copy.deepcopy(game.state)
        answers = None
        if len(out.steps) % HINT_EVERY == 0:
            answers = {s: (game.legal_moves(s), game.hint(s)) for s in range(n)}
        if len(out.steps) == resign_at:
            command: Any = Resign()
        else:
            moves = game.legal_moves(seat)
            rest = [m for m in moves if not isinstance(m, Discard)]
            command = rng.choice(rest) if rest and rng.random() < 0.8 else rng.choice(moves)
        events = game.apply(seat, command)
        out.steps.append(Step(seat, command, events, game.turns, before, answers))
        out.states[game.version] = copy.deepcopy(game.state)
    assert game.finished
    return out


def rules_of(p: Played) -> _core.GameRules:
    return _core.GameRules(ramino.Variant(p.variant, **p.overrides))


def kernel_of(p: Played) -> _core.GameKernel:
    """A kernel set up as the engine's game was, not dealt yet."""
    return _core.GameKernel(rules_of(p), p.players, p.seed)


def kernel_at(p: Played, state: State) -> _core.GameKernel:
    return _core.GameKernel.from_state(rules_of(p), p.seed, [], state)


def refusal(e: BaseException) -> tuple[str, str, str | None]:
    """A refusal's class, reason and detail (its message is not compared)."""
    reason = getattr(e, "reason", None)
    assert isinstance(reason, str), e
    return type(e).__name__, reason, getattr(e, "detail", None)


def deadwood_of(d: ramino.Deadwood) -> tuple[int, list[list[str]], list[str]]:
    return d.value, d.melds, d.deadwood


def hint_fields(h: Any) -> dict[str, Any] | None:
    """A hint's fields, its deadwood (which has no equality) by value."""
    if h is None:
        return None
    fields = {f.name: getattr(h, f.name) for f in dataclasses.fields(h)}
    fields["deadwood"] = deadwood_of(fields["deadwood"])
    return fields


def mid_game(kind: str = "ramino51") -> tuple[Played, Step]:
    """A step of the corpus in the play phase (of a game of ``kind``), with
    melds on the table but in gin, where they come with a knock."""
    for case, (variant, *_rest) in enumerate(CORPUS):
        if variant != kind:
            continue
        p = played(case)
        for step in p.steps:
            if step.before.phase == "play" and (step.before.melds or kind == "gin"):
                return p, step
    raise AssertionError(f"no {kind} step in play")


def engine_at(p: Played, state: State) -> Game:
    """The engine's game in ``state`` (its record's header is the game's)."""
    return Game.from_snapshot(p.game.record, state_to_data(state))


# --- the corpus -------------------------------------------------------------------


def test_the_corpus_holds_every_event_type() -> None:
    seen = set()
    for case in range(len(CORPUS)):
        seen |= {type(e).__name__ for e in played(case).game.record.events}
    assert seen == set(EVENT_TYPES)


# --- the state --------------------------------------------------------------------


@pytest.mark.parametrize("case", range(len(CORPUS)))
def test_a_state_crosses_into_the_kernel_and_back_unchanged(case: int) -> None:
    p = played(case)
    for version, state in list(p.states.items())[::7]:
        k = kernel_at(p, state)
        back = k.state()
        assert back == state, version
        assert type(back) is State
        assert all(type(m) is TableMeld for m in back.melds)
        assert all(type(r) is RoundEnded for r in back.results)
        assert type(back.winners) is tuple
        assert k.version == state.version == version
        assert k.phase == state.phase
        assert k.round == state.round
        assert k.finished == (state.phase == "over")
        assert k.turn == (state.turn if state.phase in ("draw", "play", "layoff") else None)
        for s, seat in enumerate(state.seats):
            assert k.hand(s) == tuple(seat.hand)


def test_a_state_with_jokers_on_the_table_keeps_what_each_stands_for() -> None:
    p = played(0)
    with_jokers = [v for v, s in p.states.items() if any(m.jokers for m in s.melds)]
    assert with_jokers
    state = p.states[with_jokers[0]]
    back = kernel_at(p, state).state()
    assert [m.jokers for m in back.melds] == [m.jokers for m in state.melds]
    assert [list(m.jokers) for m in back.melds] == [list(m.jokers) for m in state.melds]
    assert all(isinstance(v, tuple) for m in back.melds for v in m.jokers.values())


def test_a_new_kernel_is_set_up_but_not_dealt() -> None:
    p = played(0)
    k = kernel_of(p)
    assert (k.version, k.phase, k.round, k.turn, k.finished) == (
        0,
        "between_rounds",
        0,
        None,
        False,
    )
    state = k.state()
    assert state == State([Seat(n) for n in p.players])
    assert (state.dealer, state.first_player, state.turn) == (-1, -1, -1)


@pytest.mark.parametrize("case", range(len(CORPUS)))
def test_every_event_folds_into_the_state_the_engine_folds(case: int) -> None:
    p = played(case)
    k = kernel_of(p)
    for e in p.game.record.events:
        k.fold(e)
        if k.version in p.states:
            assert k.state() == p.states[k.version], (k.version, e)
    assert k.state() == p.game.state
    assert k.conservation_errors() == p.game.conservation_errors() == []
    assert k.follow_up() == []


# --- commands and events ------------------------------------------------------------


@pytest.mark.parametrize("case", range(len(CORPUS)))
def test_applied_commands_give_the_engines_events_and_turns(case: int) -> None:
    p = played(case)
    k = kernel_of(p)
    assert k.follow_up() == p.deal[:1]
    events, turns = k.settle()
    assert (events, tuple(turns)) == (p.deal, p.deal_turns)
    for i, step in enumerate(p.steps):
        decided = k.decide(step.seat, step.command)
        assert decided and decided == step.events[: len(decided)], i
        events, turns = k.apply(step.seat, step.command)
        assert events == step.events, i
        assert all(type(e) is type(x) for e, x in zip(events, step.events, strict=True))
        assert tuple(turns) == step.turns, i
    assert k.state() == p.game.state


@pytest.mark.parametrize("case", range(len(CORPUS)))
def test_legal_moves_and_hints_are_the_engines(case: int) -> None:
    p = played(case)
    for step in p.steps:
        if step.answers is None:
            continue
        k = kernel_at(p, step.before)
        for seat, (legal, h) in step.answers.items():
            moves = k.legal_moves(seat)
            assert moves == legal, (seat, step.before.version)
            assert [type(m) for m in moves] == [type(m) for m in legal]
            assert hint_fields(k.hint(seat)) == hint_fields(h)
            assert hint_fields(k.hint(seat, moves)) == hint_fields(h)


def test_a_hint_is_the_engines_class_with_its_commands() -> None:
    p, step = mid_game()
    k = kernel_at(p, step.before)
    h = k.hint(step.seat)
    assert type(h) is Hint
    assert isinstance(h.deadwood, ramino.Deadwood)
    assert type(h.melds) is tuple and all(type(m) is tuple for m in h.melds)
    assert type(h.layoffs) is tuple and all(type(lo) is LayOff for lo in h.layoffs)
    assert h.knock is None


def test_a_seat_out_of_the_game_has_no_moves_and_no_hand() -> None:
    p, step = mid_game()
    k = kernel_at(p, step.before)
    assert k.legal_moves(7) == k.legal_moves(-1) == []
    with pytest.raises(IndexError):
        k.hint(7)
    with pytest.raises(IndexError):
        k.hand(-1)


def probe_commands(state: State, seat: int, deck_size: int) -> list[Any]:
    """A command of every type, well-formed or not, for ``seat`` in ``state``."""
    hand = state.seats[seat].hand
    a, b, c = hand[0], hand[1], hand[2]
    joker_meld = next((i for i, m in enumerate(state.melds) if m.jokers), 0)
    joker = next(iter(state.melds[joker_meld].jokers), 0) if state.melds else 0
    return [
        DrawFromStock(),
        TakeDiscard(),
        TurnOverDiscardPile(),
        PassUpcard(),
        AcceptLayout(),
        LayMelds(((a, b, c),)),
        LayMelds([[a, b, c]]),  # type: ignore[arg-type]
        LayMelds(()),
        LayMelds(None),  # type: ignore[arg-type]
        LayMelds("x"),  # type: ignore[arg-type]
        LayMelds(((a, b, c), "x")),  # type: ignore[arg-type]
        LayMelds(((a, a, b),)),
        LayMelds(((a, True, b),)),  # type: ignore[arg-type]
        LayMelds(((a, deck_size, b),)),
        LayOff(a, 0, "start"),
        LayOff(a, 0, "end"),
        LayOff(a, 0, "middle"),  # type: ignore[arg-type]
        LayOff(a, 0, 5),  # type: ignore[arg-type]
        LayOff(a, 99, "end"),
        LayOff(a, -1, "end"),
        LayOff(a, True, "end"),  # type: ignore[arg-type]
        LayOff(a, 2**70, "end"),
        SwapJoker(a, joker_meld, joker),
        SwapJoker(a, joker_meld, a),
        SwapJoker("a", 0, 1),  # type: ignore[arg-type]
        Discard(a),
        Discard(True),  # type: ignore[arg-type]
        Discard(2**70),
        Discard(-(2**70)),
        Discard(-(2**63)),
        Discard(-1),
        Discard(deck_size),
        Discard("3"),  # type: ignore[arg-type]
        Discard(3.0),  # type: ignore[arg-type]
        Knock(None, ()),
        Knock(a, None),  # type: ignore[arg-type]
        Knock(a, ((b,),)),
        Knock(True, ()),  # type: ignore[arg-type]
        object(),
        "DrawFromStock",
        Resign(),
    ]


def outcome(apply: Callable[[Any, Any], Any], seat: Any, command: Any) -> Any:
    try:
        return "ok", apply(seat, command)
    except (IllegalMove, MalformedCommand) as e:
        return refusal(e)


@pytest.mark.parametrize("kind", ["ramino51", "rummy", "gin"])
def test_every_command_is_decided_as_the_engine_decides_it(kind: str) -> None:
    p, step = mid_game(kind)
    rules = rules_of(p)
    k = kernel_at(p, step.before)
    turn = step.before.turn
    other = (turn + 1) % len(p.players)
    seats: list[Any] = [turn, other, -1, 7, True, "0", None, 0.0, 2**70]
    engine = engine_at(p, step.before)
    for command in probe_commands(step.before, turn, rules.deck_size):
        for seat in seats:
            expected = outcome(engine.apply, seat, command)
            got = outcome(k.decide, seat, command)
            if expected[0] == "ok":
                engine = engine_at(p, step.before)
                assert got[0] == "ok", (seat, command, got)
                assert got[1] == expected[1][: len(got[1])], (seat, command)
            else:
                assert got == expected, (seat, command)
            assert k.version == step.before.version


# --- refusals -----------------------------------------------------------------------


def refused(k: _core.GameKernel, seat: Any, command: Any) -> tuple[str, str, str | None]:
    before = k.state()
    with pytest.raises((IllegalMove, MalformedCommand)) as info:
        k.apply(seat, command)
    assert k.state() == before
    assert k.version == before.version
    return refusal(info.value)


def test_bad_input_is_refused_with_its_reason_and_nothing_changes() -> None:
    p, step = mid_game()
    k = kernel_at(p, step.before)
    seat = step.before.turn
    card = step.before.seats[seat].hand[0]
    malformed = "MalformedCommand"
    assert refused(k, "0", Discard(card)) == (malformed, reasons.UNKNOWN_SEAT, None)
    assert refused(k, True, Discard(card)) == (malformed, reasons.UNKNOWN_SEAT, None)
    assert refused(k, 2**70, Discard(card)) == (malformed, reasons.UNKNOWN_SEAT, None)
    assert refused(k, seat, Discard(True)) == (malformed, reasons.BAD_FIELD, None)  # type: ignore[arg-type]
    assert refused(k, seat, Discard(2**70)) == (malformed, reasons.UNKNOWN_CARD, None)
    assert refused(k, seat, Discard(-(2**70))) == (malformed, reasons.UNKNOWN_CARD, None)
    assert refused(k, seat, LayOff(card, -(2**70), "end")) == (malformed, reasons.BAD_FIELD, None)
    assert refused(k, seat, LayMelds("x")) == (malformed, reasons.NO_MELDS, None)  # type: ignore[arg-type]
    assert refused(k, seat, LayMelds(((card,), 5))) == (malformed, reasons.BAD_FIELD, None)  # type: ignore[arg-type]
    assert refused(k, seat, LayOff(card, 0, "middle")) == (malformed, reasons.BAD_END, None)  # type: ignore[arg-type]
    assert refused(k, seat, object()) == (malformed, reasons.UNKNOWN_COMMAND, None)


def test_an_illegal_move_is_refused_as_illegal_with_the_melds_detail() -> None:
    p, step = mid_game()
    k = kernel_at(p, step.before)
    seat = step.before.turn
    other = (seat + 1) % len(p.players)
    card = step.before.seats[seat].hand[0]
    assert refused(k, other, Discard(card)) == ("IllegalMove", reasons.NOT_YOUR_TURN, None)
    assert refused(k, seat, DrawFromStock()) == ("IllegalMove", reasons.ALREADY_DREW, None)
    # Three cards that are no meld: the engine's reason and the kernel's
    # finer one.
    engine = engine_at(p, step.before)
    hand = step.before.seats[seat].hand
    names = engine.rules.names
    for trio in (
        (hand[i], hand[j], hand[m]) for i in range(len(hand)) for j in range(i) for m in range(j)
    ):
        if len({names[c] for c in trio}) < 3:
            continue
        expected = outcome(engine.apply, seat, LayMelds((trio,)))
        if expected[0] == "IllegalMove" and expected[2] is not None:
            assert refused(k, seat, LayMelds((trio,))) == expected
            break
    else:  # pragma: no cover - the corpus hands hold such a trio
        raise AssertionError("no trio refused with a detail")


# --- setup ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "seed", "decks", "reason"),
    [
        (["a"], 1, (), reasons.PLAYER_COUNT),
        ([f"p{i}" for i in range(7)], 1, (), reasons.PLAYER_COUNT),
        (["a", ""], 1, (), reasons.BAD_PLAYER_NAME),
        (["a", "  "], 1, (), reasons.BAD_PLAYER_NAME),
        (["a", 3], 1, (), reasons.BAD_PLAYER_NAME),
        (["a", "b"], -1, (), reasons.BAD_SEED),
        (["a", "b"], 2**256, (), reasons.BAD_SEED),
        (["a", "b"], True, (), reasons.BAD_SEED),
        (["a", "b"], "1", (), reasons.BAD_SEED),
        (["a", "b"], 1.0, (), reasons.BAD_SEED),
        (["a", "b"], 1, [[0, 1, 2]], reasons.BAD_DECK),
        (["a", "b"], 1, [[300]], reasons.BAD_DECK),
        (["a", "b"], 1, [[-1]], reasons.BAD_DECK),
        (["a", "b"], 1, [list(range(108)) + [0]], reasons.BAD_DECK),
        # The engine's order of checks: the players, the seed, the decks.
        (["a"], -1, [[0]], reasons.PLAYER_COUNT),
        (["a", ""], -1, [[0]], reasons.BAD_PLAYER_NAME),
        (["a", "b"], -1, [[0]], reasons.BAD_SEED),
    ],
)
def test_a_setup_the_variant_cannot_play_is_refused_as_the_engine_refuses_it(
    players: list[Any], seed: Any, decks: Sequence[Sequence[int]], reason: str
) -> None:
    with pytest.raises(InvalidSetup) as engine:
        Game.new("ramino51", players, seed=seed, decks=decks)
    assert engine.value.reason == reason
    rules = _core.GameRules(ramino.Variant("ramino51"))
    with pytest.raises(InvalidSetup) as kernel:
        _core.GameKernel(rules, players, seed, decks)
    assert kernel.value.reason == reason


def test_a_stacked_deck_is_dealt() -> None:
    deck = list(reversed(range(108)))
    engine = Game.new("ramino51", ["a", "b"], seed=3, decks=[deck])
    k = _core.GameKernel(_core.GameRules(ramino.Variant("ramino51")), ["a", "b"], 3, [deck])
    events, _turns = k.settle()
    assert events == engine.record.events


def test_rules_take_a_variant_or_a_preset_name() -> None:
    for v in (
        ramino.Variant("gin"),
        "rummy",
        ramino.Variant("ramino51", stock_exhausted="turn_over", open_threshold=0),
    ):
        rules = _core.GameRules(v)
        variant = ramino.Variant(v) if isinstance(v, str) else v
        assert rules.deck_size == len(ramino.deck_cards(variant))
        assert rules.needs_opening == (variant.open_threshold > 0 or variant.open_requires_pure_run)
        assert rules.must_discard == variant.must_discard_to_go_out
        assert rules.reshuffle == (variant.stock_exhausted == "reshuffle")
    with pytest.raises(ramino.VariantError):
        _core.GameRules("no such game")


# --- records -------------------------------------------------------------------------


def record_refusal(k: _core.GameKernel, event: Any) -> str:
    version = k.version
    with pytest.raises(RecordError) as info:
        k.fold(event)
    assert k.version == version
    return info.value.reason


def test_an_event_that_cannot_be_read_is_a_record_format_error() -> None:
    p, step = mid_game()
    k = kernel_at(p, step.before)
    seat = step.before.turn
    card = step.before.seats[seat].hand[0]
    assert record_refusal(k, object()) == reasons.RECORD_FORMAT
    assert record_refusal(k, Discard(card)) == reasons.RECORD_FORMAT
    assert record_refusal(k, Discarded(seat, "x")) == reasons.RECORD_FORMAT  # type: ignore[arg-type]
    assert record_refusal(k, LaidOff(seat, card, 0, "middle")) == reasons.RECORD_FORMAT
    ended = RoundEnded(1, "nope", None, False, (0, 0), ((), ()))
    assert record_refusal(k, ended) == reasons.RECORD_FORMAT
    assert k.state() == step.before


def test_an_event_that_does_not_fit_the_game_is_inconsistent() -> None:
    p, step = mid_game()
    k = kernel_at(p, step.before)
    seat = step.before.turn
    card = step.before.seats[seat].hand[0]
    assert record_refusal(k, Discarded(9, card)) == reasons.RECORD_INCONSISTENT
    assert record_refusal(k, Discarded(seat, 500)) == reasons.RECORD_INCONSISTENT
    assert k.state() == step.before
    stranger = next(c for c in range(108) if c not in step.before.seats[seat].hand)
    with pytest.raises(RecordError) as info:
        k.fold(Discarded(seat, stranger))
    assert info.value.reason == reasons.RECORD_INCONSISTENT


def spoiled(state: State, **changes: Any) -> State:
    out = copy.deepcopy(state)
    for name, value in changes.items():
        setattr(out, name, value)
    return out


def test_a_state_that_does_not_fit_is_a_record_format_error() -> None:
    p, step = mid_game()
    state = step.before
    rules = rules_of(p)
    meld = state.melds[0]
    bad_states = [
        spoiled(state, phase="nap"),
        spoiled(state, stock=[*state.stock, 500]),
        spoiled(state, discard=["x"]),
        spoiled(state, turn=-1),
        spoiled(state, turn=9),
        spoiled(state, dealer=-2),
        spoiled(state, taken=999),
        spoiled(state, winners=(5,)),
        spoiled(state, results=[object()]),
        spoiled(state, melds=[dataclasses.replace(meld, kind="pair")]),
        spoiled(state, melds=[dataclasses.replace(meld, owner=9)]),
        spoiled(state, melds=[dataclasses.replace(meld, jokers={meld.cards[0]: ("XX",)})]),
        spoiled(state, melds=[dataclasses.replace(meld, jokers={500: ("AS",)})]),
        spoiled(state, seats=[*state.seats[:-1], object()]),
    ]
    for bad in bad_states:
        with pytest.raises(RecordError) as info:
            _core.GameKernel.from_state(rules, p.seed, [], bad)
        assert info.value.reason == reasons.RECORD_FORMAT
    for seed, decks in ((-1, []), (True, []), (1, [[0, 1]]), (1, [[300]])):
        with pytest.raises(RecordError) as info:
            _core.GameKernel.from_state(rules, seed, decks, state)
        assert info.value.reason == reasons.RECORD_FORMAT


# --- policies ------------------------------------------------------------------------


@cache
def policy_vectors() -> list[dict[str, Any]]:
    """The policy cases and the answers the frozen Python engine gave: the
    hand of the seat on turn every 9 steps of the corpus's games, the card it
    took, a swapped joker waiting (in none of them), the melds of its least
    deadwood and a knock made of them (recorded at commit 164b872 by
    ``tests/engine/record_policies.py``)."""
    with gzip.open(POLICY_VECTORS, "rt") as f:
        return [json.loads(line) for line in f]


def test_the_policy_vectors_hold_taken_cards_refused_discards_joker_melds_and_knocks() -> None:
    vectors = policy_vectors()
    assert len(vectors) > 200
    assert {v["variant"] for v in vectors} == {"ramino51", "rummy", "gin"}
    assert any(v["taken"] is not None for v in vectors)
    assert any(len(v["discardable"]) < len(v["hand"]) for v in vectors)
    assert any(refused for v in vectors for _, refused in v["undiscardable"])
    assert any(len(v["keep_one"]) for v in vectors)
    assert any(v.get("joker_meld") for v in vectors)
    assert any(v.get("hand_melds") for v in vectors)
    assert any(v.get("knock", {}).get("melds") for v in vectors)


def test_the_discard_policy_answers_as_the_python_engine_did() -> None:
    for vector in policy_vectors():
        rules = rules_for(vector["variant"], vector["overrides"])
        kernel = rules.kernel
        hand, taken, pending = vector["hand"], vector["taken"], vector["pending_joker"]
        assert _core.discardable(kernel, hand, taken, pending) == vector["discardable"]
        allowed = vector["discardable"] or hand
        scores = [tuple(s) for s in vector["discard_scores"]]
        assert list(_core.discard_scores(kernel, hand, allowed).items()) == scores
        deadwood = ramino.min_deadwood([rules.names[c] for c in hand], rules.variant)
        assert list(_core.discard_scores(kernel, hand, allowed, deadwood).items()) == scores
        assert _core.best_discards(kernel, hand, allowed) == vector["best_discards"]
        assert _core.best_discards(kernel, hand, allowed, deadwood) == vector["best_discards"]
        for card, refused in vector["undiscardable"]:
            assert _core.undiscardable(kernel, taken, card) == refused


def test_keep_one_joker_melds_and_knocks_answer_as_the_python_engine_did() -> None:
    for vector in policy_vectors():
        rules = rules_for(vector["variant"], vector["overrides"])
        kernel, v = rules.kernel, rules.variant
        hand = vector["hand"]
        names = [rules.names[c] for c in hand]
        melds = vector["melds"]
        assert ramino.min_deadwood(names, v).melds == melds
        assert _core.keep_one(melds, v) == vector["keep_one"]
        if v.jokers:
            found = _core.joker_meld(kernel, vector["taken"], hand)
            assert (None if found is None else list(found)) == vector["joker_meld"]
        if v.knocking:
            assert _core.hand_melds(names, v) == vector["hand_melds"]
            if len(names) > 1:
                assert _core.knock_deadwood(names, kernel) == vector["knock_deadwood"]
            knock = vector["knock"]
            unmatched = _core.knock_unmatched(kernel, hand, knock["discard"], knock["melds"])
            assert unmatched == vector["knock_unmatched"]


def test_a_policy_refuses_a_card_outside_the_deck() -> None:
    rules = _core.GameRules("ramino51")
    for call in (
        lambda: _core.discardable(rules, [0, 108], None, None),
        lambda: _core.best_discards(rules, [0, 1], [-1]),
        lambda: _core.undiscardable(rules, 500, 0),
        lambda: _core.knock_unmatched(rules, [0], None, [[200]]),
        lambda: _core.joker_meld(rules, None, [0, 1, 2, 1000]),
    ):
        with pytest.raises(MalformedCommand) as info:
            call()
        assert info.value.reason == reasons.UNKNOWN_CARD
