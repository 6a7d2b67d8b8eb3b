"""The lab's events on every variant: a 4x4 position's children, counts and walk; a bad
variant or a board not of it refused with its field, and nothing changed."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from support.live import Actions

from webapp.game import lab
from webapp.game.position import Position
from webapp.game.variant import variant_named
from webapp.server.services.lab.answers import COUNT_MOST, TRACE_MOST

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

APP_SETTINGS = {"LAB_MS_PER_ADDRESS": 1_000_000, "ODDS_MS_PER_ADDRESS": 1_000_000}

FOUR = {"variant": "4x4k4", "board": "XO.XOX..X.O....."}  # 9 empty cells, O to move
NOTAKTO = {"variant": "notakto2", "board": "X...X..../....X...."}


def refusal(ack: dict[str, Any]) -> tuple[str, str | None]:
    assert ack["ok"] is False, ack
    return ack["error"]["code"], ack["error"].get("field")


def test_the_lab_page_takes_a_variant_beside_the_position(client: FlaskClient) -> None:
    page = client.get("/lab?variant=4x4k4&board=XO..OX..X.O.....")
    assert b'data-board="XO..OX..X.O....."' in page.data
    assert b'data-variant="4x4k4"' in page.data and b'data-rows="4"' in page.data
    wrong = client.get("/lab?variant=4x4k4&board=XO..X....")
    assert b'data-board="................"' in wrong.data and b"cannot be shown" in wrong.data
    unknown = client.get("/lab?variant=5x5&board=XO..X....")
    assert b'data-variant="classic"' in unknown.data and b"no variant is called" in unknown.data
    notakto = client.get("/lab?variant=notakto3")
    assert b'data-board="........./........./........."' in notakto.data


def test_the_children_of_a_4x4_position_come_from_the_engine(play: Actions) -> None:
    ack = play.emit("lab_children", {**FOUR, "scoring": "depth"})
    assert ack["ok"], ack
    assert [child["cell"] for child in ack["children"]] == [2, 6, 7, 9, 11, 12, 13, 14, 15]
    assert all(len(child["board"]) == 16 and child["mark"] == "O" for child in ack["children"])
    position = Position.parse(variant_named("4x4k4"), FOUR["board"])
    own = lab.children(position, (), lab.Options("depth"))  # the lab's own search, unbounded
    assert [child["value"] for child in ack["children"]] == [child.value for child in own]
    assert ack["value"] == 0  # a draw
    deeper = play.emit("lab_children", {**FOUR, "path": "15,14", "scoring": "result"})
    assert deeper["ok"] and all(c["board"].count("X") == 5 for c in deeper["children"])
    empty = play.emit("lab_children", {"variant": "4x4k4", "board": "." * 16})
    assert empty["ok"] and len(empty["children"]) == 16 and empty["value"] == 0


def test_the_counts_on_4x4_estimate_plain_minimax_and_count_the_rest(play: Actions) -> None:
    ack = play.emit("lab_counts", {**FOUR, "scoring": "depth"})
    assert ack["ok"], ack
    assert ack["most"] == COUNT_MOST and ack["estimated_by"] == "random descents"
    rows = {row["kind"]: row for row in ack["kinds"]}
    assert len(rows) == 9 and "engine" in rows
    assert rows["minimax"]["estimate"] is True and rows["minimax"]["nodes"] > COUNT_MOST
    assert rows["minimax+symmetry"]["estimate"] is True
    position = Position.parse(variant_named("4x4k4"), FOUR["board"])
    whole = lab.Options("depth", prune=True, table=True, symmetry=True)
    counted = lab.search(position, whole).counts
    best = rows["alphabeta+table+symmetry"]
    assert "estimate" not in best and "more" not in best
    assert (best["nodes"], best["hits"], best["cuts"]) == (
        counted.nodes,
        counted.hits,
        counted.cuts,
    )
    assert rows["minimax+table"]["more"] is True and rows["minimax+table"]["nodes"] == COUNT_MOST
    assert rows["engine"]["nodes"] < best["nodes"]  # move ordering and shortcuts
    on_notakto = play.emit("lab_counts", {**NOTAKTO, "scoring": "result"})
    notakto_rows = {row["kind"]: row for row in on_notakto["kinds"]}
    assert notakto_rows["alphabeta+table+symmetry"]["nodes"] < 1_000


def test_a_walk_too_large_to_walk_whole_shows_its_first_steps(play: Actions) -> None:
    empty = {"variant": "4x4k4", "board": "." * 16, "prune": True}
    first = play.emit("lab_page", {**empty, "size": 50})
    assert first["ok"], first
    assert first["whole"] is False and first["steps"] == 3 * TRACE_MOST - 1 + 1
    assert first["events"][0]["board"] == "." * 16
    last = play.emit("lab_page", {**empty, "start": first["steps"] - 1, "size": 1})
    assert last["ok"] and len(last["events"]) == 1
    past = play.emit("lab_page", {**empty, "start": first["steps"], "size": 1})
    assert refusal(past)[0] == "bad_step"
    dead = play.emit("lab_children", {"variant": "notakto2", "board": "XXX....../X........"})
    assert dead["ok"] and dead["dead"] == [0]  # the first board is dead: no move on it
    assert all(child["cell"] >= 9 for child in dead["children"])
    small = play.emit("lab_page", {**NOTAKTO, "prune": True, "symmetry": True, "table": True})
    assert small["ok"] and small["whole"] is True
    assert "/" in small["events"][0]["board"]
    cuts = [event for event in small["events"] if event["type"] == "cut"]
    assert all(":" in name for cut in cuts for name in cut["skipped_names"])  # "2:b2"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"variant": "5x5", "board": "." * 16}, ("bad_payload", "variant")),
        ({"variant": 4, "board": "." * 16}, ("bad_payload", None)),  # any field of a wrong type
        ({"variant": "4x4k4", "board": "........."}, ("bad_board", "board")),
        ({"variant": "notakto2", "board": "........."}, ("bad_board", "board")),
        ({"variant": "notakto2", "board": "O......../........."}, ("bad_board", "board")),
        ({"variant": "4x4k4", "board": "." * 16, "path": "16,0"}, ("bad_board", "path")),
        ({"variant": "4x4k4", "board": "." * 16, "scoring": "share", "depth": 2}, None),
    ],
)
def test_a_bad_variant_or_position_is_refused_with_its_field_and_changes_nothing(
    play: Actions, payload: dict[str, Any], expected: tuple[str, str] | None
) -> None:
    play.new_match()
    while play.state["turn"] != "human":
        play.play_out()
        play.emit("next_game")
    for event in ("lab_children", "lab_page", "lab_counts"):
        if "path" in payload and event != "lab_children":
            continue  # a path names a node of the tree only
        code, field = refusal(play.emit(event, payload))
        if expected is None:  # the share of the leaves at a depth limit: classic only
            assert (code, field) == ("bad_setting", "scoring")
        else:
            assert (code, field) == expected, event
    # The refused asks showed no values: the coming move is not marked as hinted.
    assert play.emit("move", {"cell": play.state["board"].index(".")}) == {"ok": True}
    final = play.play_out()
    humans = [move for move in final["record"]["moves"] if move["by"] == "human"]
    assert humans[0]["hinted"] is False
