"""The server's odds service in-process, where its caches can be read: what it refuses,
it refuses before any work. The protocol tests hold the same refusals over a socket."""

from __future__ import annotations

import pytest
from support.testing import HARD_RULES, TOO_MANY_STATES

from webapp.game.match import MatchError, count_states
from webapp.game.odds import match_odds
from webapp.server.odds import Odds


@pytest.mark.parametrize("skill", [-0.01, 1.5, 100])
def test_a_skill_outside_0_to_1_is_refused_before_any_walk(skill: float) -> None:
    before = match_odds.cache_info()
    with pytest.raises(MatchError, match="from 0 to 1") as caught:
        Odds().for_rules("c", {"rules": {"start_human_hp": 77}, "skill": skill})
    assert caught.value.field == "skill"
    assert match_odds.cache_info() == before


def test_a_refused_rule_set_asked_again_is_refused_from_the_cache() -> None:
    odds = Odds()
    before = count_states.cache_info()
    for _ in range(3):
        with pytest.raises(MatchError, match="more than 5000 different HP states"):
            odds.for_rules("c", {"rules": TOO_MANY_STATES})
    after = count_states.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 2)


def test_odds_past_a_connections_budget_are_refused_before_any_walk() -> None:
    odds = Odds(ms_per_second=1, burst_ms=1)
    # Tens of milliseconds of work, paid back at 1 ms a second: a debt of many seconds.
    assert odds.for_rules("asker", {"rules": {**HARD_RULES, "start_human_hp": 181}})
    before = match_odds.cache_info()
    with pytest.raises(MatchError, match="ask again in") as caught:
        odds.for_rules("asker", {"rules": {**HARD_RULES, "start_human_hp": 182}})
    assert caught.value.code == "rate_limited"
    assert match_odds.cache_info().misses == before.misses  # no walk was begun
    # Another connection has its own budget.
    assert odds.for_rules("other", {"rules": {**HARD_RULES, "start_human_hp": 182}})
    assert match_odds.cache_info().misses == before.misses + 3
