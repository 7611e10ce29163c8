"""What a person picking a bot level is told: how each level plays, its time
a decision on this server, and its place on one rating scale.

The scale is measured, not set: ``ratings.json`` beside this module is what
``bench/bots_arena.py --ratings-out`` wrote (every level against every other
on the same deals, each hand a game for OpenSkill's Plackett-Luce model, as
players' ratings are), with the command that wrote it. Running the arena
again after a change to a bot refreshes it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from ramino.bots.base import LEVELS
from ramino.bots.search import LEVEL_BUDGETS, Budget

__all__ = ["DESCRIPTIONS", "LevelInfo", "level_infos", "ratings_source"]

DESCRIPTIONS: dict[str, str] = {
    "easy": "The greedy bot with a careless hand: it throws any card it may, "
    "and in the rummy variants never takes the discard while it may draw.",
    "medium": "The greedy bot: opens as soon as it can, lays off, takes the discard "
    "only when it joins a meld, throws its costliest loose card, knocks when it may.",
    "hard": "Searches its real choices (draw, discard, knock) by playing each out "
    "on deals of the unseen cards, within its time a decision.",
    "expert": "As hard, with five times the time and more discards weighed.",
}
"""How each level plays, in a sentence (the README's table says more)."""


@dataclass(frozen=True, slots=True)
class LevelInfo:
    """One level as a person picking it sees it."""

    name: str
    description: str
    time_ms: float
    """Its time a decision on this server (0: it does not search)."""
    mu: float
    sigma: float
    rating: float
    """mu - 3 sigma: what a leaderboard orders by."""


@functools.cache
def _measured() -> dict[str, object]:
    text = resources.files("ramino.bots").joinpath("ratings.json").read_text("utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def ratings_source() -> str:
    """What measured the ratings: the arena's command and its hands."""
    data = _measured()
    return f"{data['command']} ({data['hands']} hands)"


def level_infos(budgets: Mapping[str, Budget] = LEVEL_BUDGETS) -> list[LevelInfo]:
    """Every level, weakest first, with its time budget in ``budgets`` (a
    server's: :func:`~ramino.bots.search.level_budgets`) and its measured
    rating."""
    measured = _measured()["levels"]
    assert isinstance(measured, dict)
    out = []
    for name in LEVELS:
        r = measured[name]
        budget = budgets.get(name)
        out.append(
            LevelInfo(
                name,
                DESCRIPTIONS[name],
                0.0 if budget is None or budget.time_ms is None else budget.time_ms,
                float(r["mu"]),
                float(r["sigma"]),
                float(r["ordinal"]),
            )
        )
    return out
