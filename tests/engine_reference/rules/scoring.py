"""Scoring: a round that a seat won, the match's winners and its final totals
with their bonuses."""

from __future__ import annotations

from tests.engine_reference.context import Rules
from tests.engine_reference.state import State

__all__ = ["round_scores", "match_winners", "final_totals"]


def round_scores(state: State, rules: Rules, winner: int | None, closed: bool) -> tuple[int, ...]:
    """Scores of a round that ``winner`` won (``closed``: in one turn from an
    unopened hand); nobody scores in a round with no winner. Seats that have
    resigned score nothing."""
    n = len(state.seats)
    scores = [0] * n
    if winner is None:
        return tuple(scores)
    v = rules.variant

    def hand_score(seat: int) -> int:
        s = state.seats[seat]
        if v.never_opened_penalty and not s.opened:
            return v.never_opened_penalty
        return rules.penalty(s.hand)

    losers = [i for i in state.active() if i != winner]
    if v.scoring == "penalty":
        factor = v.closed_hand_multiplier if closed else 1
        scores[winner] = v.closed_hand_score if closed else v.winner_score
        for i in losers:
            scores[i] = hand_score(i) * factor
    else:
        factor = v.rummy_multiplier if closed else 1
        scores[winner] = sum(hand_score(i) for i in losers) * factor
    return tuple(scores)


def match_winners(state: State, rules: Rules) -> tuple[int, ...] | None:
    """The winners if the match is over between rounds, else ``None``."""
    if state.round == 0:
        return None
    v = rules.variant
    active = state.active()
    if len(active) <= 1:
        return tuple(active)
    totals = {i: state.seats[i].total for i in active}
    over = (
        (v.max_rounds and state.round >= v.max_rounds)
        or (v.target_score and any(t >= v.target_score for t in totals.values()))
        or v.hand_size(len(active)) is None
    )
    if not over:
        return None
    best = min(totals.values()) if v.scoring == "penalty" else max(totals.values())
    return tuple(i for i in active if totals[i] == best)


def final_totals(state: State, rules: Rules, winners: tuple[int, ...]) -> tuple[int, ...]:
    """The totals at the end of a match with its bonuses (gin): each seat
    ``box_bonus`` per hand won; a sole winner ``game_bonus``; and, when no
    other seat won a hand (a shutout), the winner's total times
    ``shutout_multiplier``. Every bonus is 0 (the factor 1) outside gin."""
    v = rules.variant
    totals = [s.total for s in state.seats]
    wins = [0] * len(totals)
    for result in state.results:
        if result.winner is not None:
            wins[result.winner] += 1
    for i in state.active():
        totals[i] += v.box_bonus * wins[i]
    if len(winners) == 1 and len(state.active()) > 1:
        w = winners[0]
        totals[w] += v.game_bonus
        if not any(wins[i] for i in state.active() if i != w):
            totals[w] *= v.shutout_multiplier
    return tuple(totals)
