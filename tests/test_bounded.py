"""The map of recent players' entries that every per-process memory of players uses:
bounded, the least recently used dropped first."""

from __future__ import annotations

from webapp.server.store.bounded import LastUsed


def test_put_keeps_the_most_recent_and_drops_the_oldest() -> None:
    kept: LastUsed[str, int] = LastUsed(2)
    kept.put("a", 1)
    kept.put("b", 2)
    kept.put("c", 3)
    assert list(kept.items()) == [("b", 2), ("c", 3)]


def test_a_use_saves_an_entry_a_read_does_not() -> None:
    kept: LastUsed[str, int] = LastUsed(2)
    kept.put("a", 1)
    kept.put("b", 2)
    kept.touch("a")  # used: "b" is now the oldest
    kept.put("c", 3)
    assert list(kept) == ["a", "c"]
    assert kept.get("a") == 1  # a read: "a" stays the oldest
    kept.put("d", 4)
    assert list(kept) == ["c", "d"]


def test_putting_a_kept_key_again_makes_it_the_newest_and_touching_a_missing_one_adds_nothing() -> (
    None
):
    kept: LastUsed[str, int] = LastUsed(3)
    for key, value in (("a", 1), ("b", 2), ("c", 3)):
        kept.put(key, value)
    kept.put("a", 10)
    kept.touch("z")
    assert list(kept.items()) == [("b", 2), ("c", 3), ("a", 10)]
