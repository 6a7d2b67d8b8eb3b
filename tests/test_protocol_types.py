"""Every field of every event has one type: anything else is ``bad_payload`` and changes
nothing. The walk covers each event of protocol/vocabulary.py (the match's and the rooms'), each of
its fields, with the values a careless or hostile client sends instead."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, live_server, player_of, stop_live_servers

from webapp.server.app import create_app
from webapp.server.protocol.vocabulary import FIELDS, Event, Kind

NAN = math.nan
# The values of the wrong type for each kind; "" is a string, so strings do without it.
WRONG: dict[Kind, list[object]] = {
    Kind.INTEGER: [False, True, "", [], {}, "4", NAN, 4.5, None],
    Kind.STRING: [False, True, [], {}, 4, NAN, None],
    Kind.BOOLEAN: ["", [], {}, "true", 0, 1, NAN, None],
    Kind.RULES: [False, "", [], "{}", 4, NAN, None]
    + [{"max_hp": number} for number in (None, "100", False, NAN, 100.5, [], {})],
    Kind.NUMBER: [False, True, "", [], {}, "0.5", NAN, math.inf, None],
}
# What each event needs besides the field under test, so that only that field is wrong.
BASE: dict[Event, dict[str, Any]] = {
    Event.MOVE: {"cell": 8},
    Event.ROOM_MOVE: {"room": "local", "cell": 8},
    Event.HISTORY_GAME: {"id": "none"},
    **{event: {"board": "X...O...."} for event in Event if event.startswith("lab_")},
    **{event: {"room": "local"} for event in Event if event.startswith("room_")},
}
CASES = [
    (event, field, value)
    for event, fields in FIELDS.items()
    for field, spec in fields.items()
    for value in WRONG[spec.kind]
    if not (value is None and spec.null_is_absent)
]


def everything(app: Flask, player: str) -> tuple[object, ...]:
    """All that is stored about the player: match, history, lifetime figures, local room."""
    history = app.extensions["history"]
    rooms = app.extensions["rooms"].store
    match = app.extensions["tictactoe"].store.load(player)
    return match, history.games(player), history.counters(player), rooms.load("local." + player)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """One app and production server for the whole walk: each case is a new player."""
    data_dir = tmp_path_factory.mktemp("types")
    settings = {"DATA_DIR": str(data_dir), "AI_DELAY_MS": 0, "SEED": 7, "RATE_BURST": 10_000}
    unlimited = {"RATE_PER_ADDRESS": 0, "NEW_PLAYERS_PER_MINUTE": 0, "NEW_ROOMS_PER_HOUR": 0}
    shared = create_app({"TESTING": True, **settings, **unlimited})
    live_server(shared)
    yield shared
    stop_live_servers()


@pytest.fixture
def busy(app: Flask, client: FlaskClient, play: Actions) -> Actions:
    """A player with something to lose: a finished game, a game under way, a local room."""
    assert play.emit("new_match", {"mode": "easy", "first": "human"})["ok"]
    play.play_out()
    assert play.emit("next_game")["ok"]
    if play.state["turn"] == "human":
        play.play([play.state["board"].index(".")])
    assert play.emit("room_join", {"room": "local"})["ok"]
    assert play.emit("room_move", {"room": "local", "cell": 4})["ok"]
    play.sock.get_received()
    return play


PROTOCOL_MD = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()
WORDS = {
    Kind.INTEGER: "integer",
    Kind.STRING: "string",
    Kind.BOOLEAN: "`true` or `false`",
    Kind.NUMBER: "number",
}


def test_every_event_has_its_fields_types_and_the_docs_say_them() -> None:
    assert set(FIELDS) == set(Event)
    assert {event for event, _, _ in CASES} == {event for event in Event if FIELDS[event]}
    section = PROTOCOL_MD.split("### Field types", 1)[1].split("\n#", 1)[0]
    rows = {
        name: row for row in section.splitlines() for name in re.findall(r"`([a-z_]+)`", row[:140])
    }
    for event, fields in FIELDS.items():
        row = rows[event].split("|")[2]
        for field, spec in fields.items():
            kind = (
                "object of rule names and integers" if spec.kind is Kind.RULES else WORDS[spec.kind]
            )
            said = re.search(rf"`{field}`[^;]*?: {re.escape(kind)}", row)
            assert said, (event, field)
            assert ("`null` for absent" in row[said.end() :].split(";")[0]) == spec.null_is_absent


@pytest.mark.parametrize(("event", "field", "value"), CASES, ids=repr)
def test_a_field_of_another_type_is_a_bad_payload_and_changes_nothing(
    app: Flask, client: FlaskClient, busy: Actions, event: Event, field: str, value: object
) -> None:
    me = player_of(client)
    before = everything(app, me)
    ack = busy.sock.emit(event, {**BASE.get(event, {}), field: value}, callback=True)
    assert ack["ok"] is False and ack["error"]["code"] == "bad_payload", ack
    assert busy.sock.get_received() == []  # nothing pushed to anyone
    assert everything(app, me) == before


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        (Event.MOVE, {"cell": 8, "version": None}),
        (Event.NEXT_GAME, {"client_seed": None}),
        (Event.ROOM_MOVE, {"room": "local", "cell": 8, "version": None}),
    ],
)
def test_null_means_absent_only_where_the_protocol_says(
    busy: Actions, event: Event, payload: dict[str, Any]
) -> None:
    ack = busy.sock.emit(event, payload, callback=True)
    assert ack.get("error", {}).get("code") != "bad_payload", ack


@pytest.mark.parametrize(
    "fields", [{"rules": False}, {"rules": ""}, {"rules": []}, {"rules": {"max_hp": None}}]
)
def test_new_match_takes_no_stand_in_for_the_default_rules(
    app: Flask, client: FlaskClient, busy: Actions, fields: dict[str, Any]
) -> None:
    before = everything(app, player_of(client))
    assert busy.emit("new_match", fields)["error"]["code"] == "bad_payload"
    assert everything(app, player_of(client)) == before
