"""The lab's step-through over the whole trace: every step of any search can be paged
to, each page paid from the connection's budget; bad steps are refused clearly."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from support.live import Actions, LiveSocket, connect

from webapp.game import lab
from webapp.game.board import Board
from webapp.server.app import create_app
from webapp.server.services.lab import answers as lab_service

# Each test opens sockets on a production server, shared by the module's tests.
pytestmark = [pytest.mark.server, pytest.mark.shared_server]

# Every test here plays from one address on the module's shared server: the address's
# budgets of paid work are not what these tests hold (tests/test_attacks_paid.py does).
APP_SETTINGS = {"LAB_MS_PER_ADDRESS": 1_000_000, "ODDS_MS_PER_ADDRESS": 1_000_000}

ALPHABETA = {"board": ".........", "scoring": "depth", "prune": True}
ALPHABETA_STEPS = 70_289  # 3 x 20,866 nodes - 1 + 7,692 cuts


def code(ack: dict[str, Any]) -> str:
    assert ack["ok"] is False, ack
    return str(ack["error"]["code"])


def as_json(events: Any) -> Any:
    return json.loads(json.dumps(events))


def test_the_last_page_of_the_empty_boards_alphabeta_trace(play: Actions) -> None:
    ack = play.emit("lab_page", {**ALPHABETA, "start": ALPHABETA_STEPS - 89})
    assert ack["ok"] and ack["steps"] == ALPHABETA_STEPS and len(ack["events"]) == 89
    last = ack["events"][-1]
    assert last == {"type": "leave", "node": 0, "value": 0, "bound": "exact", "how": "searched"}
    # The root was entered 70,000 steps before: the page names the nodes still open.
    assert ack["opened"][0]["node"] == 0 and ack["opened"][0]["board"] == "........."
    whole = list(lab.trace(Board(), lab.Options("depth", prune=True)))
    assert len(whole) == ALPHABETA_STEPS
    expected = [lab_service.event_of(event, "depth") for event in whole[-89:]]
    assert as_json(ack["events"]) == as_json(expected)


def test_the_last_step_of_plain_minimax_from_the_empty_board(play: Actions) -> None:
    steps = 3 * 549_946 - 1
    ack = play.emit("lab_page", {"board": ".........", "start": steps - 1, "size": 1})
    assert ack["ok"] and ack["steps"] == steps
    assert ack["events"] == [
        {"type": "leave", "node": 0, "value": 0, "bound": "exact", "how": "searched"}
    ]


def test_pages_go_on_jump_back_and_forth_and_match_the_core(play: Actions) -> None:
    board, options = Board.parse("X........"), lab.Options("result", prune=True)
    whole = [lab_service.event_of(e, "result") for e in lab.trace(board, options)]
    payload = {"board": board.cells, "scoring": "result", "prune": True}
    for start in (0, 200, 400, 5_000, 300, len(whole) - 10, 7):
        ack = play.emit("lab_page", {**payload, "start": start})
        assert ack["ok"] and ack["steps"] == len(whole) and ack["start"] == start
        assert as_json(ack["events"]) == as_json(whole[start : start + 200])
        opened = ack["opened"]
        assert opened[0]["node"] == 0 and opened[-1]["node"] == ack["events"][0]["node"]


@pytest.mark.parametrize("start", [-1, ALPHABETA_STEPS, 10**9])
def test_a_step_outside_the_trace_is_refused_and_changes_nothing(play: Actions, start: int) -> None:
    first = play.emit("lab_page", {**ALPHABETA, "start": 0})
    refused = play.emit("lab_page", {**ALPHABETA, "start": start})
    assert code(refused) == "bad_step"
    assert "70,289 steps" in refused["error"]["message"]
    after = play.emit("lab_page", {**ALPHABETA, "start": 200})
    following = play.emit("lab_page", {**ALPHABETA, "start": 0, "size": 200})
    assert after["ok"] and following["events"] == first["events"]
    whole = list(lab.trace(Board(), lab.Options("depth", prune=True)))
    assert as_json(after["events"]) == as_json(
        [lab_service.event_of(e, "depth") for e in whole[200:400]]
    )


def lab_asker(tmp_path: Path, ms_per_second: float) -> tuple[Flask, LiveSocket]:
    """An app whose connections each have ``ms_per_second`` of the lab's work and no
    burst, and a socket of a player on the lab page. The address's budget, shared by all
    connections here, refills at once: these tests are the connection's
    (test_attacks_paid.py holds the address's)."""
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_BURST": 10_000}
    lab = {"LAB_MS_PER_SECOND": ms_per_second, "LAB_BURST_MS": 1, "LAB_MS_PER_ADDRESS": 1_000_000}
    app = create_app({"TESTING": True, **settings, **lab})
    web = app.test_client()
    assert web.get("/lab").status_code == 200
    return app, connect(app, web)


def test_a_jump_is_paid_from_the_connections_budget(tmp_path: Path) -> None:
    app, asker = lab_asker(tmp_path, 1)
    jump = asker.emit("lab_page", {**ALPHABETA, "start": ALPHABETA_STEPS - 1}, callback=True)
    assert jump["ok"] and len(jump["events"]) == 1
    # Passing over 70,288 steps is tens of milliseconds of work: the budget is spent.
    again = asker.emit("lab_page", {**ALPHABETA, "start": 0}, callback=True)
    assert code(again) == "rate_limited"
    other_web = app.test_client()
    assert other_web.get("/lab").status_code == 200
    other = connect(app, other_web)
    assert other.emit("lab_page", {**ALPHABETA, "start": 0}, callback=True)["ok"]


def test_a_refusal_for_a_spent_budget_says_when_the_ask_is_taken(tmp_path: Path) -> None:
    # A jump's tens of milliseconds of work at 20 ms a second: a debt of a second or more.
    _, asker = lab_asker(tmp_path, 20)
    assert asker.emit("lab_page", {**ALPHABETA, "start": ALPHABETA_STEPS - 1}, callback=True)["ok"]
    again = asker.emit("lab_page", {**ALPHABETA, "start": 0}, callback=True)
    assert code(again) == "rate_limited"
    wait = again["error"]["retry_after"]
    assert wait >= 0.1 and wait == round(wait, 1)
    assert again["error"]["message"].endswith(f"ask again in {wait:.1f} s")
    time.sleep(wait)  # the debt is paid by then: the same ask is taken
    assert asker.emit("lab_page", {**ALPHABETA, "start": 0}, callback=True)["ok"]
