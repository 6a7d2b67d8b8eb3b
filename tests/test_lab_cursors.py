"""The lab's cursors: each connection's trace, kept to go on from."""

from __future__ import annotations

from webapp.game.board import Board
from webapp.game.lab import Options
from webapp.server.services.lab.answers import Cursors

EMPTY = Board.parse(".........")


def test_a_trace_being_stepped_is_not_handed_to_a_second_page_of_its_connection() -> None:
    # Two pages of one connection may work at once (walks take turns at their pauses):
    # stepping one generator from both would fail, so the second gets a trace of its own.
    cursors = Cursors(4)
    first = cursors.at("c", EMPTY, Options(), 0, None)
    second = cursors.at("c", EMPTY, Options(), 0, None)
    assert second is not first
    first.take(3)
    cursors.keep("c", first)
    assert cursors.at("c", EMPTY, Options(), 3, None) is first  # goes on from where it was


def test_the_least_recently_kept_trace_is_dropped_first() -> None:
    cursors = Cursors(2)
    for connection in "abc":
        cursors.keep(connection, cursors.at(connection, EMPTY, Options(), 0, None))
    assert list(cursors.held) == ["b", "c"]
