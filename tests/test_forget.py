""" "Delete everything" is gone everywhere: no process serves anything of the player again,
not their match, practice, history or a copy it held, nor a seed it had shown."""

from __future__ import annotations

import json
import re
import secrets
import urllib.request
from collections.abc import Callable
from html import unescape
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.testing import (
    Player,
    Refused,
    ServerProcess,
    delete_everything,
    session_cookie,
)

from webapp.server.services.matches import practice_key
from webapp.server.services.page_player import page_player, page_token

ORIGIN = {"Origin": "http://localhost"}


def finish_a_game(player: Player) -> dict[str, Any]:
    """Play the first empty cell until the game ends; its last state."""
    state = player.human_turn()
    while state["turn"] == "human":
        version = state["version"]
        assert player.move(state["board"].index(".")) == {"ok": True}
        state = player.wait_for(lambda s, v=version: s["version"] > v and s["turn"] != "ai")
    return state


def shown(state: dict[str, Any]) -> set[str]:
    """Every commitment and seed a state shows."""
    dice = state["record"]["dice"]
    return {dice["commitment"], state["next_commitment"], dice["server_seed"]} - {None}


def games_json(url: str, cookie: str) -> list[Any]:
    """The player's games as the download offers them."""
    request = urllib.request.Request(url + "/history/games.json", headers={"Cookie": cookie})
    with urllib.request.urlopen(request) as reply:
        return list(json.loads(reply.read())["games"])


def check_forgotten_everywhere(first: ServerProcess, second: ServerProcess) -> None:
    """Play a game on ``first``, delete on ``second``, then look for it on both."""
    cookie = session_cookie(first.url)
    player = Player(first.url, cookie)
    seen = shown(player.wait_for(lambda s: s["turn"] == "human"))
    ended = finish_a_game(player)
    seen |= shown(ended)
    assert ended["record"]["dice"]["server_seed"] in seen
    assert len(player.call("history")["games"]) == 1
    player.close()

    assert delete_everything(second.url, cookie) == 204
    fresh = session_cookie(first.url, cookie)  # a page loaded with the kept cookie: a new player
    assert fresh != cookie
    after: list[set[str]] = []
    for server in (first, second):  # the cookie the player kept, on every process
        assert games_json(server.url, cookie) == []
        with pytest.raises(Refused) as refused:
            Player(server.url, cookie)
        assert refused.value.data["code"] == "player_deleted"
        again = Player(server.url, fresh)
        state = again.wait_for(lambda s: s["turn"] == "human")
        assert not shown(state) & seen, "a seed or commitment of the deleted player was shown"
        assert state["match"]["games"] == 0
        history = again.call("history")
        assert history["games"] == [] and history["totals"]["by_mode"] == {}
        assert history["totals"]["longest_unbeaten"] == 0
        after.append(shown(state))
        again.close()
    assert after[0] == after[1]  # one new match, the same on every process


def test_forget_on_one_process_reaches_the_other_on_redis(
    server_factory: Callable[..., ServerProcess], redis_url: str
) -> None:
    shared = {
        "TICTACTOE_REDIS_URL": redis_url,
        "TICTACTOE_SECRET_KEY": secrets.token_hex(16),
        "TICTACTOE_SIGNING_KEY": secrets.token_hex(32),  # hosts on one Redis must agree
    }
    first, second = server_factory(**shared), server_factory(**shared)
    check_forgotten_everywhere(first, second)


def test_forget_on_sqlite_shows_nothing_again(server: ServerProcess) -> None:
    check_forgotten_everywhere(server, server)


def test_forget_removes_the_practice_game(app: Flask, client: FlaskClient) -> None:
    client.get("/")
    with client.session_transaction() as session:
        player = str(session["player"])
    service = app.extensions["tictactoe"]
    service.open(practice_key(player))
    assert service.store.load(practice_key(player)) is not None
    assert client.post("/history/forget", headers=ORIGIN).status_code == 204
    assert service.store.load(practice_key(player)) is None
    assert service.store.load(player) is None


def test_the_page_after_the_deletion_says_once_what_was_deleted(
    app: Flask, client: FlaskClient
) -> None:
    with client.session_transaction() as session:
        player = str(session["player"])
    service = app.extensions["tictactoe"]
    service.open(player)
    service.open(practice_key(player))
    assert client.post("/history/forget", headers=ORIGIN).status_code == 204

    def said(html: str) -> Any:
        found = re.search(r'data-deleted="([^"]*)"', html)
        return found and json.loads(unescape(found.group(1)))

    erased = {"games": 0, "match": 1, "practice": 1, "local": 0, "seats": 0, "cards": 0}
    assert said(client.get("/").get_data(as_text=True)) == erased
    assert said(client.get("/").get_data(as_text=True)) is None  # once: not on a reload


def test_a_page_names_its_player_under_every_key_still_accepted() -> None:
    old, rotated = {"SECRET_KEY": "old"}, {"SECRET_KEY": "new", "SECRET_KEY_FALLBACKS": ["old"]}
    token = page_token(old, "p1")
    assert page_player(old, token) == page_player(rotated, token) == "p1"
    assert page_player({"SECRET_KEY": "new"}, token) is None  # a key no longer accepted
    assert page_player(old, "p2" + token[2:]) is None  # another player's name on it
    assert page_player(old, token + "0" * 200) is None
    assert page_token(old, None) == "" and page_player(old, "") is None
