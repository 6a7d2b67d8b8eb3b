"""The lab's events against the real stack: a node's children, pages of a trace, the
counts; bad boards and oversized asks refused before any work, floods cut like any."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect

from webapp.game import lab
from webapp.game.board import Board
from webapp.server.app import create_app
from webapp.server.services.lab.counts import COUNTS_FILE
from webapp.server.services.lab.encoding import event_of

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

# Every test here plays from one address on the module's shared server: the address's
# budgets of paid work are not what these tests hold (tests/test_attacks_paid.py does).
APP_SETTINGS = {"LAB_MS_PER_ADDRESS": 1_000_000, "ODDS_MS_PER_ADDRESS": 1_000_000}

FATALIST = "XO..X...."  # O to move and lost; c1 comes first, c3 is the block


def code(ack: dict[str, Any]) -> str:
    assert ack["ok"] is False, ack
    return str(ack["error"]["code"])


def test_the_lab_page_shows_the_board_it_is_given(client: FlaskClient) -> None:
    page = client.get(f"/lab?board={FATALIST}")
    assert page.status_code == 200
    assert f'data-board="{FATALIST}"'.encode() in page.data
    refused = client.get("/lab?board=XXXXXXXXX")
    assert refused.status_code == 200 and b'data-board="........."' in refused.data
    assert b"cannot be shown" in refused.data


def test_children_of_the_root_and_of_a_path(play: Actions) -> None:
    ack = play.emit("lab_children", {"board": FATALIST, "scoring": "depth"})
    assert ack["ok"], ack
    cells = [child["cell"] for child in ack["children"]]
    assert cells == [2, 3, 5, 6, 7, 8]
    assert ack["best"] == 8 and ack["value"] == -6  # the block, losing as late as it can
    assert {c["cell"]: c["value"] for c in ack["children"]}[2] == -8  # X wins at once
    deeper = play.emit("lab_children", {"board": FATALIST, "path": "8", "scoring": "depth"})
    assert deeper["ok"] and deeper["value"] == -6
    assert all(child["board"].count("O") == 2 for child in deeper["children"])


def test_the_fatalist_position_has_two_choices(play: Actions) -> None:
    plain = play.emit("lab_children", {"board": FATALIST, "scoring": "result"})
    aware = play.emit("lab_children", {"board": FATALIST, "scoring": "depth"})
    assert plain["value"] == -1 and {c["value"] for c in plain["children"]} == {-1}
    assert (plain["best"], aware["best"]) == (2, 8)  # the first cell, then the block


def test_children_agree_with_the_core(play: Actions) -> None:
    board = Board.parse("X...O....")
    ack = play.emit("lab_children", {"board": board.cells, "path": "1", "scoring": "empties"})
    expected = lab.children(board, (1,), lab.Options("empties"))
    assert [(c["cell"], c["value"]) for c in ack["children"]] == [
        (c.cell, c.value) for c in expected
    ]


def test_a_finished_position_has_no_children(play: Actions) -> None:
    ack = play.emit("lab_children", {"board": "XXXOO....", "scoring": "depth"})
    assert ack == {"ok": True, "children": [], "value": None, "best": None}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({}, "bad_payload"),
        ({"board": "XXXXXXXXX"}, "bad_board"),
        ({"board": "OO......."}, "bad_board"),
        ({"board": "........"}, "bad_board"),
        ({"board": FATALIST, "path": "0"}, "bad_board"),  # a1 is taken
        ({"board": FATALIST, "path": "9"}, "bad_board"),
        ({"board": FATALIST, "path": "2" * 10}, "bad_board"),
        ({"board": FATALIST, "scoring": "luck"}, "bad_setting"),
        ({"board": FATALIST, "depth": 0}, "bad_setting"),
        ({"board": FATALIST, "depth": "2"}, "bad_payload"),
        ({"board": FATALIST, "who": "me"}, "bad_payload"),
    ],
)
def test_bad_children_requests_are_refused(
    play: Actions, payload: dict[str, Any], expected: str
) -> None:
    ack = play.emit("lab_children", payload)
    assert code(ack) == expected
    assert play.sock.get_received() == []


def test_a_page_of_a_pruned_search_reaches_its_first_cut(play: Actions) -> None:
    ack = play.emit("lab_page", {"board": ".........", "prune": True, "size": 50})
    assert ack["ok"] and ack["start"] == 0 and len(ack["events"]) == 50
    first = ack["events"][0]
    assert first == {
        "type": "enter",
        "node": 0,
        "parent": None,
        "cell": None,
        "board": ".........",
        "depth": 0,
        "alpha": None,
        "beta": None,
    }
    cut = next(event for event in ack["events"] if event["type"] == "cut")
    assert re.search(r"needs? no search", cut["reason"]) and cut["skipped_names"]
    # The empty board's pruned search: 20,866 nodes and 7,692 cuts, from the stored counts.
    assert ack["steps"] == 3 * 20_866 - 1 + 7_692


def test_pages_follow_on_and_match_the_core(play: Actions) -> None:
    board = Board.parse("X...O....")
    options = lab.Options("depth", prune=True)
    whole = [event_of(e, "depth") for e in lab.trace(board, options)]
    got: list[dict[str, Any]] = []
    for start in range(0, len(whole), 200):
        ack = play.emit("lab_page", {"board": board.cells, "prune": True, "start": start})
        got += ack["events"]
        assert ack["steps"] == len(whole)
    assert json.loads(json.dumps(got)) == json.loads(json.dumps(whole))


@pytest.mark.parametrize(
    "payload",
    [
        {"size": 201},
        {"size": 0},
    ],
)
def test_a_page_over_its_bounds_is_too_costly(play: Actions, payload: dict[str, Any]) -> None:
    began = time.perf_counter()
    ack = play.emit("lab_page", {"board": ".........", **payload})
    assert code(ack) == "too_costly"
    assert time.perf_counter() - began < 5  # refused before any search (a full one is seconds)


def test_the_last_page_within_the_limit_is_answered(play: Actions) -> None:
    ack = play.emit("lab_page", {"board": ".........", "start": 9_800, "size": 200})
    assert ack["ok"] and len(ack["events"]) == 200


def test_the_empty_boards_counts_come_from_the_stored_ones(app: Flask, play: Actions) -> None:
    ack = play.emit("lab_counts", {"board": ".........", "scoring": "depth"})
    assert ack["ok"] and ack["measured"]
    kinds = {row["kind"]: row for row in ack["kinds"]}
    assert len(kinds) == 8
    assert kinds["minimax"]["nodes"] == 549_946
    assert (kinds["alphabeta"]["nodes"], kinds["alphabeta"]["cuts"]) == (20_866, 7_692)
    assert kinds["minimax+table"]["hits"] == 10_690
    seven = play.emit("lab_counts", {"board": "X.O......", "scoring": "empties"})
    assert seven["ok"] and seven["measured"] == ack["measured"]  # stored, not counted now


def test_the_stored_counts_are_the_cores(tmp_path: Path) -> None:
    """Every stored count of one costly position, counted again (the cheap kinds)."""
    stored = json.loads(COUNTS_FILE.read_text())["positions"]
    assert len(stored) == (1 + 9 + 72) * 4  # the empty board, the first two moves; scorings
    board = Board().apply_move(4)
    for kind in lab.kinds("result"):
        if kind.kind in ("minimax", "minimax+symmetry"):
            continue  # the slow ones: minimax's count is the tree's, checked elsewhere
        counts = lab.search(board, kind).counts
        row = next(r for r in stored[f"{board.cells} result"] if r[0] == kind.kind)
        assert row[1:4] == [counts.nodes, counts.hits, counts.cuts], kind.kind


def test_counts_of_a_cheap_position_are_counted_now(play: Actions) -> None:
    ack = play.emit("lab_counts", {"board": FATALIST, "scoring": "result"})
    assert ack["ok"] and ack["measured"] is None
    kinds = {row["kind"]: row for row in ack["kinds"]}
    expected = lab.search(Board.parse(FATALIST), lab.Options("result", prune=True)).counts
    assert kinds["alphabeta"]["nodes"] == expected.nodes
    assert kinds["alphabeta"]["cuts"] == expected.cuts


def test_counts_of_a_costly_position_not_stored_are_too_costly(play: Actions) -> None:
    ack = play.emit("lab_counts", {"board": ".........", "scoring": "share", "depth": 8})
    assert code(ack) == "too_costly"
    too_deep = play.emit("lab_counts", {"board": "X.O......", "scoring": "depth", "depth": 5})
    assert code(too_deep) == "too_costly"
    limited = play.emit("lab_counts", {"board": ".........", "scoring": "share", "depth": 4})
    assert limited["ok"] and limited["measured"] is None


@pytest.mark.server
def test_a_flood_of_lab_events_is_cut_like_any(tmp_path: Path) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_PER_SECOND": 1.0}
    app = create_app({"TESTING": True, **settings, "RATE_BURST": 4})
    web = app.test_client()
    assert web.get("/lab").status_code == 200
    flooder = connect(app, web)
    payload = {"board": ".........", "prune": True}
    acks = [flooder.emit("lab_page", payload, callback=True) for _ in range(20)]
    answered = [ack for ack in acks if ack]
    assert any(not ack["ok"] and ack["error"]["code"] == "rate_limited" for ack in answered)
    assert sum(1 for ack in answered if ack["ok"]) <= 5
