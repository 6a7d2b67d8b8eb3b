"""Rows stored by earlier releases are upgraded when loaded, and play goes on from them.

tests/fixtures/matches-<release>.jsonl holds rows exactly as that release's store wrote
them; each release that changes what is stored adds its own file, and none is removed.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect

from webapp.game.records import SCHEMA, from_record
from webapp.server.app import create_app

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

FIXTURES = Path(__file__).parent / "fixtures"
RELEASES = sorted(path.stem.split("-", 1)[1] for path in FIXTURES.glob("matches-*.jsonl"))


def stored_rows(release: str) -> list[dict[str, Any]]:
    """The rows one release wrote: player, version, data (its JSON text), updated."""
    lines = (FIXTURES / f"matches-{release}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def rows_of_every_release() -> list[tuple[str, dict[str, Any]]]:
    """(release, row) for every fixture row kept."""
    return [(release, row) for release in RELEASES for row in stored_rows(release)]


ROWS = rows_of_every_release()
ROW_IDS = [f"{release}:{row['player']}" for release, row in ROWS]


def test_a_fixture_is_kept_for_each_release_before() -> None:
    assert {"0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0.dev0", "0.5.0.dev0-hints", "0.5.0"} <= set(
        RELEASES
    )
    assert {row["player"] for row in stored_rows("0.5.0.dev0-hints")} >= {
        "adaptive-hinted-human-to-move",
        "adaptive-hinted-mid-game",
        "adaptive-hinted-game-over",
        "adaptive-second-game-over",
        "brutal-new",
        "hard-chosen-first-mid-game",
    }
    assert {row["player"] for row in stored_rows("0.5.0.dev0")} >= {
        "adaptive-mid-game",
        "adaptive-game-over",
        "adaptive-locked-second-game-over",
        "hard-chosen-first-mid-game",
        "practice.someone",
    }
    assert {row["player"] for row in stored_rows("0.4.0")} >= {
        "adaptive-ai-to-move",
        "hard-chosen-first-mid-game",
        "practice.someone",
        "adaptive-game-over",
        "adaptive-locked-second-game",
    }
    assert {row["player"] for row in stored_rows("0.3.0")} >= {
        "adaptive-ai-to-move",
        "adaptive-locked",
        "adaptive-match-over",
        "brutal-game-over",
        "hard-second-game",
    }
    assert {row["player"] for row in stored_rows("0.2.0")} >= {
        "adaptive-ai-to-move",
        "adaptive-perfect-move",
        "adaptive-match-over",
        "custom-rules-game-over",
        "impossible-human-to-move",
    }
    assert {row["player"] for row in stored_rows("0.1.0")} >= {
        "adaptive-ai-to-move",
        "adaptive-perfect-move",
        "adaptive-match-over",
        "impossible-human-to-move",
    }


@pytest.mark.parametrize(("release", "row"), ROWS, ids=ROW_IDS)
def test_every_stored_row_loads(release: str, row: dict[str, Any]) -> None:
    match = from_record(json.loads(row["data"]))
    assert match.version == row["version"]
    decisions = {move.decision for move in match.game.ai_moves}
    assert "minimax" not in decisions  # one word for perfect play since 0.2.0


def play_on(play: Actions) -> dict[str, Any]:
    """From whatever state the stored match is in, finish a game and start the next one."""
    state = play.refresh()
    if state["match"]["over"]:
        assert play.emit("new_match", {}) == {"ok": True}
    elif state["turn"] is None:
        assert play.emit("next_game") == {"ok": True}
    state = play.play_out()
    assert state["status"] in {"human_won", "ai_won", "draw"}
    if not state["match"]["over"]:
        assert play.emit("next_game") == {"ok": True}
    return play.state


def as_player(app: Flask, player: str) -> Actions:
    """A browser whose session cookie names ``player``, connected over Socket.IO."""
    client: FlaskClient = app.test_client()
    with client.session_transaction() as session:
        session["player"] = player
    return Actions(connect(app, client))


@pytest.mark.parametrize(("release", "row"), ROWS, ids=ROW_IDS)
@pytest.mark.server
def test_play_goes_on_from_a_sqlite_row(tmp_path: Path, release: str, row: dict[str, Any]) -> None:
    app = create_app({"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 3, "TESTING": True})
    with sqlite3.connect(tmp_path / "matches.sqlite3") as db:
        db.execute(
            "INSERT INTO matches (player, version, data, updated) VALUES (?, ?, ?, ?)",
            (row["player"], row["version"], row["data"], row["updated"]),
        )
    play = as_player(app, row["player"])
    first = play.refresh()
    assert first["version"] >= row["version"]
    assert first["history"][: len(json.loads(row["data"])["game"]["history"])] == [
        {"by": side, "cell": cell} for side, cell in json.loads(row["data"])["game"]["history"]
    ]
    after = play_on(play)
    assert after["version"] > first["version"]
    with sqlite3.connect(tmp_path / "matches.sqlite3") as db:
        (data,) = db.execute(
            "SELECT data FROM matches WHERE player = ?", (row["player"],)
        ).fetchone()
    assert json.loads(data)["format"] == SCHEMA


@pytest.mark.parametrize(("release", "row"), ROWS, ids=ROW_IDS)
def test_play_goes_on_from_a_redis_row(
    tmp_path: Path, redis_url: str, release: str, row: dict[str, Any]
) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 3, "REDIS_URL": redis_url}
    app = create_app({"TESTING": True, **settings})
    key = f"tictactoe:match:{row['player']}"
    redis.Redis.from_url(redis_url).hset(
        key, mapping={"version": row["version"], "data": row["data"]}
    )
    play = as_player(app, row["player"])
    assert play.refresh()["version"] >= row["version"]
    play_on(play)
    stored = redis.Redis.from_url(redis_url).hget(key, "data")
    assert stored is not None and json.loads(stored)["format"] == SCHEMA


@pytest.mark.server
def test_a_perfect_move_stored_as_minimax_is_shown_as_perfect(tmp_path: Path) -> None:
    (row,) = [r for r in stored_rows("0.1.0") if r["player"] == "adaptive-perfect-move"]
    assert '"decision":"minimax"' in row["data"]
    app = create_app({"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "TESTING": True})
    with sqlite3.connect(tmp_path / "matches.sqlite3") as db:
        db.execute(
            "INSERT INTO matches (player, version, data, updated) VALUES (?, ?, ?, ?)",
            (row["player"], row["version"], row["data"], row["updated"]),
        )
    state = as_player(app, row["player"]).refresh()
    assert state["last_ai_move"]["decision"] == "perfect"
    assert state["match"]["start_ai_hp"] == 5
