"""Quick play's queues: what a queue's games are (:class:`QueueSpec`, the
key its tickets meet under), the matchmaker's knobs and those of some queues
over them (:class:`MatchmakerConfig`: ``ramino serve``'s ``--quick-*`` flags
and ``[quick]`` section), and the queues a quick-play table is offered to."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from typing import Any

import ramino
from ramino.app.log import Header
from ramino.bots import BOT_KINDS

__all__ = ["GRACE", "QUEUE_KNOBS", "MatchmakerConfig", "QueueSpec", "table_queues"]

GRACE = 10.0
"""Seconds a waiting ticket outlives the last stream that followed it (for a
reconnect), by default."""

QUEUE_KNOBS: dict[str, type] = {
    "window_base": float,
    "window_step": float,
    "window_interval": float,
    "window_max": float,
    "settle": float,
    "bots_after": float,
    "turn_timer_seconds": int,
    "prefer_for": float,
}
"""The knobs a queue may set for itself (:attr:`MatchmakerConfig.queues`)."""


@dataclass(frozen=True, slots=True)
class MatchmakerConfig:
    """The matchmaker's knobs (``ramino serve``'s ``--quick-*`` flags), and
    those of some queues over them (``--quick-queues``)."""

    max_tickets_per_player: int = 3
    ticket_ttl: float = 300.0
    """Seconds a ticket waits at most, then it expires."""
    grace: float | None = GRACE
    """Seconds a waiting ticket may go unfollowed (no ticket stream, on any
    replica, noted it in the store since, nor was it submitted since): a pass
    then cancels it, and no match claims it. ``None``: tickets need no
    stream (the matchmaker driven without its MatchService: simulations and
    tests that submit directly)."""
    window_base: float = 3.0
    window_step: float = 3.0
    window_interval: float = 10.0
    window_max: float = 60.0
    settle: float = 5.0
    """Seconds the oldest ticket of a group that could start (its smallest
    count reached, its largest not) waits for more before it starts."""
    bots_after: float | None = 30.0
    """Seconds after which the oldest ticket's game is filled with bots up to
    its smallest seat count; ``None``: never."""
    bot: str = "greedy"
    turn_timer_seconds: int = 60
    """The games' turn timer: a player who walks away is played for, and
    loses (``docs/ratings.md``)."""
    tick: float = 0.5
    lease_ttl: float = 10.0
    look_every: float = 30.0
    """Seconds between two looks at a rated game in play (to record its
    ratings if its last move's replica died before it did)."""
    looks_per_pass: int = 20
    prefer_for: float = 10.0
    """Seconds a ticket's ``should`` clauses hold (``ramino.app.quick.clauses``)."""
    party_size: int = 4
    """The most players a party holds, its leader included."""
    invitation_ttl: float = 300.0
    """Seconds an invitation to a party may be accepted."""
    party_ttl: float = 3600.0
    """Seconds a party is kept after its last change."""
    queues: dict[str, dict[str, float]] = field(default_factory=dict)
    """Knobs of some queues over those above, by variant (``"gin"``) or by
    variant and rating (``"gin/rated"``, ``"gin/unrated"``, over the
    variant's): any of :data:`QUEUE_KNOBS` (``bots_after`` 0: never)."""

    def for_queue(self, variant: str, rated: bool) -> MatchmakerConfig:
        """The knobs of a queue of ``variant``, rated or not."""
        given = {
            **self.queues.get(variant, {}),
            **self.queues.get(f"{variant}/{'rated' if rated else 'unrated'}", {}),
        }
        knobs: dict[str, Any] = {k: QUEUE_KNOBS[k](v) for k, v in given.items()}
        if not knobs:
            return self
        if knobs.get("bots_after") == 0:
            knobs["bots_after"] = None
        return replace(self, queues={}, **knobs)

    def rated_turn_timers(self) -> set[int]:
        """The turn timers of the rated queues' games: the default, and each
        rated queue's of its own (``docs/matchmaking.md``)."""
        variants = {name.partition("/")[0] for name in self.queues}
        return {self.turn_timer_seconds} | {
            self.for_queue(v, True).turn_timer_seconds for v in variants
        }

    def __post_init__(self) -> None:
        if self.bot not in BOT_KINDS:
            raise ValueError(f"unknown bot {self.bot!r}: one of {', '.join(sorted(BOT_KINDS))}")
        if self.max_tickets_per_player < 1:
            raise ValueError("max_tickets_per_player must be at least 1")
        if not 2 <= self.party_size <= 6:
            raise ValueError(f"a party holds 2 to 6 players, not {self.party_size}")
        if self.grace is not None and not self.grace > 0:
            raise ValueError(f"a ticket's grace is a positive number of seconds, not {self.grace}")
        if not (
            0 <= self.window_base <= self.window_max < math.inf
            and 0 <= self.window_step < math.inf
            and 0 < self.window_interval < math.inf
        ):
            raise ValueError(
                "a rating window schedule is base, step, interval and max: base and step "
                "0 or more, interval above 0, max at least base, not "
                f"{self.window_base}, {self.window_step}, {self.window_interval}, "
                f"{self.window_max}"
            )
        if not 0 <= self.prefer_for < math.inf:
            raise ValueError(f"prefer_for is 0 or more seconds, not {self.prefer_for}")
        if not 0 <= self.settle < math.inf:
            raise ValueError(f"settle is 0 or more seconds, not {self.settle}")
        if self.bots_after is not None and not 0 <= self.bots_after < math.inf:
            raise ValueError(f"bots_after is 0 or more seconds, not {self.bots_after}")
        if not 0 <= self.turn_timer_seconds <= 24 * 3600:
            raise ValueError(f"a turn timer is 0 to 86400 seconds, not {self.turn_timer_seconds}")
        for name, knobs in self.queues.items():
            self._check_queue(name, knobs)

    def _check_queue(self, name: str, knobs: dict[str, float]) -> None:
        """A queue's knobs, each known and of its type, and the config they
        make valid; a ValueError naming the queue and the knob otherwise."""
        variant, _, rating = name.partition("/")
        try:
            ramino.Variant(variant)
        except ramino.VariantError:
            raise ValueError(f"queue {name!r}: no variant {variant!r}") from None
        if rating not in ("", "rated", "unrated"):
            raise ValueError(f"queue {name!r}: VARIANT, VARIANT/rated or VARIANT/unrated")
        for knob, value in knobs.items():
            kind = QUEUE_KNOBS.get(knob)
            if kind is None:
                raise ValueError(
                    f"queue {name!r}: unknown knob {knob!r}: one of {', '.join(QUEUE_KNOBS)}"
                )
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"queue {name!r}: {knob} is a number, not {value!r}")
            if kind is int and value != int(value):
                raise ValueError(f"queue {name!r}: {knob} is a whole number, not {value!r}")
        try:
            self.for_queue(variant, rating == "rated")
        except ValueError as bad:
            raise ValueError(f"queue {name!r}: {bad}") from None


@dataclass(frozen=True, slots=True)
class QueueSpec:
    """What the games of a queue are: tickets of one queue meet."""

    variant: str
    overrides: dict[str, Any]
    rated: bool
    bots: bool = True
    """Whether bots may fill its games' seats after the wait."""

    @property
    def key(self) -> str:
        parts: list[Any] = [self.variant, self.overrides, self.rated]
        if not self.bots:
            parts.append("without bots")
        text = json.dumps(parts, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        name = "".join(c for c in self.variant.lower() if c.isalnum())[:24]
        return f"{name}-{digest}" if name else digest


def table_queues(header: Header) -> set[str]:
    """The queues whose tickets may take a seat of a quick-play table: its
    variant, overrides and rated flag, with bots (and, when it has no bot
    seat, without)."""
    keys = {QueueSpec(header.variant, header.overrides, header.rated).key}
    if not any(s.bot for s in header.seats):
        keys.add(QueueSpec(header.variant, header.overrides, header.rated, bots=False).key)
    return keys
