"""The ``odds`` event on every variant: a top-level ``"variant"`` (absent: classic), an
unknown one refused naming it, and a match's current odds on its own variant."""

from __future__ import annotations

import random
from typing import Any

import pytest
from support.live import Actions

from webapp.game.match import new_match
from webapp.game.odds import match_odds
from webapp.game.rules import rules_from
from webapp.game.variant import variant_named
from webapp.server.protocol.vocabulary import BadPayload
from webapp.server.services.odds import Odds

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

APP_SETTINGS = {"LAB_MS_PER_ADDRESS": 1_000_000, "ODDS_MS_PER_ADDRESS": 1_000_000}


def test_odds_on_a_variant_answer_its_players_exactly(play: Actions) -> None:
    ack = play.emit("odds", {"preset": "gentle", "variant": "4x4k3", "skill": 0.5})
    assert ack["ok"] is True, ack
    odds = ack["odds"]
    assert set(odds) == {"random", "perfect", "skill"}  # the heuristic plays classic only
    rules = rules_from("gentle", variant=variant_named("4x4k3"))
    assert odds["perfect"] == match_odds(rules, "perfect").to_dict()
    assert odds["skill"]["exact"] is True and odds["skill"]["rules"]["variant"] == "4x4k3"
    assert round(odds["skill"]["human_match_win_prob"], 4) == 0.6752


def test_odds_without_a_variant_are_the_classic_ones(play: Actions) -> None:
    odds = play.emit("odds", {"preset": "classic"})["odds"]
    assert set(odds) == {"random", "heuristic", "perfect"}
    assert "exact" not in odds["perfect"] and "variant" not in odds["perfect"]["rules"]


@pytest.mark.parametrize("variant", ["5x5", "Misere", ""])
def test_an_unknown_variant_is_refused_naming_it(play: Actions, variant: Any) -> None:
    ack = play.emit("odds", {"variant": variant})
    assert ack["ok"] is False and ack["error"]["code"] == "bad_payload", ack
    assert ack["error"]["field"] == "variant"


def test_current_odds_are_on_the_matchs_variant() -> None:
    rules = rules_from(variant=variant_named("misere"))
    match = new_match(random.Random(3), rules=rules)
    answer = Odds().for_match("c", match, 0.9)
    assert set(answer["odds"]) == {"random", "perfect", "skill"}
    assert answer["odds"]["skill"] == match_odds(rules, "skill:0.9").to_dict()
    assert answer["odds"]["perfect"]["rules"]["variant"] == "misere"


def test_a_variant_named_wrongly_is_refused_before_any_walk() -> None:
    before = match_odds.cache_info()
    with pytest.raises(BadPayload) as refused:
        Odds().for_rules("c", {"variant": "misère"})
    assert (refused.value.code, refused.value.field) == ("bad_payload", "variant")
    assert match_odds.cache_info() == before


def test_odds_on_notakto3_are_exact_for_every_player(play: Actions) -> None:
    ack = play.emit("odds", {"preset": "gentle", "variant": "notakto3"})
    assert ack["ok"] is True, ack
    odds = ack["odds"]
    assert odds["perfect"]["exact"] is True and odds["random"]["exact"] is True
    skill = play.emit("odds", {"preset": "gentle", "variant": "notakto3", "skill": 0.7})
    assert skill["ok"] is True and skill["odds"]["skill"]["exact"] is True, skill
    assert odds["perfect"]["rules"]["variant"] == "notakto3"
    assert (
        odds["perfect"]
        == match_odds(rules_from("gentle", variant=variant_named("notakto3")), "perfect").to_dict()
    )
