"""Through the protocol: the skill estimate and the calibration in ``history``, and a match
tuned to a target (``new_match`` with ``target``), previewed with ``check``."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of
from support.skill_play import played_games

from webapp.game.calibration import calibration_of
from webapp.game.odds import match_odds, skill_player
from webapp.game.own_chance import own_chance
from webapp.game.rules import Rules
from webapp.game.skill import MIN_MOVES, skill_from
from webapp.game.strategies import skill_strategy
from webapp.game.tune import tune
from webapp.server.app import create_app

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

# Every test here plays from one address on the module's shared server: the address's
# budgets of paid work are not what these tests hold (tests/test_attacks_paid.py does).
APP_SETTINGS = {"LAB_MS_PER_ADDRESS": 1_000_000, "ODDS_MS_PER_ADDRESS": 1_000_000}


def stored_games(app: Flask, client: FlaskClient, skill: int, games: int, seed: int) -> None:
    """Store ``games`` finished games of a skill player in this client's history."""
    history = app.extensions["tictactoe"].history
    me = player_of(client)
    for n, entry in enumerate(played_games(skill_strategy(skill), games, random.Random(seed))):
        assert history.add(me, f"g{seed}:{n}", {**entry, "id": f"{seed}-{n}"})


def test_history_answers_the_default_skill_and_no_calibration_before_any_game(
    play: Actions,
) -> None:
    answer = play.emit("history")
    assert answer["skill"] == {
        "skill": 0.5,
        "low": 0.0,
        "high": 1.0,
        "moves": 0,
        "hinted_left_out": 0,
        "measured": False,
        "min_moves": MIN_MOVES,
    }
    assert answer["calibration"] == {"matches": 0, "won": 0, "expected_wins": 0, "buckets": []}


def test_history_answers_the_skill_from_the_players_games(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    stored_games(app, client, 90, 40, seed=1)
    entries = app.extensions["tictactoe"].history.games(player_of(client))
    answer = play.emit("history")
    assert answer["skill"] == skill_from(entries).to_dict()
    assert answer["skill"]["measured"] and answer["skill"]["moves"] >= MIN_MOVES
    assert answer["skill"]["low"] <= 0.9 <= answer["skill"]["high"]


def test_a_target_is_previewed_with_check_and_nothing_changes(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    stored_games(app, client, 90, 40, seed=2)
    before = play.refresh()
    answer = play.emit("new_match", {"target": 0.6, "check": True})
    assert answer["ok"] and play.refresh() == before  # no new match, no new snapshot
    tuned = answer["tuned"]
    entries = app.extensions["tictactoe"].history.games(player_of(client))
    skill = skill_from(entries).to_dict()
    expected = tune(0.6, skill_player(skill["skill"]))
    assert tuned == {**expected.to_dict(), "skill": skill}
    assert tuned["player"] == f"skill:{skill['skill']:.2f}"
    assert abs(tuned["chance"] - 0.6) <= 0.02 and tuned["reachable"]
    assert tuned["odds"]["rules"]["ai_win_human_damage"] == tuned["changed"]["ai_win_human_damage"]


def test_a_targeted_match_starts_under_the_tuned_rules_and_keeps_its_promise(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    before = play.refresh()["version"]
    answer = play.emit("new_match", {"target": 0.7, "client_seed": "abc"})
    assert answer["ok"]
    tuned = answer["tuned"]
    assert tuned["skill"]["measured"] is False and tuned["skill"]["skill"] == 0.5  # no games
    state = play.refresh()
    assert state["version"] > before and state["mode"] == "adaptive"
    assert state["rules"] == tuned["odds"]["rules"]
    service = app.extensions["tictactoe"]
    stored = service.store.load(player_of(client))
    assert stored.promise is not None
    assert stored.promise.to_dict() == {
        "target": 0.7,
        "chance": tuned["chance"],
        "reachable": True,
        "skill": {"skill": 0.5, "low": 0.0, "high": 1.0, "moves": 0, "measured": False},
    }
    assert state["record"]["promise"] == stored.promise.to_dict()
    # Played to its end, the match is in History's calibration, once.
    while not play.refresh()["match"]["over"]:
        play.play_out()
        if not play.state["match"]["over"]:
            assert play.emit("next_game")["ok"]
    history = play.emit("history")
    assert all(game["promise"] == stored.promise.to_dict() for game in history["games"])
    won = play.state["match"]["winner"] == "human"
    assert history["calibration"]["matches"] == 1 and history["calibration"]["won"] == won
    (bucket,) = history["calibration"]["buckets"]
    assert bucket["promised"] == pytest.approx(tuned["chance"], abs=1e-4)
    entries = service.history.games(player_of(client))
    assert history["calibration"] == calibration_of(entries).to_dict()


def test_a_plain_new_match_promises_nothing(app: Flask, client: FlaskClient, play: Actions) -> None:
    assert play.emit("new_match", {"preset": "gentle"}) == {"ok": True}
    assert app.extensions["tictactoe"].store.load(player_of(client)).promise is None
    assert play.refresh()["record"]["promise"] is None


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"target": 1.5}, "bad_setting"),
        ({"target": -0.1}, "bad_setting"),
        ({"target": "0.6"}, "bad_payload"),
        ({"target": True}, "bad_payload"),
        ({"target": 0.6, "preset": "brutal"}, "bad_setting"),
        ({"target": 0.6, "rules": {"draw_human_damage": 5}}, "bad_setting"),
        ({"target": 0.6, "human_hp": 50}, "bad_setting"),
        ({"target": 0.6, "mode": "hard"}, "bad_setting"),
        ({"target": 0.6, "check": "yes"}, "bad_payload"),
    ],
)
def test_a_bad_target_is_refused_and_changes_nothing(
    play: Actions, payload: dict[str, Any], code: str
) -> None:
    before = play.refresh()
    answer = play.emit("new_match", payload)
    assert answer["ok"] is False and answer["error"]["code"] == code, answer
    if code == "bad_setting":
        assert answer["error"]["field"] == "target"
    assert play.refresh() == before


@pytest.mark.server
def test_targets_are_tuned_on_the_connections_odds_budget(tmp_path: Any) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "SEED": 7, "RATE_BURST": 10_000}
    # The address's budget, shared by both connections here, refills at once: this test is
    # the connection's (test_attacks_paid.py holds the address's).
    odds = {"ODDS_MS_PER_SECOND": 1, "ODDS_BURST_MS": 1, "ODDS_MS_PER_ADDRESS": 1_000_000}
    app = create_app({"TESTING": True, **settings, **odds})
    web = app.test_client()
    web.get("/")
    play = Actions(connect(app, web))
    # The server process is new, so its first tune does its work.
    first = play.emit("new_match", {"target": 0.41, "check": True})
    assert first["ok"]
    before = play.refresh()
    refused = play.emit("new_match", {"target": 0.42})
    assert refused["error"]["code"] == "rate_limited", refused
    assert play.emit("odds", {"preset": "fair"})["error"]["code"] == "rate_limited"
    assert play.refresh() == before
    # Another connection has a budget of its own.
    other = app.test_client()
    other.get("/")
    assert Actions(connect(app, other)).emit("new_match", {"target": 0.41, "check": True})["ok"]


def test_current_odds_lead_with_the_players_own_chance_at_their_skill(
    app: Flask, client: FlaskClient, play: Actions
) -> None:
    stored_games(app, client, 70, 40, seed=4)
    assert play.new_match(rules={"start_human_hp": 60, "start_ai_hp": 30}) == {"ok": True}
    answer = play.emit("odds", {"current": True})
    entries = app.extensions["tictactoe"].history.games(player_of(client))
    estimate = skill_from(entries)
    assert estimate.measured
    rules = Rules(start_human_hp=60, start_ai_hp=30)
    expected = own_chance(rules, estimate, human_hp=60, ai_hp=30)
    assert answer["you"] == expected.to_dict()
    you = answer["you"]
    assert you["odds"]["player"] == f"skill:{you['skill']['skill']:g}"
    assert you["low"] <= you["chance"] <= you["high"] and you["more_moves"] == 0
    # The scripted players stay beside it, for reference.
    assert (
        answer["odds"]["perfect"] == match_odds(rules, "perfect", human_hp=60, ai_hp=30).to_dict()
    )


def test_current_odds_say_how_many_more_moves_the_players_skill_needs(play: Actions) -> None:
    assert play.new_match() == {"ok": True}
    you = play.emit("odds", {"current": True})["you"]
    assert you["chance"] is None and you["low"] is None and you["odds"] is None
    assert you["more_moves"] == MIN_MOVES and you["skill"]["moves"] == 0
    assert you["skill"]["measured"] is False
