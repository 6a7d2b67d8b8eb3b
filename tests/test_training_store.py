"""Training on both stores: cards from a player's history, the schedule by fsrs with a
clock the test sets, the same-session loop, puzzle ratings, and "Your data"."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card as Schedule
from fsrs import Rating as Grade
from support.training import games_with_mistakes

from webapp.game.training import cards_from, puzzles
from webapp.server.services.training import (
    DAY,
    SCHEDULER,
    HistoryWithCards,
    Training,
    TrainingError,
)
from webapp.server.store.interface import StorageFull
from webapp.server.store.redis.history import RedisHistory
from webapp.server.store.redis.training import RedisTraining
from webapp.server.store.sqlite.history import SQLiteHistory
from webapp.server.store.sqlite.training import SQLiteTraining

NOW = 1_800_000_000.0  # the test's clock: every call is given its time


@pytest.fixture(params=["sqlite", "redis"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """A history store and a training store of the same kind."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        history: Any = RedisHistory(url, per_player=50, idle_seconds=3600)
        training: Any = RedisTraining(url, idle_seconds=3600)
    else:
        history = SQLiteHistory(tmp_path, per_player=50, idle_seconds=3600)
        training = SQLiteTraining(tmp_path, idle_seconds=3600)
    yield history, training
    training.close()
    history.close()


@pytest.fixture
def trained(stores: tuple[Any, Any]) -> tuple[Training, str]:
    """A player ("p" plus a fresh suffix) with ten mistakes in their history."""
    history, store = stores
    player = f"p{id(store)}"
    for entry in games_with_mistakes(10):
        assert history.add(player, f"room:r:{entry['id']}", entry)
    return Training(store, history.games), player


def best_of(training: Training, player: str, key: str) -> int:
    return int(training.store.cards(player)[key]["card"]["best"][0])


def test_ten_mistakes_in_history_are_ten_cards_all_due_at_once(
    trained: tuple[Training, str],
) -> None:
    training, player = trained
    state = training.state(player, NOW)
    assert state["cards"] == 10 and len(state["due"]) == 10
    assert "best" not in state["due"][0]  # the page is not told the answer
    assert training.state(player, NOW + 5)["cards"] == 10  # asked again: no new cards


def test_the_due_ones_come_back_the_next_day_by_fsrss_schedule(
    trained: tuple[Training, str],
) -> None:
    training, player = trained
    due = [card["key"] for card in training.state(player, NOW)["due"]]
    failed = set(due[:4])
    for key in due:
        cell = training.store.cards(player)[key]["card"]["played"] if key in failed else None
        answer = training.answer(
            player, key, cell if cell is not None else best_of(training, player, key), NOW
        )
        assert answer["scheduled"] and answer["passed"] is (key not in failed)
    # The failed ones stay due in this session until found; found, they wait their time.
    assert {card["key"] for card in training.due(player, NOW + 60)} == failed
    for key in failed:
        found = training.answer(player, key, best_of(training, player, key), NOW + 120)
        assert found["passed"] and not found["scheduled"]
    assert training.due(player, NOW + 180) == []
    # What fsrs itself says of a new card passed and one failed at NOW.
    new = Schedule(card_id=1, due=datetime.fromtimestamp(NOW, UTC))
    at = datetime.fromtimestamp(NOW, UTC)
    again = SCHEDULER.review_card(new, Grade.Again, at)[0].due.timestamp()
    good = SCHEDULER.review_card(new, Grade.Good, at)[0].due.timestamp()
    assert again == NOW + DAY < good
    assert {card["key"] for card in training.due(player, NOW + DAY)} == failed
    assert {card["key"] for card in training.due(player, good)} == set(due)
    state = training.state(player, NOW + DAY)
    assert state["streak"] == 1
    assert state["chart"][-2] == {"day": int(NOW // DAY), "passed": 6, "failed": 4}


def test_a_failed_card_comes_back_in_the_same_session_until_found(
    trained: tuple[Training, str],
) -> None:
    training, player = trained
    key = training.state(player, NOW)["due"][0]["key"]
    played = training.store.cards(player)[key]["card"]["played"]
    first = training.answer(player, key, played, NOW)
    assert (first["passed"], first["scheduled"], first["next"]) == (False, True, NOW + DAY)
    assert key in {card["key"] for card in training.due(player, NOW + 10)}  # even on reload
    retry = training.answer(player, key, played, NOW + 30)  # the page asks again: still wrong
    found = training.answer(player, key, best_of(training, player, key), NOW + 60)
    assert (retry["passed"], retry["scheduled"]) == (False, False)
    assert (found["passed"], found["scheduled"], found["next"]) == (True, False, NOW + DAY)
    assert [a["passed"] for a in training.store.answers(player)] == [False, False, True]
    assert key not in {card["key"] for card in training.due(player, NOW + 90)}
    assert key in {card["key"] for card in training.due(player, NOW + DAY)}


def test_bad_answers_are_refused_and_change_nothing(trained: tuple[Training, str]) -> None:
    training, player = trained
    card = training.state(player, NOW)["due"][0]
    taken = card["board"].index("X")
    for key, cell in [("nope", "b2"), (card["key"], "z9"), (card["key"], taken), (5, "b2")]:
        with pytest.raises(TrainingError):
            training.answer(player, key, cell, NOW)
    assert training.store.answers(player) == [] and len(training.due(player, NOW)) == 10


def test_puzzle_ratings_move_after_each_solve(trained: tuple[Training, str]) -> None:
    training, player = trained
    shown = training.puzzle(player)
    puzzle = next(p for p in puzzles() if p.key == shown["key"])
    solved = training.solve(player, puzzle.key, puzzle.answer[0], first_try=True)
    assert solved["solved"] and solved["rating"] > 1500 > solved["puzzle_rating"]
    other = training.puzzle(player, done=[puzzle.key])
    wrong = next(
        cell
        for cell, here in enumerate(other["board"])
        if here == "." and cell not in next(p for p in puzzles() if p.key == other["key"]).answer
    )
    missed = training.solve(player, other["key"], wrong, first_try=True)
    assert not missed["solved"] and missed["rating"] < solved["rating"]
    assert missed["puzzle_rating"] > 1500 and missed["answer"] == []


def test_export_holds_cards_answers_and_rating_and_forget_deletes_them(
    trained: tuple[Training, str],
) -> None:
    training, player = trained
    key = training.state(player, NOW)["due"][0]["key"]
    training.answer(player, key, best_of(training, player, key), NOW)
    puzzle = puzzles()[0]
    training.solve(player, puzzle.key, puzzle.answer[0], first_try=True)
    exported = json.loads(json.dumps(training.export(player)))
    assert len(exported["cards"]) == 10 and len(exported["answers"]) == 1
    assert exported["rating"]["rating"] > 1500
    assert training.store.forget(player) == 10
    assert training.export(player) == {"cards": [], "answers": [], "rating": None}


FIXTURES = Path(__file__).parent / "fixtures"


def test_a_database_of_0_5_0_opens_and_its_games_make_cards(tmp_path: Path) -> None:
    history = SQLiteHistory(tmp_path, per_player=50, idle_seconds=3600)
    for name in ("history-0.5.0-friends.jsonl", "history-0.5.0.dev0.jsonl"):
        for line in (FIXTURES / name).open():
            entry = json.loads(line)
            history.add("old", f"game:{entry['id']}", entry)
    history.close()
    reopened = SQLiteHistory(tmp_path, per_player=50, idle_seconds=3600)
    store = SQLiteTraining(tmp_path, idle_seconds=3600)
    try:
        training = Training(store, reopened.games)
        state = training.state("old", NOW)
        assert state["cards"] == len(state["due"]) >= 1
        assert len(reopened.games("old")) >= 2  # the games themselves as they were
    finally:
        store.close()
        reopened.close()


def test_each_game_stored_from_now_on_makes_its_cards(stores: tuple[Any, Any]) -> None:
    history, store = stores
    training = Training(store)
    wrapped = HistoryWithCards(history, training, lambda: NOW)
    game = games_with_mistakes(2)[1]
    assert wrapped.add("fresh", "room:r:1", game)
    assert not wrapped.add("fresh", "room:r:1", game)  # stored already: nothing new
    assert [card["game"] for card in training.due("fresh", NOW)] == [game["id"]]
    assert wrapped.games("fresh")[0]["id"] == game["id"]  # the rest is the history's own


def test_a_database_full_before_training_opens_and_refuses_only_trainings_writes(
    tmp_path: Path,
) -> None:
    history = SQLiteHistory(tmp_path, per_player=50, idle_seconds=3600)
    history._db.database.limit_size(0)  # no page more than it has: full
    store = SQLiteTraining(tmp_path, idle_seconds=3600)
    try:
        training = Training(store, history.games)
        assert not store.ready and store.cards("p") == {} and store.forget("p") == 0
        with pytest.raises(StorageFull):
            store.put_cards("p", {"k": {}}, replace=False)
        assert training.export("p") == {"cards": [], "answers": [], "rating": None}
    finally:
        store.close()
        history.close()


def test_games_stored_by_0_5_0_make_cards_in_either_store(stores: tuple[Any, Any]) -> None:
    history, store = stores
    entries = [json.loads(line) for line in (FIXTURES / "history-0.5.0.dev0.jsonl").open()]
    for entry in entries:
        history.add("old", f"game:{entry['id']}", entry)
    training = Training(store, history.games)
    made = sum(len(cards_from(entry)) for entry in entries)
    assert made >= 1 and training.state("old", NOW)["cards"] == made


def test_each_player_keeps_only_their_newest_answers(
    trained: tuple[Training, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in ("sqlite", "redis"):
        monkeypatch.setattr(f"webapp.server.store.{module}.training.ANSWERS_KEPT", 3)
    training, player = trained
    key = training.state(player, NOW)["due"][0]["key"]
    for minute in range(5):
        training.answer(player, key, best_of(training, player, key), NOW + 60 * minute)
    assert [a["at"] for a in training.store.answers(player)] == [NOW + 120, NOW + 180, NOW + 240]


def test_a_games_cards_rewrite_only_the_stale_times_and_the_idle_time_still_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_000_000.0]
    monkeypatch.setattr("webapp.server.store.sqlite.training.time.time", lambda: now[0])
    store = SQLiteTraining(tmp_path, idle_seconds=1000)  # times may be 1 s stale
    connection = store._db.database.connection
    card = {"card": {"key": "k"}, "schedule": {}}
    store.put_cards("p", {f"k{index}": card for index in range(3)}, replace=False)
    before = connection.total_changes
    now[0] += 0.5
    assert store.put_cards("p", {"k3": card}, replace=False) == 1
    assert connection.total_changes - before == 1  # the new card, no other row rewritten
    now[0] += 1000 - 0.1  # under the idle time since the last game, over it since the first
    assert store.prune() == 0
    assert len(store.cards("p")) == 4
    now[0] += 3  # past the idle time and twice the slack since the last game
    assert store.prune() == 4
    assert store.cards("p") == {}


def test_a_games_known_cards_cost_no_statement_until_the_slack_has_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_000_000.0]
    monkeypatch.setattr("webapp.server.store.sqlite.training.time.time", lambda: now[0])
    store = SQLiteTraining(tmp_path, idle_seconds=1000)  # the slack: 1 s
    connection = store._db.database.connection
    statements: list[str] = []
    connection.set_trace_callback(statements.append)
    card = {"card": {"key": "k"}, "schedule": {}}
    assert store.put_cards("p", {"k0": card, "k1": card}, replace=False) == 2
    statements.clear()
    now[0] += 0.5
    assert store.put_cards("p", {"k1": card}, replace=False) == 0
    assert statements == []  # stored by this process and refreshed within the slack
    assert store.put_cards("p", {"k1": card, "k2": card}, replace=False) == 1
    assert [s for s in statements if "training_cards" in s] == [
        next(s for s in statements if "INSERT OR IGNORE" in s)
    ]  # the new card alone, no refresh
    # Deleted behind its back (another connection): trusted only within the slack.
    other = sqlite3.connect(str(tmp_path / "matches.sqlite3"))
    with other:
        other.execute("DELETE FROM training_cards WHERE key = 'k0'")
    other.close()
    now[0] += 1
    assert store.put_cards("p", {"k0": card}, replace=False) == 1
    assert set(store.cards("p")) == {"k0", "k1", "k2"}
    store.forget("p")
    assert store.put_cards("p", {"k1": card}, replace=False) == 1  # forgotten: written again
    assert set(store.cards("p")) == {"k1"}
