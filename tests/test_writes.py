"""The compare-and-set write of a pure transition (store/matches.py ``write``), the match's
and the room's transitions, and a move's walk: down to the store once, then pushed once."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from flask_socketio import SocketIO

from webapp.game.match import Match, MatchError, human_move
from webapp.game.room import Room, RoomError, open_room
from webapp.server.services import matches as service_module
from webapp.server.services.match_writes import Stale, changed, fresh, played
from webapp.server.services.matches import MatchService
from webapp.server.services.room_writes import SeatsUncounted, capped
from webapp.server.store.matches import Conflict, SQLiteStore, Written, write


@dataclasses.dataclass(frozen=True)
class Row:
    version: int
    text: str


class Rows:
    """An in-memory compare-and-set store of one key, logging each read and write."""

    def __init__(self, row: Row | None) -> None:
        self.row, self.log = row, list[str]()

    def load(self, key: str, /) -> Row | None:
        self.log.append("load")
        return self.row

    def save(self, key: str, value: Row, /, *, expected: int | None) -> bool:
        self.log.append("save")
        if (self.row.version if self.row else None) != expected:
            return False
        self.row = value
        return True


def appended(applied: list[Row | None]) -> Callable[[Row | None], Written[Row]]:
    """A transition that appends "!" (one version on) and pushes the result."""

    def transition(current: Row | None) -> Written[Row]:
        applied.append(current)
        assert current is not None
        after = Row(current.version + 1, current.text + "!")
        return Written(after, current, (after,))

    return transition


def test_a_lost_race_applies_the_transition_again_on_the_row_read_back() -> None:
    stale, won = Row(1, "a"), Row(2, "b")  # another writer stored "b" since "a" was known
    rows, applied = Rows(won), list[Row | None]()
    written = write(rows, "k", appended(applied), known=stale)
    assert applied == [stale, won]
    assert rows.log == ["save", "load", "save"]  # refused by compare-and-set, read, saved
    # What to push is the winning application's, not the one that lost.
    assert written == Written(Row(3, "b!"), won, (Row(3, "b!"),)) and rows.row == written.value


def test_a_refusal_on_the_known_row_is_decided_again_on_the_row_read_back() -> None:
    stale, newer = Row(1, "a"), Row(2, "b")
    rows, seen = Rows(newer), list[int]()

    def refuse_the_old_one(current: Row | None) -> Written[Row]:
        assert current is not None
        seen.append(current.version)
        if current.version == stale.version:
            raise MatchError("not_your_turn", "decided on a stale row")
        return Written(Row(current.version + 1, "c"), current, (Row(current.version + 1, "c"),))

    written = write(rows, "k", refuse_the_old_one, known=stale)
    assert seen == [1, 2] and written.value == rows.row == Row(3, "c")
    assert rows.log == ["load", "save"]  # nothing was saved on the stale row


def test_a_refusal_on_the_row_read_back_is_final_and_stores_nothing() -> None:
    rows = Rows(Row(2, "b"))

    def refuse(current: Row | None) -> Written[Row]:
        raise MatchError("not_your_turn", "refused")

    with pytest.raises(MatchError):
        write(rows, "k", refuse, known=Row(1, "a"))
    assert rows.log == ["load"] and rows.row == Row(2, "b")


def test_no_change_on_the_known_row_is_read_again_and_nothing_saved() -> None:
    rows = Rows(Row(2, "b"))
    written = write(rows, "k", lambda current: Written(current or Row(0, "")), known=Row(1, "a"))
    assert written.value == Row(2, "b") and rows.log == ["load"]


def test_a_write_that_keeps_losing_gives_up() -> None:
    rows = Rows(Row(1, "a"))

    def interfering(current: Row | None) -> Written[Row]:
        assert current is not None and rows.row is not None
        rows.row = Row(rows.row.version + 1, "theirs")  # another writer, every time
        return Written(Row(current.version + 1, "ours"))

    with pytest.raises(Conflict):
        write(rows, "k", interfering, attempts=3)
    assert rows.log == ["load", "save"] * 3


def human_first(seed: int = 0) -> Match:
    """A fresh match in which the human plays first (seeded, so the same every run)."""
    for attempt in range(64):
        match = fresh(random.Random(seed + attempt), practice=False)
        if match.game.first == "human":
            return match
    raise AssertionError("no match with the human first in 64 seeds")


def test_a_move_carries_its_state_now_and_the_ai_reply_later() -> None:
    match = human_first()
    written = changed(random.Random(1), False, lambda m: human_move(m, 4), match)
    (moved,) = written.pushes
    assert written.before is match and moved.game.board.cells[4] != "."
    assert moved.game.turn == "ai" and moved.version == match.version + 1
    assert written.later is written.value and written.value.game.turn == "human"
    assert written.value.version > moved.version


def test_a_change_that_changes_nothing_pushes_the_match_and_no_reply() -> None:
    match = human_first()
    written = changed(random.Random(1), False, lambda m: m, match)
    assert written == Written(match, match, (match,))


def test_the_ai_reply_for_a_version_that_moved_on_is_stale() -> None:
    match = human_first()
    with pytest.raises(Stale):
        played(match.version, match)  # the human's turn: nothing for the AI to play
    with pytest.raises(Stale):
        played(match.version, None)


def test_a_seat_taken_is_counted_before_it_is_written() -> None:
    room = open_room("r" * 22, "a", kind="online", now=0.0)

    def seat_b(current: Room) -> Room:
        return dataclasses.replace(current, seats=("a", "b"))

    with pytest.raises(SeatsUncounted) as uncounted:
        capped(seat_b, "b", None, 2, room)
    assert uncounted.value.room is room
    assert capped(seat_b, "b", 1, 2, room).seats == ("a", "b")
    with pytest.raises(RoomError) as refused:
        capped(seat_b, "b", 2, 2, room)
    assert refused.value.code == "too_many_rooms"
    assert capped(lambda r: r, "b", None, 2, room) is room  # no seat taken: not counted


class Recorder:
    """Stands in for Flask-SocketIO: logs what is emitted; runs tasks at once."""

    def __init__(self, log: list[Any]) -> None:
        self.log = log

    def emit(self, event: str, data: Any, to: str | None = None) -> None:
        self.log.append((event, data))

    def start_background_task(self, task: Callable[..., None], *args: Any) -> None:
        task(*args)

    def sleep(self, seconds: float) -> None:
        """No delay: the order of pushes is what is checked, never time."""


class RivalWins(SQLiteStore):
    """A store where another writer stores the match one version on just before this
    process's next save, which compare-and-set then refuses."""

    rival = True

    def save(self, player: str, match: Match, *, expected: int | None) -> bool:
        current = self.load(player) if self.rival else None
        if current is not None:
            self.rival = False
            assert super().save(
                player,
                dataclasses.replace(current, version=current.version + 1),
                expected=current.version,
            )
        return super().save(player, match, expected=expected)


def test_a_move_goes_down_to_the_store_once_and_is_pushed_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[Any] = []
    store = RivalWins(tmp_path / "m.sqlite3")
    store.rival = False
    match = human_first()
    assert store.save("p", match, expected=None)
    store.rival = True
    config = {"SEED": 1, "AI_DELAY_MS": 1}
    service = MatchService(config, store, cast(SocketIO, Recorder(log)))
    writing = [False]
    real_write = write

    def logged_write(*args: Any, **kwargs: Any) -> Any:
        writing[0] = True
        log.append("write")
        try:
            return real_write(*args, **kwargs)
        finally:
            writing[0] = False

    def watched(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if writing[0]:
                log.append(f"re-entered {name}")
            return method(*args, **kwargs)

        return call

    monkeypatch.setattr(service_module, "write", logged_write)
    for name, value in vars(MatchService).items():
        if callable(value) and name != "__init__":
            monkeypatch.setattr(service, name, watched(name, getattr(service, name)))
    seen: list[int] = []

    def move(current: Match) -> Match:
        seen.append(current.version)
        return human_move(current, 4)

    stored = service.change("p", move)
    assert seen == [match.version, match.version + 1]  # the lost race, then the row read back
    assert not [entry for entry in log if isinstance(entry, str) and "re-entered" in entry]
    # One write, then the state after the move, then the AI's reply (after its delay).
    assert log[0] == "write" and [event for event, _ in log[1:]] == ["state", "state"]
    after_move, reply = (data for _, data in log[1:])
    assert after_move["board"][4] != "." and after_move["turn"] == "ai"
    assert reply["version"] == stored.version and store.load("p") == stored
