"""The match against the AI on every variant through the protocol (docs/protocol.md):
``new_match`` with a ``variant``, the snapshot naming it, hints from the variant's solver."""

from __future__ import annotations

from typing import Any

import pytest
from support.live import Actions

from webapp.game.odds import skill_player
from webapp.game.position import Position
from webapp.game.solver import Solver
from webapp.game.tune import tune
from webapp.game.variant import variant_named

pytestmark = pytest.mark.shared_server  # one live server, each test a new player


def human_to_move(play: Actions, **settings: object) -> dict[str, Any]:
    """A new match with ``settings`` in a fixed mode, the human to move in its first game."""
    ack = play.new_match(mode="impossible", first="human", **settings)
    assert ack == {"ok": True}, ack
    assert play.state["turn"] == "human"
    return play.state


def test_a_new_match_is_played_on_the_variant_it_names(play: Actions) -> None:
    state = human_to_move(play, variant="4x4k4")
    assert (state["variant"], state["board"], state["dead"]) == ("4x4k4", "." * 16, [])
    assert state["rules"]["variant"] == "4x4k4"
    after = play.play([15])  # d4: a cell the classic board does not have
    assert after["board"][15] == after["human"] and after["board"].count(after["ai"]) == 1
    played = after["history"][1]["cell"]
    best = Solver(variant_named("4x4k4")).analyse(
        Position.parse(variant_named("4x4k4"), "." * 15 + "X")
    )
    assert played in best.best  # the perfect AI's reply, from the variant's solver
    play.play_out()
    assert play.emit("next_game") == {"ok": True}
    assert (play.state["variant"], play.state["board"]) == ("4x4k4", "." * 16)  # kept


def test_without_a_variant_a_match_is_classic(play: Actions) -> None:
    human_to_move(play, variant="4x4k3")
    state = human_to_move(play)
    assert (state["variant"], state["board"], state["dead"]) == ("classic", "." * 9, [])
    assert "variant" not in state["rules"]  # classic rules read and write as before variants


def test_a_hint_on_4x4_gives_each_cell_its_perfect_value(play: Actions) -> None:
    human_to_move(play, variant="4x4k3")
    ack = play.emit("hint")
    assert ack["ok"] and sorted(map(int, ack["analysis"])) == list(range(16))
    expected = Solver(variant_named("4x4k3")).analyse(Position.empty(variant_named("4x4k3")))
    assert ack["analysis"] == {str(cell): v.to_dict() for cell, v in expected.moves.items()}
    assert {value["result"] for value in ack["analysis"].values()} >= {"win"}


def test_notakto_marks_its_dead_boards_in_the_snapshot(play: Actions) -> None:
    state = human_to_move(play, variant="notakto2")
    assert (state["board"], state["human"], state["dead"]) == ("." * 18, "X", [])
    # The player's own three on board 1 would kill it; the AI avoids a dead board's cells.
    for _ in range(9):
        if play.state["dead"] or play.state["turn"] != "human":
            break
        free = [cell for cell in (0, 1, 2, 3, 4, 5, 6, 7, 8) if play.state["board"][cell] == "."]
        play.play([free[0]])
    assert play.state["dead"] == [0], play.state
    refused = play.emit("move", {"cell": play.state["board"].index(".", 0, 9)})
    assert refused["error"]["code"] == "dead_board"


@pytest.mark.parametrize(("variant", "cells"), [("4x4k3", 16), ("notakto3", 27)])
def test_a_target_tunes_the_rules_of_the_variant_named(
    play: Actions, variant: str, cells: int
) -> None:
    answer = play.new_match(variant=variant, target=0.6)
    tuned = answer["tuned"]
    expected = tune(0.6, skill_player(0.5), variant=variant_named(variant))  # no games yet
    assert tuned["odds"] == expected.to_dict()["odds"] and tuned["player"] == "skill:0.5"
    # Within what the rules' whole numbers reach (0.634 on notakto3, asked 0.6).
    assert expected.rules.variant.name == variant and abs(tuned["chance"] - 0.6) <= 0.04
    assert tuned["odds"]["exact"] is True
    assert (play.state["variant"], play.state["rules"]) == (variant, tuned["odds"]["rules"])
    assert play.state["board"] == "." * cells


@pytest.mark.parametrize(
    ("settings", "code", "field"),
    [
        ({"variant": "5x5"}, "bad_payload", "variant"),
        ({"variant": 4}, "bad_payload", None),
        ({"variant": "notakto3", "target": 1.5}, "bad_setting", "target"),
    ],
)
def test_a_variant_refused_changes_nothing(
    play: Actions, settings: dict[str, object], code: str, field: str | None
) -> None:
    before = human_to_move(play, variant="misere")
    ack = play.new_match(**settings)
    assert ack["error"]["code"] == code and ack["error"].get("field") == field, ack
    assert play.emit("new_match", {**settings, "check": True})["error"]["code"] == code
    assert play.refresh() == before
