"""The server's odds service in-process, where its caches can be read: what it refuses,
it refuses before any work. The protocol tests hold the same refusals over a socket."""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Iterator

import pytest
from support.skill_play import played_games
from support.testing import HARD_RULES, TOO_MANY_STATES, wait_until

from webapp.game.history import Entry
from webapp.game.match import new_match
from webapp.game.odds import match_odds
from webapp.game.rules import MatchError, Rules, count_states
from webapp.game.strategies import skill_strategy
from webapp.server.limits.paid_work import Abandoned, FairTurn, Payer
from webapp.server.services.odds import Odds


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


def test_a_new_connection_from_an_address_in_debt_is_refused_before_any_walk() -> None:
    odds = Odds(ms_per_second=1, burst_ms=1, address_ms_per_second=1)
    assert odds.for_rules(
        Payer("asker", "127.0.0.2"), {"rules": {**HARD_RULES, "start_human_hp": 183}}
    )
    before = match_odds.cache_info()
    with pytest.raises(MatchError, match="your network's share") as caught:
        odds.for_rules(
            Payer("fresh", "127.0.0.2"), {"rules": {**HARD_RULES, "start_human_hp": 184}}
        )
    assert caught.value.code == "rate_limited"
    assert match_odds.cache_info().misses == before.misses  # no walk was begun
    assert odds.for_rules(
        Payer("other", "127.0.0.3"), {"rules": {**HARD_RULES, "start_human_hp": 184}}
    )


def test_odds_whose_socket_closed_are_dropped_before_any_walk() -> None:
    odds = Odds()
    before = match_odds.cache_info()
    gone = Payer("gone", "127.0.0.2", lambda: False)
    with pytest.raises(Abandoned):
        odds.for_rules(gone, {"rules": {**HARD_RULES, "start_human_hp": 185}})
    assert match_odds.cache_info().misses == before.misses
    assert odds.budgets.abandoned == 1


def test_a_walk_whose_socket_closes_stops_at_its_next_slice() -> None:
    odds = Odds()
    asked = iter([True, True, False])  # present when asked, then for one slice, then gone
    leaving = Payer("leaving", "127.0.0.2", lambda: next(asked, False))
    with pytest.raises(Abandoned):
        odds.for_rules(leaving, {"rules": {**HARD_RULES, "start_human_hp": 186}})
    assert odds.budgets.abandoned == 1
    assert odds.budgets.lines == {}  # its place in its address's line was given back


def test_an_answers_first_slice_goes_before_the_walks_coming_back() -> None:
    # A cached answer needs one slice: it waits for the walk working now, not for every
    # walk queued for its next slice.
    turn = FairTurn()
    turn.acquire()  # a walk works
    order: list[str] = []

    def take(name: str, first: bool) -> None:
        turn.acquire(first=first)
        order.append(name)
        turn.release()

    walk = threading.Thread(target=take, args=("walk", False))
    walk.start()
    wait_until(lambda: bool(turn.others), 5, "the walk queued")
    answer = threading.Thread(target=take, args=("answer", True))
    answer.start()
    wait_until(lambda: bool(turn.firsts), 5, "the answer queued")
    turn.release()
    walk.join(5)
    answer.join(5)
    assert order == ["answer", "walk"]
    assert not turn.held


class Entries:
    """History entries that count how often they are read."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries, self.reads = entries, 0

    def __iter__(self) -> Iterator[Entry]:
        self.reads += 1
        return iter(self.entries)


def test_a_players_own_chance_walks_three_skills_at_most_on_their_budget() -> None:
    odds = Odds(ms_per_second=1, burst_ms=1)
    entries = Entries(played_games(skill_strategy(70), 40, random.Random(7)))
    rules = Rules(**{**HARD_RULES, "start_human_hp": 187})
    match = new_match(random.Random(1), rules=rules)
    before = match_odds.cache_info()
    answer = odds.for_match("asker", match, entries=entries)
    # The three scripted players, then the skill and its interval's two ends: one walk each.
    assert match_odds.cache_info().misses == before.misses + 6 and entries.reads == 1
    you = answer["you"]
    assert you["odds"]["player"] == f"skill:{you['skill']['skill']:g}"
    # Paid from the connection's budget: in debt, the next is refused before any work,
    # the history not even read.
    later = dataclasses.replace(match, human_hp=150)
    with pytest.raises(MatchError, match="ask again in"):
        odds.for_match("asker", later, entries=entries)
    assert match_odds.cache_info().misses == before.misses + 6 and entries.reads == 1
