"""Training in Redis, shared by processes and hosts: a hash of each player's cards, a list
of their answers, and a key for each rating; a player's keys expire when idle, as their
history does. New keys: nothing stored by an earlier release changes."""

from __future__ import annotations

from typing import Any, cast

import orjson

from webapp.game.training import ANSWERS_KEPT
from webapp.server.store.redis.client import connect

PREFIX = "{training}"


class RedisTraining:
    """Cards, answers and ratings in Redis."""

    def __init__(self, url: str, *, idle_seconds: float) -> None:
        self.ttl = max(1, int(idle_seconds))
        self._redis = connect(url)

    def _keys(self, player: str) -> tuple[str, str, str]:
        return (
            f"{PREFIX}cards:{player}",
            f"{PREFIX}answers:{player}",
            f"{PREFIX}rating:player:{player}",
        )

    def _touch(self, pipe: Any, player: str) -> None:
        for key in self._keys(player):
            pipe.expire(key, self.ttl)

    def cards(self, player: str) -> dict[str, Any]:
        """The player's cards by key."""
        found = cast(dict[bytes, bytes], self._redis.hgetall(self._keys(player)[0]))
        return {key.decode(): orjson.loads(data) for key, data in found.items()}

    def put_cards(self, player: str, rows: dict[str, Any], *, replace: bool) -> int:
        """Store cards by key (``replace``: over those stored, else only new ones)."""
        if not rows:
            return 0
        cards = self._keys(player)[0]
        with self._redis.pipeline() as pipe:
            for key, row in rows.items():
                data = orjson.dumps(row)
                (pipe.hset if replace else pipe.hsetnx)(cards, key, data)
            self._touch(pipe, player)
            done = pipe.execute()
        return len(rows) if replace else sum(int(bool(n)) for n in done[: len(rows)])

    def answered(self, player: str, answer: dict[str, Any]) -> None:
        """Add one answer to the player's log."""
        with self._redis.pipeline() as pipe:
            pipe.rpush(self._keys(player)[1], orjson.dumps(answer))
            pipe.ltrim(self._keys(player)[1], -ANSWERS_KEPT, -1)
            self._touch(pipe, player)
            pipe.execute()

    def answers(self, player: str) -> list[dict[str, Any]]:
        """The player's answers, oldest first."""
        found = cast(list[bytes], self._redis.lrange(self._keys(player)[1], 0, -1))
        return [cast(dict[str, Any], orjson.loads(data)) for data in found]

    def rating(self, owner: str) -> dict[str, float] | None:
        """A stored rating, or None."""
        data = cast(bytes | None, self._redis.get(f"{PREFIX}rating:{owner}"))
        return None if data is None else cast(dict[str, float], orjson.loads(data))

    def put_ratings(self, ratings: dict[str, dict[str, float]]) -> None:
        """Store ratings by owner, together (a player's expires when they are idle)."""
        with self._redis.pipeline() as pipe:
            for owner, data in ratings.items():
                idle = self.ttl if owner.startswith("player:") else None
                pipe.set(f"{PREFIX}rating:{owner}", orjson.dumps(data), ex=idle)
            pipe.execute()

    def forget(self, player: str) -> int:
        """Delete the player's cards, answers and rating; return how many cards."""
        keys = self._keys(player)
        with self._redis.pipeline() as pipe:
            pipe.hlen(keys[0])
            pipe.delete(*keys)
            count = pipe.execute()[0]
        return int(count)

    def prune(self) -> int:
        """Nothing to do: Redis expires idle players' training by itself."""
        return 0

    def close(self) -> None:
        """Close the connection pool."""
        self._redis.close()
