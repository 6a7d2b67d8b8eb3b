"""The order of commit-reveal, through the protocol: every game's server seed is committed
to before anything of that game is chosen, no seed is ever served twice, and a game
whose client seed the server knew in advance says so (docs/fairness.md)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of

from webapp.game.verification import verify
from webapp.server.app import create_app

# Each test opens sockets on a production server, shared by the module's tests.
pytestmark = [pytest.mark.server, pytest.mark.shared_server]

ORIGIN = {"Origin": "http://localhost"}


def seed_of(record: dict[str, Any]) -> str:
    """The revealed server seed of a finished game's record, checked against its commitment."""
    seed = record["dice"]["server_seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == record["dice"]["commitment"]
    return str(seed)


def finish(play: Actions) -> dict[str, Any]:
    """Play the current game to its end; its state."""
    state = play.play_out()
    assert state["status"] != "playing"
    return state


def commitments(state: dict[str, Any]) -> set[str]:
    """Both commitments a state shows: its game's and the next game's."""
    return {state["record"]["dice"]["commitment"], state["next_commitment"]}


def test_the_next_games_seed_is_shown_before_its_client_seed(play: Actions) -> None:
    first = play.state
    assert first["record"]["dice"]["player_seeded"] is False  # started before any seed came
    promised = first["next_commitment"]
    assert promised not in {None, first["record"]["dice"]["commitment"]}
    assert verify(finish(play)["record"])
    assert play.state["next_commitment"] == promised  # unchanged while the game is played
    assert play.emit("next_game", {"client_seed": "fresh-1"}) == {"ok": True}
    dice = play.state["record"]["dice"]
    assert (dice["commitment"], dice["client_seed"], dice["player_seeded"]) == (
        promised,
        "fresh-1",
        True,
    )
    assert play.state["next_commitment"] not in {promised, first["next_commitment"], None}
    assert verify(finish(play)["record"])


def test_a_new_match_plays_on_the_seed_committed_before_it(play: Actions) -> None:
    promised = play.state["next_commitment"]
    assert play.new_match(mode="hard", first="ai", client_seed="fresh-2") == {"ok": True}
    record = play.state["record"]
    assert record["dice"]["commitment"] == promised  # no seed drawn again to suit the choice
    assert (record["first"], record["first_by"], record["dice"]["player_seeded"]) == (
        "ai",
        "choice",
        True,
    )
    assert play.state["history"][0]["by"] == "ai"
    verified = verify(finish(play)["record"])
    assert verified.ai_moves >= 1


def test_a_game_without_a_fresh_client_seed_is_not_player_seeded(play: Actions) -> None:
    assert play.new_match(mode="easy", client_seed="same") == {"ok": True}
    assert play.state["record"]["dice"]["player_seeded"] is True
    finish(play)
    assert play.emit("next_game", {}) == {"ok": True}  # keeps "same", known to the server
    assert play.state["record"]["dice"]["client_seed"] == "same"
    assert play.state["record"]["dice"]["player_seeded"] is False
    finish(play)
    assert play.emit("next_game", {"client_seed": "same"}) == {"ok": True}
    assert play.state["record"]["dice"]["player_seeded"] is False


def test_choosing_who_starts_draws_no_seed_again(app: Flask, client: FlaskClient) -> None:
    # Each choice is met on the seed committed before it, however often it is made.
    play = Actions(connect(app, client))
    for index in range(12):
        promised = play.state["next_commitment"]
        first = ("human", "ai")[index % 2]
        assert play.new_match(mode="medium", first=first, client_seed=f"c{index}") == {"ok": True}
        assert play.state["record"]["dice"]["commitment"] == promised
        assert play.state["first"] == first


def test_forget_then_the_old_cookie_never_shows_a_seed_again(
    app: Flask, client: FlaskClient
) -> None:
    play = Actions(connect(app, client))
    cookie = player_of(client)
    shown = commitments(play.state)
    revealed = {seed_of(finish(play)["record"])}
    assert client.post("/history/forget", headers=ORIGIN).status_code == 204
    with client.session_transaction() as session:  # the cookie the player kept
        session["player"] = cookie
    kept = connect(app, client)
    assert kept.refusal is not None and kept.refusal["data"]["code"] == "player_deleted"
    assert client.get("/").status_code == 200  # the page: a new player in its place
    assert player_of(client) != cookie
    again = Actions(connect(app, client))
    assert not commitments(again.state) & shown
    assert not {seed_of(finish(again)["record"])} & revealed


@pytest.mark.parametrize("players", [2])
def test_every_fresh_match_draws_its_own_seeds(tmp_path: Path, players: int) -> None:
    # Two servers with the same secret key show one player id, deleted on the first,
    # different seeds: none is derived from the player's id.
    config = {"AI_DELAY_MS": 0, "TESTING": True, "SECRET_KEY": "one key for both"}
    seen: list[set[str]] = []
    for index in range(players):
        app = create_app({**config, "DATA_DIR": str(tmp_path / str(index))})
        client = app.test_client()
        client.get("/")
        with client.session_transaction() as session:
            session["player"] = "the-same-player"
        play = Actions(connect(app, client))
        seen.append(commitments(play.state))
        assert client.post("/history/forget", headers=ORIGIN).status_code == 204
        app.extensions["tictactoe"].store.close()
    assert not seen[0] & seen[1]
