"""The protocol of the HP rules, the odds, the lock and the dice (docs/protocol.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect, player_of
from support.testing import HARD_RULES, TOO_MANY_STATES

from webapp.game.fairness import commitment
from webapp.game.odds import match_odds
from webapp.game.rules import PRESETS, Rules
from webapp.game.verification import verify
from webapp.server.app import create_app

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

# Every test here plays from one address on the module's shared server: the address's
# budgets of paid work are not what these tests hold (tests/test_attacks_paid.py does).
APP_SETTINGS = {"LAB_MS_PER_ADDRESS": 1_000_000, "ODDS_MS_PER_ADDRESS": 1_000_000}

RULES = {field.name for field in dataclasses.fields(Rules)} - {"lookahead_depth"}


def visitor(app: Flask) -> FlaskClient:
    """A new player who has loaded the page."""
    client = app.test_client()
    assert client.get("/").status_code == 200
    return client


def refused(ack: dict[str, Any], code: str = "bad_setting") -> dict[str, Any]:
    assert ack["ok"] is False, ack
    assert ack["error"]["code"] == code, ack
    return dict(ack["error"])


# --- the rules of a new match --------------------------------------------------------


def test_state_shows_the_rules_and_their_preset(play: Actions) -> None:
    state = play.state
    assert state["preset"] == "classic"
    assert state["rules"] == Rules().to_dict()
    assert state["match"]["locked"] is None


@pytest.mark.parametrize("preset", list(PRESETS))
def test_new_match_from_a_preset(play: Actions, preset: str) -> None:
    assert play.new_match(preset=preset) == {"ok": True}
    assert play.state["preset"] == preset
    assert play.state["rules"] == PRESETS[preset].to_dict()


def test_new_match_with_numbers_changed_is_custom(play: Actions) -> None:
    numbers = {"max_hp": 200, "start_human_hp": 150, "start_ai_hp": 120, "draw_ai_damage": 5}
    assert play.new_match(preset="brutal", rules=numbers) == {"ok": True}
    state = play.state
    assert state["preset"] == "custom"
    assert state["rules"] == {**PRESETS["brutal"].to_dict(), **numbers}
    assert (state["match"]["human_hp"], state["match"]["ai_hp"]) == (150, 120)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"rules": {"start_human_hp": 0}}, "start_human_hp", "your starting HP must be"),
        ({"rules": {"max_hp": 1001}}, "max_hp", "from 1 to 1000, got 1001"),
        ({"rules": {"start_ai_hp": 150}}, "start_ai_hp", "from 1 to 100, got 150"),
        ({"human_hp": 101}, "start_human_hp", "from 1 to 100"),
    ],
)
def test_a_rule_out_of_range_is_refused_naming_it(
    play: Actions,
    app: Flask,
    client: FlaskClient,
    fields: dict[str, Any],
    field: str,
    message: str,
) -> None:
    before = play.state
    found = refused(play.new_match(**fields))
    assert found["field"] == field
    assert message in found["message"]
    assert play.refresh() == before  # nothing changed, and the stored match is the one shown
    stored = app.extensions["tictactoe"].store.load(player_of(client))
    assert stored is not None and stored.version == before["version"]


@pytest.mark.parametrize("number", ["34", 34.5, None, True, [34]])
def test_a_rule_that_is_not_an_integer_is_a_bad_payload_naming_it(
    play: Actions, number: object
) -> None:
    before = play.state
    found = refused(play.new_match(rules={"ai_win_human_damage": number}), "bad_payload")
    assert found["field"] == "ai_win_human_damage"
    assert "HP you lose when the AI wins must be an integer" in found["message"]
    assert play.refresh() == before


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"preset": "easy"}, "preset must be one of classic, gentle, fair, brutal"),
        ({"rules": {"speed": 3}}, "unknown rule 'speed'"),
        ({"rules": {"draw_human_damage": 0, "draw_ai_damage": 0}}, "a draw must cost"),
        ({"rules": {"human_win_ai_damage": 1, "draw_ai_damage": 0}}, "could last"),
        ({"client_seed": "no spaces"}, "client seed must be 1 to 96"),
    ],
)
def test_impossible_settings_are_refused(play: Actions, fields: dict[str, Any], words: str) -> None:
    before = play.state
    assert words in refused(play.new_match(**fields))["message"]
    assert play.refresh() == before


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"rules": {"start_human_hp": 0}}, "bad_setting", "start_human_hp"),
        ({"rules": {"start_human_hp": ""}}, "bad_payload", "start_human_hp"),
        ({"client_seed": "no spaces"}, "bad_setting", "client_seed"),
        ({"mode": "easy", "first": "nobody"}, "bad_setting", "first"),
        ({"mode": "adaptive", "first": "ai"}, "bad_setting", "first"),
    ],
)
def test_a_checked_new_match_is_refused_as_the_match_would_be(
    play: Actions, fields: dict[str, Any], code: str, field: str
) -> None:
    before = play.state
    assert refused(play.new_match(**fields, check=True), code)["field"] == field
    assert play.refresh() == before


def test_a_checked_new_match_changes_nothing(
    play: Actions, app: Flask, client: FlaskClient
) -> None:
    play.play([play.state["board"].index(".")])
    before = play.refresh()
    fields = {"mode": "easy", "first": "human", "client_seed": "mine"}
    assert play.new_match(**fields, check=True) == {"ok": True}
    assert play.new_match(preset="brutal", rules={"start_ai_hp": 40}, check=True) == {"ok": True}
    assert play.refresh() == before
    stored = app.extensions["tictactoe"].store.load(player_of(client))
    assert stored is not None and stored.version == before["version"]
    assert play.new_match(**fields, check=False) == {"ok": True}
    assert play.state["mode"] == "easy" and play.state["version"] > before["version"]


@pytest.mark.parametrize("fields", [{"rules": [1, 2]}, {"preset": 3}, {"rules": "classic"}])
def test_malformed_rules_are_bad_payloads(play: Actions, fields: dict[str, Any]) -> None:
    refused(play.new_match(**fields), "bad_payload")


# --- odds ----------------------------------------------------------------------------


def test_odds_of_the_classic_rules(play: Actions) -> None:
    ack = play.emit("odds", {"preset": "classic"})
    assert ack["ok"] is True
    odds = ack["odds"]
    assert set(odds) == {"random", "heuristic", "perfect"}
    assert odds["perfect"] == match_odds(Rules(), "perfect").to_dict()
    assert round(odds["perfect"]["human_match_win_prob"], 4) == 0.8474
    assert odds["random"]["human_match_win_prob"] < 0.001


def test_odds_follow_the_numbers(play: Actions) -> None:
    classic = play.emit("odds", {})["odds"]["perfect"]["human_match_win_prob"]
    # A perfect player never loses a game, so only what a draw costs moves its odds.
    kinder = play.emit("odds", {"preset": "classic", "rules": {"draw_human_damage": 5}})
    assert kinder["odds"]["perfect"]["human_match_win_prob"] > classic
    assert kinder["odds"]["perfect"]["rules"]["draw_human_damage"] == 5


def test_odds_refuse_bad_rules_naming_them(play: Actions) -> None:
    found = refused(play.emit("odds", {"rules": {"draw_human_damage": -1}}))
    assert found["field"] == "draw_human_damage"
    assert "HP you lose on a draw must be an integer from 0 to 100" in found["message"]


def test_rules_refused_together_are_named_together(play: Actions) -> None:
    draws = {"rules": {"draw_human_damage": 0, "draw_ai_damage": 0}}
    for found in (refused(play.emit("odds", draws)), refused(play.new_match(**draws, check=True))):
        assert found["fields"] == ["draw_human_damage", "draw_ai_damage"]
        assert "field" not in found
    # Rules too long as a whole name no rule: any damage or heal could be the one to change.
    assert "fields" not in refused(play.emit("odds", {"rules": {"human_win_ai_damage": 1}}))


def test_odds_answer_for_a_skill_player_beside_the_scripted_ones(play: Actions) -> None:
    odds = play.emit("odds", {"preset": "fair", "skill": 0.8})["odds"]
    assert set(odds) == {"random", "heuristic", "perfect", "skill"}
    assert odds["skill"] == match_odds(PRESETS["fair"], "skill:0.8").to_dict()
    assert odds["skill"]["player"] == "skill:0.8"
    assert odds["random"]["human_match_win_prob"] < odds["skill"]["human_match_win_prob"]
    assert odds["skill"]["human_match_win_prob"] < odds["perfect"]["human_match_win_prob"]
    rounded = play.emit("odds", {"preset": "fair", "skill": 0.8049})["odds"]["skill"]
    assert rounded == odds["skill"]
    assert play.emit("odds", {"skill": 1})["odds"]["skill"]["player"] == "skill:1"


def test_current_odds_answer_for_a_skill_player(play: Actions) -> None:
    assert play.new_match(rules={"start_human_hp": 30, "start_ai_hp": 90}) == {"ok": True}
    odds = play.emit("odds", {"current": True, "skill": 0.5})["odds"]
    expected = match_odds(
        Rules(start_human_hp=30, start_ai_hp=90), "skill:0.5", human_hp=30, ai_hp=90
    )
    assert odds["skill"] == expected.to_dict()


@pytest.mark.parametrize("skill", [-0.01, 1.5, 100])
def test_a_skill_outside_0_to_1_is_refused(play: Actions, skill: float) -> None:
    found = refused(play.emit("odds", {"rules": {"start_human_hp": 77}, "skill": skill}))
    assert found["field"] == "skill" and "from 0 to 1" in found["message"]


def test_a_refused_rule_set_asked_again_is_refused_again(play: Actions) -> None:
    for _ in range(3):
        found = refused(play.emit("odds", {"rules": TOO_MANY_STATES}))
        assert "more than 5000 different HP states" in found["message"]


@pytest.mark.server
def test_odds_past_a_connections_budget_are_refused_before_any_work(tmp_path: Path) -> None:
    # The address's budget, shared by both connections here, refills at once: this test is
    # the connection's (test_attacks_paid.py holds the address's).
    odds = {"ODDS_MS_PER_SECOND": 1, "ODDS_BURST_MS": 1, "ODDS_MS_PER_ADDRESS": 1_000_000}
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), **odds})
    asker, other = (Actions(connect(app, visitor(app))) for _ in range(2))
    # Tens of milliseconds of work, paid back at 1 ms a second: a debt of many seconds.
    assert asker.emit("odds", {"rules": {**HARD_RULES, "start_human_hp": 181}})["ok"]
    found = refused(
        asker.emit("odds", {"rules": {**HARD_RULES, "start_human_hp": 182}}), "rate_limited"
    )
    assert "ask again in" in found["message"]
    # Another connection has its own budget.
    assert other.emit("odds", {"rules": {**HARD_RULES, "start_human_hp": 182}})["ok"]


def test_current_odds_start_from_the_match_hp(play: Actions) -> None:
    assert play.new_match(rules={"start_human_hp": 30, "start_ai_hp": 90}) == {"ok": True}
    ack = play.emit("odds", {"current": True})
    expected = match_odds(
        Rules(start_human_hp=30, start_ai_hp=90), "perfect", human_hp=30, ai_hp=90
    )
    assert ack["odds"]["perfect"] == expected.to_dict()


def test_current_odds_follow_the_lock(play: Actions) -> None:
    assert play.new_match(rules={"start_ai_hp": 40}) == {"ok": True}
    free = play.emit("odds", {"current": True})["odds"]["perfect"]["human_match_win_prob"]
    assert play.emit("lock_difficulty") == {"ok": True}
    locked = play.emit("odds", {"current": True})["odds"]["perfect"]["human_match_win_prob"]
    # Locked at 60, the AI never gets sharper as its HP falls: better odds for the player.
    assert locked > free


@pytest.mark.parametrize(
    ("fields", "code"),
    [({"current": True, "preset": "classic"}, "bad_payload"), ({"current": "yes"}, "bad_payload")],
)
def test_current_odds_take_nothing_else(play: Actions, fields: dict[str, Any], code: str) -> None:
    refused(play.emit("odds", fields), code)


def test_current_odds_are_refused_in_a_fixed_mode(play: Actions) -> None:
    assert play.new_match(mode="easy") == {"ok": True}
    assert "only an adaptive match" in refused(play.emit("odds", {"current": True}))["message"]


# --- the lock ------------------------------------------------------------------------


def test_lock_difficulty_keeps_it_through_the_match(play: Actions) -> None:
    assert play.new_match(rules={"start_ai_hp": 70}) == {"ok": True}
    assert play.emit("lock_difficulty") == {"ok": True}
    assert (play.state["match"]["locked"], play.state["match"]["difficulty"]) == (30, 30)
    version = play.state["version"]
    assert play.emit("lock_difficulty") == {"ok": True}  # again: nothing changes
    assert play.state["version"] == version
    for _ in range(3):
        state = play.play_out()
        ai_moves = [m for m in state["record"]["moves"] if m["by"] == "ai"]
        assert {m["difficulty"] for m in ai_moves} <= {30}
        if state["match"]["over"]:
            break
        assert play.emit("next_game") == {"ok": True}
    assert play.state["match"]["difficulty"] == 30


def test_lock_difficulty_is_refused_in_a_fixed_mode(play: Actions) -> None:
    assert play.new_match(mode="hard") == {"ok": True}
    before = play.state
    refused(play.emit("lock_difficulty"))
    assert play.refresh() == before


# --- the dice ------------------------------------------------------------------------


def test_the_commitment_comes_first_and_the_seed_at_the_end(play: Actions) -> None:
    assert play.new_match(client_seed="my-seed_1") == {"ok": True}
    first = play.state["record"]
    assert first["dice"]["client_seed"] == "my-seed_1"
    assert first["dice"]["server_seed"] is None
    assert len(first["dice"]["commitment"]) == 64
    state = play.play_out()
    dice = state["record"]["dice"]
    assert dice["commitment"] == first["dice"]["commitment"]  # unchanged through the game
    assert commitment(dice["server_seed"]) == dice["commitment"]
    assert verify(state["record"]).game == 1


def test_next_game_takes_a_new_client_seed_or_keeps_the_last(play: Actions) -> None:
    assert play.new_match(client_seed="first") == {"ok": True}
    seeds = []
    for seed in (None, "second"):
        done = play.play_out()
        if done["match"]["over"]:
            break
        old = done["record"]["dice"]["commitment"]
        assert play.emit("next_game", {} if seed is None else {"client_seed": seed}) == {"ok": True}
        dice = play.state["record"]["dice"]
        assert dice["commitment"] != old and dice["server_seed"] is None
        seeds.append(dice["client_seed"])
    assert seeds == ["first", "second"]


def test_a_bad_client_seed_on_next_game_changes_nothing(play: Actions) -> None:
    done = play.play_out()
    assert not done["match"]["over"]
    found = refused(play.emit("next_game", {"client_seed": "x" * 97}))
    assert "client seed" in found["message"]
    assert play.refresh() == done


@pytest.mark.parametrize(("mode", "first"), [("easy", "ai"), ("impossible", "human")])
def test_a_fixed_mode_starts_with_the_side_chosen_and_verifies(
    play: Actions, mode: str, first: str
) -> None:
    assert play.new_match(mode=mode, first=first, client_seed="chosen") == {"ok": True}
    assert play.state["first"] == first
    state = play.play_out()
    assert state["record"]["first"] == first
    assert verify(state["record"]).game == 1


def test_an_adaptive_match_keeps_the_coin_toss(play: Actions) -> None:
    before = play.state
    found = refused(play.new_match(mode="adaptive", first="human"))
    assert found["field"] == "first"
    assert play.refresh() == before
    assert play.new_match(first="toss") == {"ok": True}


def test_the_first_game_shown_unasked_uses_the_server_client_seed(play: Actions) -> None:
    assert play.state["record"]["dice"]["client_seed"] == "server"
    assert play.state["record"]["dice"]["server_seed"] is None
