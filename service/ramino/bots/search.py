"""The searching bots, ``hard`` and ``expert``: determinized Monte Carlo.

At each real choice (take the discard or draw from the stock; which card to
discard; in gin, knock or play on, take or pass the first upcard) the bot
gathers what its seat has seen (:func:`observe`: its hand, the table, the
discard pile, the other hands' sizes, the cards each seat took from the
discard pile and still holds, what each seat threw away) and hands it to the
kernel's playouts (``ramino._core.evaluate_actions``, Rust, without the GIL):
deals of the unseen cards consistent with that, each candidate played out to
the end of the round on the same deals (raced: a candidate clearly beaten
is dropped and the deals left go to the others), the best mean utility
chosen: the round's win, and its points weighed by :func:`margin_weight`
(little in a game of one round, where only the win counts; more in a
match, where the points carry over). A playout stops after
:data:`KNOCKING_HORIZON` turns of each seat in a knocking variant (gin),
:data:`RUMMY_HORIZON` in the others, unless the round ends first, and is
worth the lead of the seat's hand over the others' (squashed to the range
of a win or a loss): in gin by the least deadwood, what a knock scores; in
the rummy variants, where going out empties the hand, by its distance from
going out (the cards its melds leave loose, the penalty it holds, what an
unopened hand's melds lack of the opening threshold). Far less noise than
playing on to the round's end, and the arena says it pays in each.
Melds, lay-offs, joker swaps and the defender's lay-offs are the greedy
bot's.

It reads only ``game.view(seat)``, ``game.legal_moves(seat)`` and the events
as its seat sees them (``game.events(seat)``), so a game whose hidden cards
are dealt otherwise gets the same move from it.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

from prometheus_client import Counter, Histogram

from ramino._core import Variant, evaluate_actions
from ramino.bots.greedy import GreedyBot
from ramino.engine import (
    Command,
    Discard,
    DrawFromStock,
    Game,
    Knock,
    PassUpcard,
    TakeDiscard,
    View,
)
from ramino.engine.events import (
    Discarded,
    DrewFromStock,
    JokerSwapped,
    Knocked,
    LaidOff,
    MeldsLaid,
    PassedUpcard,
    RoundStarted,
    TookDiscard,
)

__all__ = [
    "Budget",
    "Decision",
    "HINT_ITERATIONS",
    "KNOCKING_HORIZON",
    "LEVEL_BUDGETS",
    "Observation",
    "SearchBot",
    "hint_budget",
    "level_budgets",
    "margin_weight",
    "observe",
    "parse_times",
    "playout_horizon",
    "RUMMY_HORIZON",
    "STARVED_SHARE",
]

DECISION_SECONDS = Histogram(
    "ramino_bot_decision_seconds",
    "A searching bot's decision, from its start to its choice (wall clock), by level",
    ["level"],
    buckets=(0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2)
    + (0.3, 0.5, 0.75, 1.0, 2.0, 5.0),
)
DECISION_DEALS = Histogram(
    "ramino_bot_decision_deals",
    "Deals a searching bot's decision sampled (its candidates are played out on them), by level",
    ["level"],
    buckets=(1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000),
)
STARVED = Counter(
    "ramino_bot_starved",
    "Timed decisions of a searching bot that got less than STARVED_SHARE of a core"
    " or ran past 1.5 times their budget, by level",
    ["level"],
)

STARVED_SHARE = 0.5
"""A timed decision is starved when the CPU time its thread got is less than
this share of its wall time: the machine gave its playouts less than half a
core, so it searched far fewer deals than its budget buys on an idle one."""


@dataclass(frozen=True, slots=True)
class Budget:
    """What one decision may spend: wall-clock milliseconds (``None``: no
    clock) and at most ``iterations`` sampled deals (``None``: as many as
    the time allows). With no clock the bot is deterministic given its seed.
    ``width``: the most discards weighed (the greedy bot's best first).
    ``confidence``: how many standard errors a choice must beat the greedy
    bot's by, playout for playout on the same deals, to be played instead.
    ``margin_weight``: what a point of the round's margin is worth beside
    the round's win (1); ``None``: :func:`margin_weight` of the game."""

    time_ms: float | None
    iterations: int | None = None
    width: int = 6
    confidence: float = 1.0
    margin_weight: float | None = None

    def __post_init__(self) -> None:
        if self.time_ms is None and self.iterations is None:
            raise ValueError("a budget needs a time, an iteration count, or both")
        if self.time_ms is not None and not self.time_ms > 0:
            raise ValueError(f"a bot's time budget is a positive number of ms, not {self.time_ms}")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"a bot's iteration budget is at least 1, not {self.iterations}")
        if not self.confidence >= 0:
            raise ValueError(f"a bot's confidence is at least 0, not {self.confidence}")
        if self.width < 2:
            raise ValueError(f"a bot weighs at least 2 discards, not {self.width}")
        if self.margin_weight is not None and not self.margin_weight >= 0:
            raise ValueError(f"a bot's margin weight is at least 0, not {self.margin_weight}")


WIN_MARGIN_WEIGHT = 0.001
"""A point's worth in a game of one round: its win is what counts, the
margin breaks near ties (a thousand points weigh as much as the win)."""

MATCH_MARGIN_WEIGHT = 0.01
"""A point's worth in a match to a target score: a hundred points weigh as
much as the round's win, since the points carry over."""


def margin_weight(variant: Variant) -> float:
    """What the playouts weigh a point of margin at in a game of ``variant``."""
    return WIN_MARGIN_WEIGHT if variant.max_rounds == 1 else MATCH_MARGIN_WEIGHT


LEVEL_BUDGETS: dict[str, Budget] = {
    "hard": Budget(time_ms=20.0, width=6),
    "expert": Budget(time_ms=100.0, width=10),
}
"""The default budget of each searching level (a server's: :func:`level_budgets`)."""

HINT_ITERATIONS: dict[str, int] = {"hard": 40, "expert": 100}
"""Sampled deals of a hint by a searching level: a fixed count and no clock,
so that the same question at the same version gets the same answer however
busy the server is."""


def hint_budget(level: str) -> Budget | None:
    """The budget of a hint by ``level`` (None for a level that does not search)."""
    if level not in HINT_ITERATIONS:
        return None
    return dataclasses.replace(
        LEVEL_BUDGETS[level], time_ms=None, iterations=HINT_ITERATIONS[level]
    )


def parse_times(text: str) -> dict[str, float]:
    """``"hard=20,expert=100"``: milliseconds a decision per searching level."""
    out: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        level, sep, raw = part.partition("=")
        level = level.strip()
        if not sep or level not in LEVEL_BUDGETS:
            raise ValueError(
                f"expected LEVEL=MS with LEVEL one of {', '.join(LEVEL_BUDGETS)}, got {part!r}"
            )
        try:
            ms = float(raw)
        except ValueError:
            raise ValueError(f"{level}'s time is a number of ms, not {raw!r}") from None
        Budget(time_ms=ms)  # the same checks as any budget
        out[level] = ms
    return out


def level_budgets(times: Mapping[str, float] | None = None) -> dict[str, Budget]:
    """Each searching level's budget on a server: its default
    (:data:`LEVEL_BUDGETS`) with its time a decision replaced by ``times``
    (milliseconds by level, the server's ``--bot-time-ms``)."""
    times = times or {}
    return {
        level: budget if level not in times else dataclasses.replace(budget, time_ms=times[level])
        for level, budget in LEVEL_BUDGETS.items()
    }


KNOCKING_HORIZON = 4
"""Turns of every seat after which a playout of a knocking variant stops and
is scored by the hands' least deadwood (``bench/bots_arena.py``, gin, hard
vs medium, 1,000 hands at 40 deals: 54.1% of the hands and 52.7% of the
points, against 51.6% and 46.9% played to the round's end)."""


RUMMY_HORIZON = 4
"""Turns of every seat after which a playout of a rummy variant stops and
is scored by the hands' distance from going out (``bench/bots_arena.py``,
hard vs medium, 1,000 hands at 40 deals: ramino51 55.4%, rami51 53.9%,
rummy 57.9% of the hands, against 50.8%, 50.9% and 53.2% played to the
round's end; 2, 3, 6 and 8 turns screened)."""


def playout_horizon(variant: Variant) -> int:
    """Turns of each seat a playout of ``variant`` runs before it is scored
    by the hands then: by their least deadwood in a knocking variant, by
    their distance from going out in the others."""
    return KNOCKING_HORIZON if variant.knocking else RUMMY_HORIZON


# Iterations run when only a time is set: a bound no decision reaches in time.
_UNBOUNDED = 1 << 30


@dataclass(frozen=True, slots=True)
class Decision:
    """What one decision of a searching bot took: ``wall_ms`` from its
    start to its choice, ``cpu_ms`` its thread's CPU time meanwhile (the
    playouts run on the same thread, without the GIL), ``deals`` the deals
    it sampled (0: nothing to weigh, played greedily) and
    ``budget_ms`` its time budget (None: no clock)."""

    level: str
    wall_ms: float
    cpu_ms: float
    deals: int
    budget_ms: float | None

    @property
    def starved(self) -> bool:
        """A timed search that the machine starved: it got less than
        :data:`STARVED_SHARE` of a core, or ran past 1.5 times its budget."""
        if self.budget_ms is None or self.deals == 0:
            return False
        return self.cpu_ms < STARVED_SHARE * self.wall_ms or self.wall_ms > 1.5 * self.budget_ms


@dataclass(frozen=True, slots=True)
class Observation:
    """What a seat has seen, in the form the kernel's playouts take."""

    seat: int
    hand_sizes: list[int]
    known: list[list[str]]
    opened: list[bool]
    had_turn: list[bool]
    discarded: list[list[str]]
    laid_any: list[bool]
    discard: list[str]
    table: list[list[str]]
    unseen: list[str]
    stock_size: int
    taken: str | None
    rebuilds_left: int
    turns_left: int


def observe(game: Game, seat: int, view: View | None = None) -> Observation:
    """What ``seat`` has seen of the round, from its view and its events."""
    view = view or game.view(seat)
    assert view.hand is not None
    deck = view.deck
    n = len(view.seats)
    events = game.record.events
    start = next(
        (i for i in range(len(events) - 1, -1, -1) if isinstance(events[i], RoundStarted)), 0
    )
    held: list[set[int]] = [set() for _ in range(n)]
    discarded: list[list[str]] = [[] for _ in range(n)]
    had_turn = [False] * n
    draws = 0
    for e in game.events(seat, start):
        if isinstance(e, TookDiscard):
            held[e.seat].add(e.card)
            had_turn[e.seat] = True
            draws += 1
        elif isinstance(e, DrewFromStock):
            had_turn[e.seat] = True
            draws += 1
        elif isinstance(e, JokerSwapped):
            held[e.seat].discard(e.card)
            held[e.seat].add(e.joker)
        elif isinstance(e, Discarded):
            # A card that leaves a hand is no longer known to be there, even
            # once the pile it went to is shuffled back into the stock.
            held[e.seat].discard(e.card)
            discarded[e.seat].append(deck[e.card])
            had_turn[e.seat] = True
        elif isinstance(e, LaidOff):
            held[e.seat].discard(e.card)
        elif isinstance(e, MeldsLaid | Knocked):
            for meld in e.melds:
                held[e.seat].difference_update(meld)
            if isinstance(e, Knocked) and e.discard is not None:
                held[e.seat].discard(e.discard)
        elif isinstance(e, PassedUpcard):
            had_turn[e.seat] = True
    visible = set(view.hand) | set(view.discard_pile)
    for m in view.melds:
        visible.update(m.cards)
    known: list[list[str]] = []
    for i in range(n):
        if i == seat:
            known.append([deck[c] for c in view.hand])
        else:
            ids = sorted(held[i] - visible)
            visible.update(ids)
            known.append([deck[c] for c in ids])
    v = game.rules.variant
    return Observation(
        seat=seat,
        hand_sizes=[s.hand_size for s in view.seats],
        known=known,
        opened=[s.opened for s in view.seats],
        had_turn=had_turn,
        discarded=discarded,
        laid_any=[
            (s.opened and not view.opened_this_turn) if i == seat else s.opened
            for i, s in enumerate(view.seats)
        ],
        discard=[deck[c] for c in view.discard_pile],
        table=[[deck[c] for c in m.cards] for m in view.melds],
        unseen=[deck[c] for c in range(len(deck)) if c not in visible],
        stock_size=view.stock_size,
        taken=None if view.taken_card is None else deck[view.taken_card],
        rebuilds_left=max(0, v.max_stock_rebuilds - view.stock_rebuilds),
        turns_left=max(1, v.max_turns_per_round - draws),
    )


class SearchBot(GreedyBot):
    """Chooses by playouts where the choice matters, plays the rest greedily."""

    heavy = True

    def __init__(self, seed: int, kind: str = "hard", budget: Budget | None = None) -> None:
        super().__init__(seed)
        self.kind = kind
        self.budget = budget or LEVEL_BUDGETS[kind]
        self._search_rng = random.Random(seed ^ 0x5EA5C4)
        self._started = 0.0
        self._deals = 0
        self.last: Decision | None = None
        """The last decision's accounting (the duty that asked logs a starved one)."""

    def choose(self, game: Game, seat: int) -> Command:
        self._started = time.perf_counter()
        cpu = time.thread_time()
        self._deals = 0
        view = game.view(seat)
        moves = game.legal_moves(seat)
        candidates = self._candidates(game, view, moves)
        if len(candidates) < 2:
            command = super().choose(game, seat)
        else:
            command = self._search(game, seat, view, candidates)
        wall = time.perf_counter() - self._started
        self.last = decision = Decision(
            self.kind,
            1000 * wall,
            1000 * (time.thread_time() - cpu),
            self._deals,
            self.budget.time_ms,
        )
        DECISION_SECONDS.labels(self.kind).observe(wall)
        if decision.deals:
            DECISION_DEALS.labels(self.kind).observe(decision.deals)
        if decision.starved:
            STARVED.labels(self.kind).inc()
        return command

    def _candidates(
        self, game: Game, view: View, moves: list[Command]
    ) -> list[tuple[str, Command]]:
        """The choices worth a search, the greedy bot's preference first."""
        seat = view.viewer
        assert seat is not None
        if view.phase == "draw":
            draws: list[tuple[str, Command]] = []
            for cmd, name in (
                (TakeDiscard(), "take_discard"),
                (DrawFromStock(), "draw_from_stock"),
                (PassUpcard(), "pass_upcard"),
            ):
                if cmd in moves:
                    draws.append((name, cmd))
            greedy = GreedyBot.choose(self, game, seat)
            draws.sort(key=lambda d: d[1] != greedy)
            return draws
        if view.phase != "play":
            return []
        deck = view.deck
        # Melds, lay-offs and swaps first, as the greedy bot plays them.
        greedy = GreedyBot.choose(self, game, seat)
        if greedy is not None and not isinstance(greedy, Discard | Knock):
            return []
        out: list[tuple[str, Command]] = []
        for m in moves:
            if isinstance(m, Knock):
                if m.discard is None:
                    return []  # big gin: nothing to weigh
                name = f"knock {deck[m.discard]}"
                if all(n != name for n, _ in out):
                    out.append((name, m))
        allowed = [m.card for m in moves if isinstance(m, Discard)]
        if not allowed:
            return out
        scores = self.discard_scores(game, view, allowed)
        seen: set[str] = set()
        ranked = sorted(allowed, key=lambda c: -scores[c])
        discards: list[tuple[str, Command]] = []
        for c in ranked:
            if deck[c] in seen:
                continue
            seen.add(deck[c])
            discards.append((f"discard {deck[c]}", Discard(c)))
            if len(discards) >= self.budget.width:
                break
        found = out + discards
        if isinstance(greedy, Discard):
            first = f"discard {deck[greedy.card]}"
            if all(n != first for n, _ in found):
                found.insert(0, (first, greedy))
            found.sort(key=lambda d: d[0] != first)
        return found

    def _search(
        self, game: Game, seat: int, view: View, candidates: list[tuple[str, Command]]
    ) -> Command:
        obs = observe(game, seat, view)
        b = self.budget
        time_ms = b.time_ms
        if time_ms is not None:
            # The budget is the whole decision's: what the legal moves, the
            # greedy bot's reasons and the observation took comes off it.
            spent = 1000 * (time.perf_counter() - self._started)
            time_ms = max(time_ms - spent, 0.05 * time_ms)
        evals = evaluate_actions(
            game.rules.variant,
            seat=obs.seat,
            hand_sizes=obs.hand_sizes,
            known=obs.known,
            opened=obs.opened,
            had_turn=obs.had_turn,
            discarded=obs.discarded,
            laid_any=obs.laid_any,
            discard=obs.discard,
            table=obs.table,
            unseen=obs.unseen,
            stock_size=obs.stock_size,
            taken=obs.taken,
            rebuilds_left=obs.rebuilds_left,
            turns_left=obs.turns_left,
            actions=[name for name, _ in candidates],
            iterations=b.iterations if b.iterations is not None else _UNBOUNDED,
            time_ms=time_ms,
            seed=self._search_rng.getrandbits(64),
            margin_weight=(
                margin_weight(game.rules.variant) if b.margin_weight is None else b.margin_weight
            ),
            horizon=playout_horizon(game.rules.variant),
        )
        # Every candidate is played out on the same deals until beaten: the
        # deals sampled are the most playouts of any.
        self._deals = max(playouts for _, playouts, _, _, _ in evals)
        # The greedy choice (the first) stands unless another beats it by
        # more than the noise of the playouts: a choice made on noise alone
        # is worse than the greedy bot's reasons.
        sure = [
            i
            for i, (_, _, _, advantage, stderr) in enumerate(evals)
            if i == 0 or advantage > self.budget.confidence * stderr
        ]
        best = max(sure, key=lambda i: (evals[i][0], -i))
        return candidates[best][1]
