"""History: every finished game stored once, apart from the match, with lifetime figures."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import time
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of

from webapp.game.history import (
    SCHEMA,
    counted,
    finished_game,
    friend_game,
    games_counted,
    kind_of,
    reviewed,
    summary,
    totals_from,
    upgrade_entry,
)
from webapp.game.match import ai_move, human_move, new_match
from webapp.server.app import create_app
from webapp.server.services.targets import figures
from webapp.server.settings import DEFAULTS
from webapp.server.store.history import RedisHistory, SQLiteHistory, open_history

pytestmark = pytest.mark.shared_server  # one live server, each test a new player


def finished(seed: int, mode: str = "adaptive") -> Any:
    """A match whose first game has just ended, played by first-empty moves."""
    match = new_match(random.Random(seed), mode=mode)
    while match.game.turn is not None:
        if match.game.turn == "ai":
            match = ai_move(match)
        else:
            match = human_move(match, match.game.board.cells.index("."))
    return match


def test_an_entry_holds_the_game_and_the_hp_around_it() -> None:
    match = finished(3)
    entry = finished_game(match, game_id="g", ended=5.0)
    change = match.last_hp_change
    assert entry["hp_after"] == {"human": match.human_hp, "ai": match.ai_hp}
    assert entry["hp_before"] == {
        "human": match.human_hp - change[0],
        "ai": match.ai_hp - change[1],
    }
    assert (
        entry["result"] == {"human_won": "win", "ai_won": "loss", "draw": "draw"}[match.game.status]
    )
    assert [m["cell"] for m in entry["record"]["moves"]] == [c for _, c in match.game.history]
    assert entry["record"]["dice"]["server_seed"]  # revealed: the game is over
    fixed = finished_game(finished(3, "easy"), game_id="h", ended=5.0)
    assert fixed["hp_before"] is None and fixed["hp_after"] is None
    with pytest.raises(ValueError):
        finished_game(new_match(random.Random(1)), game_id="x", ended=0.0)


def test_counters_keep_results_matches_and_the_longest_run() -> None:
    counters: dict[str, int] = {}
    for result in ("win", "draw", "loss", "win", "win", "draw"):
        entry = {"record": {"mode": "easy"}, "result": result, "match_over": False}
        counters = counted(counters, entry)
    last = {"record": {"mode": "adaptive"}, "result": "loss", "match_over": True}
    totals = totals_from(counted(counters, {**last, "match_winner": "ai"}))
    assert totals.by_mode == {
        "easy": {"win": 3, "draw": 2, "loss": 1},
        "adaptive": {"win": 0, "draw": 0, "loss": 1},
    }
    assert (totals.matches_won, totals.matches_lost) == (0, 1)
    assert (totals.unbeaten, totals.longest_unbeaten) == (0, 3)


def test_review_marks_the_ais_gifts_from_the_players_side() -> None:
    record = {
        "first": "ai",
        "moves": [
            {"by": "ai", "cell": 0, "decision": "perfect"},
            {"by": "human", "cell": 3},  # O's a2: throws the draw away
            {"by": "ai", "cell": 8, "decision": "random"},  # X's c3 misses the win
            {"by": "human", "cell": 4},
        ],
    }
    found = reviewed({"record": record})
    assert found["mark"] == "O"
    assert [m["verdict"] for m in found["moves"]][:3] == ["best", "mistake", "mistake"]
    assert "gift" not in found["moves"][1]  # the player's slip is no gift of the AI's
    assert found["moves"][2]["gift"] == "taken" and found["moves"][2]["decision"] == "random"
    assert found["summary"] == "1 mistake, 1 taken gift"
    # The player's slip is a game to practise from: the server says so, the page asks not.
    assert found["can_practise"] is True
    assert reviewed({"record": {**record, "moves": record["moves"][:1]}})["can_practise"] is False


@pytest.mark.parametrize(
    ("cells", "line"),
    [
        ((0, 3, 1, 4, 2), [0, 1, 2]),  # X's top row
        ((4, 0, 8, 3, 2, 6), [0, 3, 6]),  # O's left column
        ((0, 4, 8, 2, 6, 3, 5, 7, 1), None),  # a full board, no line: a draw
    ],
)
def test_the_review_names_the_line_that_ended_the_game(
    cells: tuple[int, ...], line: list[int] | None
) -> None:
    # The replay draws the winning line from the server's word, not from a rule of its own.
    moves = [
        {"by": "human" if ply % 2 == 0 else "ai", "cell": cell} for ply, cell in enumerate(cells)
    ]
    assert reviewed({"record": {"first": "human", "moves": moves}})["winning_line"] == line


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Both history stores, with a cap of three games."""
    if request.param == "redis":
        found: Any = RedisHistory(
            request.getfixturevalue("redis_url"), per_player=3, idle_seconds=3600
        )
    else:
        found = SQLiteHistory(tmp_path, per_player=3, idle_seconds=3600)
    yield found
    found.close()


@pytest.mark.system
def test_a_store_keeps_each_game_once_newest_first_up_to_its_cap(store: Any) -> None:
    entries = [finished_game(finished(seed), game_id=f"id{seed}", ended=seed) for seed in range(5)]
    for entry in entries:
        assert store.add("p", str(entry["ended"]), entry)
    assert not store.add("p", "4", entries[4])  # the same end, stored twice: kept once
    assert [e["id"] for e in store.games("p")] == ["id4", "id3", "id2"]
    assert sum(sum(r.values()) for r in totals_from(store.counters("p")).by_mode.values()) == 5
    assert games_counted(store.counters("p")) == 5  # what decides whether any are dropped
    assert store.game("id3") == ("p", entries[3])
    assert store.game("id0") is None  # dropped past the cap
    assert store.games("q") == [] and store.counters("q") == {}
    assert store.forget("p") == 3
    assert store.games("p") == [] and store.counters("p") == {} and store.game("id4") is None


def test_two_processes_count_one_players_games_alike(redis_url: str) -> None:
    first, second = (RedisHistory(redis_url, per_player=3, idle_seconds=3600) for _ in range(2))
    entries = [finished_game(finished(seed), game_id=f"id{seed}", ended=seed) for seed in range(5)]
    for index, entry in enumerate(entries):  # each adds on counters the other has changed
        assert (first, second)[index % 2].add("p", str(entry["ended"]), entry)
    assert not second.add("p", "4", entries[4])
    for store in (first, second):
        assert games_counted(store.counters("p")) == 5
        assert [e["id"] for e in store.games("p")] == ["id4", "id3", "id2"]
    first.forget("p")
    assert second.add("p", "5", entries[0]) and games_counted(first.counters("p")) == 1
    first.close()
    second.close()


def play_one_game(play: Actions) -> dict[str, Any]:
    """Play the current game out through the protocol; the final snapshot."""
    state = play.refresh()
    while state["status"] == "playing":
        cell = state["board"].index(".")
        assert play.emit("move", {"cell": cell})["ok"]
        state = play.refresh()
    return state


def test_a_finished_game_is_in_history_with_its_review(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    assert play.emit("history") == {
        "ok": True,
        "games": [],
        "totals": totals_from({}).to_dict(),
        "under_way": None,
        **figures([]),
    }
    final = play_one_game(play)
    listed = play.emit("history")
    assert len(listed["games"]) == 1
    game = listed["games"][0]
    assert game["mode"] == "adaptive" and game["moves"] == len(final["history"])
    assert game["result"] == {"human_won": "win", "ai_won": "loss", "draw": "draw"}[final["status"]]
    whole = play.emit("history_game", {"id": game["id"]})
    assert whole["game"]["record"]["moves"] == final["record"]["moves"]
    assert len(whole["review"]["moves"]) == len(final["history"])
    play.emit("next_game")
    assert len(play.emit("history")["games"]) == 1  # a move never rewrites history

    other = app.test_client()
    other.get("/")
    stranger = connect(app, other)
    refused = stranger.emit("history_game", {"id": game["id"]}, callback=True)
    assert refused["error"]["code"] == "game_not_found"
    for bad in ({"id": "nope"}, {}):
        assert play.emit("history_game", bad)["error"]["code"] == "game_not_found"
    assert play.emit("history_game", {"id": 5})["error"]["code"] == "bad_payload"


def test_a_game_ended_again_by_another_change_is_not_kept_again(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    assert play.emit("new_match", {"mode": "easy", "first": "human"})["ok"]
    play_one_game(play)
    me, service = player_of(client), app.extensions["tictactoe"]
    kept = play.emit("history")
    ended = service.store.load(me)
    later = dataclasses.replace(ended, version=ended.version + 2)  # as if ended once more
    service.keep_if_ended(me, None, later)
    assert play.emit("history") == kept and len(kept["games"]) == 1


@pytest.mark.server
def test_history_survives_a_restart_of_the_app(tmp_path: Path) -> None:
    settings = {"TESTING": True, "DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 3}
    app = create_app(settings)
    web = app.test_client()
    web.get("/")
    play_one_game(Actions(connect(app, web)))
    before = Actions(connect(app, web)).emit("history")
    again = create_app(settings)
    web_again = again.test_client()
    web_again.set_cookie("session", web.get_cookie("session").value)  # type: ignore[union-attr]
    after = Actions(connect(again, web_again)).emit("history")
    assert after == before and len(after["games"]) == 1


def test_forget_deletes_games_match_and_seats_only_from_our_page(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    play_one_game(play)
    me = player_of(client)
    assert app.extensions["tictactoe"].store.load(me) is not None
    friend = app.test_client()
    friend.get("/")
    created = client.post("/r", headers={"Origin": "http://localhost"})
    room = str(created.headers["Location"]).rsplit("/", 1)[1]
    assert play.emit("room_join", {"room": room})["you"]
    assert connect(app, friend).emit("room_join", {"room": room}, callback=True)["you"]

    assert client.post("/history/forget").status_code == 403  # no Origin: not our page
    assert len(play.emit("history")["games"]) == 1
    assert client.post("/history/forget", headers={"Origin": "http://localhost"}).status_code == 204
    assert client.get("/history/games.json").get_json()["games"] == []
    assert app.extensions["history"].games(me) == []
    assert app.extensions["history"].counters(me) == {}
    assert app.extensions["tictactoe"].store.load(me) is None
    rooms = app.extensions["rooms"].store
    seats = rooms.load(room).seats
    assert None in seats and seats.count(None) == 1  # the friend keeps theirs
    # The game under way is the friend's by forfeit; none is kept for the deleted player.
    (won,) = app.extensions["history"].games(player_of(friend))
    assert (won["result"], won["forfeit"], won["record"]["moves"]) == ("win", "friend", [])


FIXTURE_0_4_0 = Path(__file__).parent / "fixtures" / "history-0.4.0.jsonl"


def test_entries_stored_by_0_4_0_load_beside_games_with_a_friend(store: Any) -> None:
    old = [json.loads(line) for line in FIXTURE_0_4_0.open()]
    for entry in old:
        assert store.add("p", f"game:{entry['id']}", entry)
    friend = friend_game(
        (0, 3, 1, 4, 2), mine="O", result="loss", resigned=None, game=1, game_id="f" * 22, ended=2e9
    )
    assert store.add("p", "room:r:9", friend)
    listed = [summary(entry) for entry in store.games("p")]
    assert [(g["kind"], g["mode"]) for g in listed] == [
        ("friend", "friend"),
        ("ai", old[1]["record"]["mode"]),
        ("ai", old[0]["record"]["mode"]),
    ]
    totals = totals_from(store.counters("p"))
    assert sum(sum(counts.values()) for counts in totals.by_mode.values()) == 2
    assert totals.with_friends == {"win": 0, "draw": 0, "loss": 1}
    assert [kind_of(entry) for entry in old] == ["ai", "ai"]
    assert reviewed(old[0])["moves"] and reviewed(friend)["mark"] == "O"


def test_a_game_cut_short_is_a_forfeit_in_the_list_and_its_review() -> None:
    left = friend_game(
        (4, 0),
        mine="X",
        result="win",
        resigned=None,
        forfeit="friend",
        game=2,
        game_id="g" * 22,
        ended=2e9,
    )
    assert left["forfeit"] == "friend" and left["resigned"] is None
    listed = summary(left)
    assert (listed["result"], listed["forfeit"], listed["moves"]) == ("win", "friend", 2)
    assert [move["by"] for move in reviewed(left)["moves"]] == ["human", "friend"]
    assert reviewed(left)["winning_line"] is None  # no line: it was cut short
    assert counted({}, left) == {"friend:win": 1}


FIXTURE_FRIENDS_0_5_0 = Path(__file__).parent / "fixtures" / "history-0.5.0-friends.jsonl"


def test_games_with_a_friend_stored_by_0_5_0_were_forfeited_by_no_one(store: Any) -> None:
    old = [json.loads(line) for line in FIXTURE_FRIENDS_0_5_0.open()]
    for entry in old:
        assert store.add("p", f"room:r:{entry['id']}", entry)
        upgraded = upgrade_entry(entry)
        assert (upgraded["format"], upgraded["forfeit"]) == (SCHEMA, None)
        assert upgraded["variant"] == "classic"  # every game before variants came
        same = {**upgraded, "format": 3, "forfeit": None, "variant": None}
        assert same == {**entry, "forfeit": None, "variant": None}
    listed = [summary(entry) for entry in store.games("p")]
    assert [(g["result"], g["resigned"], g["forfeit"]) for g in listed] == [
        ("loss", "human", None),
        ("win", None, None),
    ]
    promised = finished_game(finished(3), game_id="h" * 22, ended=2e9)
    promised["record"]["promise"] = {"chance": 0.6}  # as a targeted match's game keeps it
    assert upgrade_entry({**promised, "format": 3}) == promised  # its promise stays


def test_history_says_which_match_is_under_way_and_which_was_abandoned(play: Actions) -> None:
    play_one_game(play)
    first = play.emit("history")
    assert first["under_way"] == first["games"][0]["id"]  # finished, the next not begun
    play.emit("next_game")
    assert play.emit("history")["under_way"] == first["games"][0]["id"]

    assert play.new_match(mode="easy")["ok"]  # the first match is abandoned at game 2
    assert play.emit("history")["under_way"] is None
    play_one_game(play)
    listed = play.emit("history")
    assert listed["under_way"] == listed["games"][0]["id"] != first["games"][0]["id"]

    assert play.new_match(rules={"start_human_hp": 1, "start_ai_hp": 1})["ok"]
    play_one_game(play)  # one game at 1 HP each ends the match
    over = play.emit("history")
    assert over["games"][0]["match_over"] is True and over["under_way"] is None


# --- the budget of all players' games ------------------------------------------------------


@pytest.fixture(params=["sqlite", "redis"])
def capped(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Both history stores, all players' games capped at 50, each keeping 10 at least."""
    config = {**DEFAULTS, "DATA_DIR": str(tmp_path), "MAX_HISTORY_GAMES": 50}
    if request.param == "redis":
        config["REDIS_URL"] = request.getfixturevalue("redis_url")
    found = open_history({**config, "HISTORY_FLOOR": 10})
    yield found
    found.close()


ONE_GAME = finished(1)


def add_games(store: Any, player: str, count: int) -> list[str]:
    """Store ``count`` finished games of ``player``; their ids, newest first."""
    ids = [f"{player}-{index}" for index in range(count)]
    for game_id in ids:
        entry = finished_game(ONE_GAME, game_id=game_id, ended=time.time())
        assert store.add(player, game_id, entry)
    return ids[::-1]


def stored_ids(store: Any, player: str) -> list[str]:
    return [entry["id"] for entry in store.games(player)]


def test_past_the_budget_whoever_grew_it_most_loses_their_oldest_games(capped: Any) -> None:
    victim = add_games(capped, "victim", 20)
    totals = capped.counters("victim")
    attacker = add_games(capped, "attacker", 40)
    assert stored_ids(capped, "victim") == victim
    assert stored_ids(capped, "attacker") == attacker[:30]
    assert capped.counters("victim") == totals
    assert games_counted(capped.counters("attacker")) == 40  # its lifetime, all counted
    assert capped.count() == 50


def test_among_equals_the_longest_idle_loses_first_and_no_one_goes_below_the_floor(
    capped: Any,
) -> None:
    players = ["p1", "p2", "p3"]
    for player in players:
        add_games(capped, player, 15)
        time.sleep(1.1)  # Redis orders players by whole seconds
    add_games(capped, "p4", 10)
    # Five past the budget: one from each of the three with 15, the longest idle first,
    # then from the two idle the longest again.
    assert [len(capped.games(p)) for p in [*players, "p4"]] == [13, 13, 14, 10]
    add_games(capped, "p5", 10)
    newest = add_games(capped, "p6", 10)
    # Every player is down to the floor: the budget waits for idle players to expire.
    assert [len(capped.games(p)) for p in [*players, "p4", "p5"]] == [10] * 5
    assert stored_ids(capped, "p6") == newest and capped.count() == 60
    assert stored_ids(capped, "p1") == [f"p1-{index}" for index in range(14, 4, -1)]
    assert all(games_counted(capped.counters(p)) == 15 for p in players)


# Tables as 0.4.0 and 0.5.0.dev0 made them: no count of each player's stored games.
TABLES_BEFORE = (
    "CREATE TABLE games (player TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL UNIQUE,"
    " ended REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (player, key))",
    "CREATE INDEX games_by_player ON games (player, ended)",
    "CREATE TABLE game_totals (player TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL)",
    "CREATE INDEX game_totals_by_updated ON game_totals (updated)",
)
FIXTURE_0_5_0 = Path(__file__).parent / "fixtures" / "history-0.5.0.dev0.jsonl"


def test_games_stored_by_the_release_before_count_toward_the_budget(tmp_path: Path) -> None:
    old = [json.loads(line) for line in FIXTURE_0_5_0.open()]
    with sqlite3.connect(tmp_path / "matches.sqlite3") as db:
        for statement in TABLES_BEFORE:
            db.execute(statement)
        for entry in old:
            row = ("old", f"game:{entry['id']}", entry["id"], entry["ended"], json.dumps(entry))
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?)", row)
        totals = json.dumps(reduce(counted, old, {}))
        db.execute("INSERT INTO game_totals VALUES ('old', ?, ?)", (totals, time.time() - 60))
    store = SQLiteHistory(tmp_path, per_player=500, idle_seconds=3600, budget=3, floor=1)
    add_games(store, "new", 2)
    # As many games as the new player, and idle the longer: the old player's oldest goes.
    assert stored_ids(store, "old") == [old[1]["id"]]
    assert len(store.games("new")) == 2 and store.count() == 3
    assert store.counters("old") == json.loads(totals)
    store.close()


def test_a_redis_history_of_the_release_before_is_sized_on_the_next_game(
    redis_url: str,
) -> None:
    store = RedisHistory(redis_url, per_player=500, idle_seconds=3600, budget=3, floor=1)
    old = add_games(store, "old", 2)
    redis.Redis.from_url(redis_url).delete("tictactoe:history-sizes")  # as before it
    time.sleep(1.1)  # Redis orders players by whole seconds
    add_games(store, "new", 2)
    assert stored_ids(store, "old") == old[:1]
    assert len(store.games("new")) == 2 and store.count() == 3
    store.close()
