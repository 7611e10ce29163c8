"""Ratings on Redis or a Redis Cluster: every key of a variant shares one
hash slot (``{PREFIXr:VARIANT}``), so one Lua script records a game whole,
on one Redis as on a cluster:

- ``...:ratings``: a hash, player id -> ``[mu, sigma, games, name]``;
- ``...:board``: a sorted set of every rated player's
  :func:`~ramino.store.ratings.base.board_member`, all at score 0, read by its
  byte order (``ZRANGE ... BYLEX``, ``ZRANK``);
- ``...:recorded``: a hash, game id -> the game as recorded, and
  ``...:recorder``: game id -> the token of the call that recorded it (a
  call whose script ran but whose answer was lost, and was sent again by the
  client, is still told it recorded the game);
- ``...:h:PLAYER``: the player's history in the variant, newest first,
  trimmed to ``HISTORY_KEPT``;

and ``PREFIXr:variants`` (a set of its own) names the variants a history
read looks into. The script records a game only when it was not recorded
and every rating it was computed from is still the one stored (else it
answers -1 and the store reads and rates again).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import orjson
from redis.exceptions import NoScriptError

from ramino.store.ratings.base import (
    HISTORY_KEPT,
    BoardEntry,
    BoardPage,
    FinishedGame,
    HistoryEntry,
    RateFn,
    RatingRecord,
    apply_game,
    board_member,
    check_page_size,
    decode_board_token,
    encode_board_token,
    newest_first,
    player_of,
)

__all__ = ["RedisRatings", "RECORD_TRIES"]

RECORD_TRIES = 100
"""Times a record is rated again after losing a race to another game."""

# KEYS: ratings, board, recorded, recorder, then one history key per player.
# ARGV: game id, the game's JSON, history kept, the number of players, the
# caller's token (a retry of a script that ran answers 1 again), then
# per player: its id, the rating read ('' for none), the new rating ('' for
# none: an unrated game), the member to drop, the member to add, the entry.
RECORD_TEXT = """
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then
  if redis.call('HGET', KEYS[4], ARGV[1]) == ARGV[5] then return 1 end
  return 0
end
local n = tonumber(ARGV[4])
for i = 0, n - 1 do
  local base = 6 + i * 6
  local stored = redis.call('HGET', KEYS[1], ARGV[base])
  if not stored then stored = '' end
  if ARGV[base + 2] ~= '' and stored ~= ARGV[base + 1] then return -1 end
end
for i = 0, n - 1 do
  local base = 6 + i * 6
  if ARGV[base + 2] ~= '' then
    redis.call('HSET', KEYS[1], ARGV[base], ARGV[base + 2])
    if ARGV[base + 3] ~= '' then redis.call('ZREM', KEYS[2], ARGV[base + 3]) end
    redis.call('ZADD', KEYS[2], 0, ARGV[base + 4])
  end
  redis.call('LPUSH', KEYS[5 + i], ARGV[base + 5])
  redis.call('LTRIM', KEYS[5 + i], 0, tonumber(ARGV[3]) - 1)
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
return 1
"""
RECORD_SHA = hashlib.sha1(RECORD_TEXT.encode()).hexdigest()


class RedisRatings:
    """Ratings beside a Redis store's games, on its client (one Redis or a
    cluster) and under its prefix."""

    def __init__(self, client: Any, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix

    def _key(self, variant: str, part: str) -> str:
        return f"{{{self._prefix}r:{variant}}}:{part}"

    async def _script(self, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self._redis.evalsha(RECORD_SHA, len(keys), *keys, *args)
        except NoScriptError:
            return await self._redis.eval(RECORD_TEXT, len(keys), *keys, *args)

    async def record(self, game: FinishedGame, rate: RateFn) -> bool:
        ratings, board = self._key(game.variant, "ratings"), self._key(game.variant, "board")
        recorded = self._key(game.variant, "recorded")
        recorder = self._key(game.variant, "recorder")
        token = secrets.token_hex(8)
        players = game.players
        await self._redis.sadd(f"{self._prefix}r:variants", game.variant)
        for _ in range(RECORD_TRIES):
            if await self._redis.hexists(recorded, game.game_id):
                return False
            raw = await self._redis.hmget(ratings, players) if players else []
            stored = {p: r for p, r in zip(players, raw, strict=True) if r is not None}
            current = {p: RatingRecord.from_list(orjson.loads(r)) for p, r in stored.items()}
            new, history = apply_game(game, current, rate)
            args: list[Any] = [game.game_id, game.to_json(), HISTORY_KEPT, len(players), token]
            for player, entry in zip(players, history, strict=True):
                old, after = current.get(player), new.get(player)
                args += [
                    player,
                    stored.get(player, b""),
                    "" if after is None else orjson.dumps(after.to_list()),
                    "" if old is None or after is None else board_member(old, player),
                    "" if after is None else board_member(after, player),
                    entry.to_json(),
                ]
            keys = [
                ratings,
                board,
                recorded,
                recorder,
                *(self._key(game.variant, f"h:{p}") for p in players),
            ]
            answer = int(await self._script(keys, args))
            if answer >= 0:
                return answer == 1
        raise RuntimeError(f"game {game.game_id}: its ratings kept changing under it")

    async def recorded(self, game_id: str) -> FinishedGame | None:
        for variant in await self._variants():
            found = await self._redis.hget(self._key(variant, "recorded"), game_id)
            if found is not None:
                return FinishedGame.from_json(found)
        return None

    async def _variants(self) -> list[str]:
        names = await self._redis.smembers(f"{self._prefix}r:variants")
        return sorted(n.decode() if isinstance(n, bytes) else str(n) for n in names)

    async def rating(self, variant: str, player_id: str) -> RatingRecord | None:
        found = await self._redis.hget(self._key(variant, "ratings"), player_id)
        return None if found is None else RatingRecord.from_list(orjson.loads(found))

    async def rank(self, variant: str, player_id: str) -> int | None:
        rating = await self.rating(variant, player_id)
        if rating is None:
            return None
        place = await self._redis.zrank(
            self._key(variant, "board"), board_member(rating, player_id)
        )
        return None if place is None else int(place) + 1

    async def _page(
        self, variant: str, members: list[Any], first_rank: int, page_size: int
    ) -> BoardPage:
        names = [m.decode() if isinstance(m, bytes) else str(m) for m in members]
        shown = names[:page_size]
        players = [player_of(m) for m in shown]
        raw = await self._redis.hmget(self._key(variant, "ratings"), players) if players else []
        entries = [
            BoardEntry(first_rank + i, p, RatingRecord.from_list(orjson.loads(r)))
            for i, (p, r) in enumerate(zip(players, raw, strict=True))
            if r is not None
        ]
        more = len(names) > page_size
        return BoardPage(entries, encode_board_token(shown[-1]) if more else "")

    async def top(self, variant: str, page_size: int, page_token: str = "") -> BoardPage:
        check_page_size(page_size)
        after = decode_board_token(page_token)
        board = self._key(variant, "board")
        low = "-" if after is None else f"({after}"
        members = await self._redis.zrange(board, low, "+", bylex=True, offset=0, num=page_size + 1)
        first = 1
        if members and after is not None:
            first = int(await self._redis.zrank(board, members[0])) + 1
        return await self._page(variant, members, first, page_size)

    async def around(self, variant: str, player_id: str, page_size: int) -> BoardPage:
        check_page_size(page_size)
        rank = await self.rank(variant, player_id)
        if rank is None:
            return BoardPage([], "")
        start = max(0, rank - 1 - page_size // 2)
        members = await self._redis.zrange(self._key(variant, "board"), start, start + page_size)
        return await self._page(variant, members, start + 1, page_size)

    async def history(self, player_id: str, limit: int, variant: str = "") -> list[HistoryEntry]:
        found: list[HistoryEntry] = []
        for name in [variant] if variant else await self._variants():
            rows = await self._redis.lrange(self._key(name, f"h:{player_id}"), 0, limit - 1)
            found.extend(HistoryEntry.from_json(r) for r in rows)
        return newest_first(found, limit)

    async def close(self) -> None:
        pass
