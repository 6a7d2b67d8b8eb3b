"""Smaller defences: headers everywhere, no open redirect, key rotation, stale moves."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of, states

from webapp.server.app import create_app
from webapp.server.wire.security import SECURITY_HEADERS

pytestmark = pytest.mark.shared_server  # one live server, each test a new player


def test_security_headers_are_on_socketio_and_error_responses(client: FlaskClient) -> None:
    for path in ("/socket.io/?EIO=4&transport=polling", "/no-such-page", "/healthz"):
        reply = client.get(path)
        for name, value in SECURITY_HEADERS:
            assert reply.headers.get(name) == value, (path, name)


def test_a_doubled_slash_is_not_redirected_to_the_clients_host(client: FlaskClient) -> None:
    reply = client.get("/static//css/base.css", headers={"Host": "evil.example"})
    assert reply.status_code == 404 and "Location" not in reply.headers


@pytest.mark.server
def test_cookies_signed_with_a_fallback_key_keep_their_player(tmp_path: Path) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "TESTING": True}
    old = create_app({**settings, "SECRET_KEY": "old-key-" + "x" * 32})
    browser = old.test_client()
    browser.get("/")
    before = player_of(browser)
    Actions(connect(old, browser))  # the match is stored under the player
    new = create_app(
        {**settings, "SECRET_KEY": "new-key-" + "y" * 32, "SECRET_KEY_FALLBACKS": old.secret_key}
    )
    returning = new.test_client()
    returning.set_cookie("session", browser.get_cookie("session").value)  # type: ignore[union-attr]
    assert returning.get("/").status_code == 200
    assert player_of(returning) == before
    without = create_app({**settings, "SECRET_KEY": "new-key-" + "y" * 32})
    stranger = without.test_client()
    stranger.set_cookie("session", browser.get_cookie("session").value)  # type: ignore[union-attr]
    stranger.get("/")
    assert player_of(stranger) != before


@pytest.mark.server
def test_a_move_made_on_a_stale_state_is_refused(app: Flask, client: FlaskClient) -> None:
    first, second = Actions(connect(app, client)), Actions(connect(app, client))
    seen = second.state["version"]
    empty = [i for i, mark in enumerate(first.state["board"]) if mark == "."]
    assert first.emit("move", {"cell": empty[0], "version": seen}) == {"ok": True}
    states(second.sock)
    ack = second.emit("move", {"cell": empty[1], "version": seen})
    assert ack["ok"] is False and ack["error"]["code"] == "stale_version"


def test_a_move_without_a_version_still_works(play: Actions) -> None:
    cell = play.state["board"].index(".")
    assert play.emit("move", {"cell": cell}) == {"ok": True}


def test_a_version_that_is_not_an_integer_is_a_bad_payload(play: Actions) -> None:
    before = play.state
    for version in ("7", 7.5, True):
        ack = play.emit("move", {"cell": 0, "version": version})
        assert ack["error"]["code"] == "bad_payload", version
    assert states(play.sock) == [] and play.state == before
