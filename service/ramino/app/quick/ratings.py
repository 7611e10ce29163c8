"""Ratings: what a finished game does to its players' skills, by the
Weng-Lin method (OpenSkill's Plackett-Luce model, PyPI ``openskill``, pinned
in ``pyproject.toml``; ``docs/ratings.md`` says why this one).

The rules (``docs/ratings.md``):

- A game is *rated* when it was created rated (a rated quick-play ticket, or
  a rated lobby table: ``Lobby.open_table``),
  dealt from a secret seed (not a test server's fixed deal), and at least two
  distinct verified players sit in it. Bots and unverified people have no
  rating and are left out of the update; the rated players' places among
  themselves are kept.
- The final ranking: every seat that resigned, or whose turn timer ran out
  and that never came back before the end, has lost: they tie for the last
  place. The others are placed by their final totals (lower first where the
  variant scores penalties, higher first otherwise), equal totals tied.
- A game that ends before its match does (``ended``: abandoned, because no
  person acted in it for the server's abandon time, or cancelled by its
  creator) changes no rating and is in no one's history. A rated game in
  play is never abandoned: the seats that stopped playing forfeit it
  (``ramino.app.games.moves`` ``forfeit``, resignations the server plays), so it
  ends rated.
- Each finished game is recorded once by its game id (the store's
  :meth:`~ramino.store.ratings.RatingStore.record`), whichever replica and
  however many times it is reported.

The store keeps a rating's record (:class:`~ramino.store.ratings.RatingRecord`:
its mean, uncertainty, games and name, and the board's score); a
:class:`Rating` is that record as the model makes it (:func:`new_rating`,
:func:`rate_placings`), made from the store's answer by :func:`rating_of`.
A rating inside a history entry or a board entry stays the store's record,
handed to the transport as it is (``ramino.app.values``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from openskill.models import PlackettLuce

from ramino.app.hosted import HostedGame
from ramino.engine import MatchEnded
from ramino.store.ratings import (
    BoardPage,
    FinishedGame,
    HistoryEntry,
    RatedSeat,
    RatingRecord,
    RatingStore,
    check_page_size,
)

__all__ = [
    "MODEL",
    "Rating",
    "Ratings",
    "finished_game",
    "new_rating",
    "rate_placings",
    "rating_of",
]

MODEL = PlackettLuce()
"""The rating model with OpenSkill's defaults: a new player at mu 25, sigma
25/3; a game moves sigma up by tau = 25/300 before it is rated, so that a
rating never freezes."""
HISTORY_MAX = 100
"""The most games one history read answers."""


_RATING_FIELDS = tuple(f.name for f in fields(RatingRecord))


@dataclass(frozen=True, slots=True, eq=False)
class Rating(RatingRecord):
    """A player's skill in one variant, as the model (:data:`MODEL`) rates it."""


def rating_of(record: RatingRecord) -> Rating:
    """The rating of the store's record."""
    return Rating(**{name: getattr(record, name) for name in _RATING_FIELDS})


def new_rating(name: str = "") -> Rating:
    """A new player's rating: the model's prior."""
    return Rating(MODEL.mu, MODEL.sigma, 0, name)


def rate_placings(
    current: Mapping[str, RatingRecord], placings: dict[str, tuple[int, str]]
) -> dict[str, Rating]:
    """New ratings of the players of ``placings`` (player -> its rank, 1 the
    best, and its name), from ``current`` (a player absent from it is new)."""
    players = list(placings)
    before = [current.get(p) or new_rating() for p in players]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = MODEL.rate(teams, ranks=[float(placings[p][0]) for p in players])
    return {
        p: Rating(team[0].mu, team[0].sigma, old.games + 1, placings[p][1])
        for p, old, team in zip(players, before, rated, strict=True)
    }


def finished_game(game: HostedGame, finished_at: float) -> FinishedGame | None:
    """What ``game`` leaves in ratings and histories, once its match is over;
    ``None`` for a game still going, or ended before its match (no rating,
    no history: see the module's rules)."""
    engine = game.engine
    if game.ended is not None or engine is None or not engine.finished:
        return None
    state = engine.state
    totals = [s.total for s in state.seats]
    last = engine.record.events[-1] if engine.record.events else None
    if isinstance(last, MatchEnded):
        totals = list(last.totals)
    lower_is_better = engine.rules.variant.scoring == "penalty"
    lost = [s.resigned or i in game.timed_out for i, s in enumerate(state.seats)]

    def place(i: int) -> tuple[bool, int]:
        return lost[i], 0 if lost[i] else (totals[i] if lower_is_better else -totals[i])

    order = sorted(range(len(totals)), key=place)
    ranks = [0] * len(totals)
    for position, i in enumerate(order, start=1):
        tied = position > 1 and place(order[position - 2]) == place(i)
        ranks[i] = ranks[order[position - 2]] if tied else position
    seats = tuple(
        RatedSeat(
            i,
            game.players[i] or "",
            "" if game.header.seats[i].bot else game.player_ids.get(i, ""),
            totals[i],
            ranks[i],
            lost[i],
        )
        for i in range(len(totals))
    )
    ids = [s.player_id for s in seats if s.player_id]
    rated = (
        game.header.rated
        and not game.header.fixed_deal
        and len(ids) >= 2
        and len(set(ids)) == len(ids)
    )
    return FinishedGame(game.game_id, game.header.variant, finished_at, rated, seats)


class Ratings:
    """Ratings, leaderboards and histories over a rating store."""

    def __init__(self, store: RatingStore, clock: Callable[[], float]) -> None:
        self.store = store
        self._clock = clock

    async def game_finished(self, game: HostedGame) -> bool:
        """Records ``game`` if its match is over (see :func:`finished_game`);
        True when this call recorded it. Safe to call any number of times,
        from any replica."""
        finished = finished_game(game, self._clock())
        if finished is None:
            return False
        placings = {s.player_id: (s.rank, s.name) for s in finished.seats if s.player_id}
        return await self.store.record(finished, lambda current: rate_placings(current, placings))

    async def rating(self, variant: str, player_id: str) -> Rating:
        """The player's rating (a new player's before any rated game)."""
        found = await self.store.rating(variant, player_id)
        return new_rating() if found is None else rating_of(found)

    async def top(self, variant: str, page_size: int, page_token: str = "") -> BoardPage:
        return await self.store.top(variant, page_size, page_token)

    async def around(self, variant: str, player_id: str, page_size: int) -> BoardPage:
        return await self.store.around(variant, player_id, page_size)

    async def rank(self, variant: str, player_id: str) -> int | None:
        return await self.store.rank(variant, player_id)

    async def history(self, player_id: str, limit: int, variant: str = "") -> list[HistoryEntry]:
        check_page_size(limit)
        return await self.store.history(player_id, limit, variant)
