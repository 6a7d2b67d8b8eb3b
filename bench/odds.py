"""How long the exact odds take: the game-tree tables once, then any rule set, and tunes.

Run with ``.venv/bin/python bench/odds.py`` (``--rule-sets N``, ``--json``). The tables
(one game's chances as polynomials, for the scripted players and the skill players) are
built once per process; after that, each rule set's players (the three scripted ones and
``skill:0.8``) are answered from scratch (the caches of answers and of each rule set's
states cleared between them), and the target is 20 ms at p99 for each (player, rule set).

Random rule sets are mostly quick, so the hardest ones are timed as well: the smallest
damages and heals that still end every match within ``MAX_GAMES`` games (the most
states), and the rule sets a search of the whole rule space found to take the most work
(``--search SECONDS`` looks for more, from random rule sets, keeping each change to a
rule that makes the answer slower). Each of those is timed ``--repeat`` times and the
fastest kept, so that a busy machine's pauses are not counted against a rule set.

Then whole tunes (webapp/game/tune.py), each from scratch: targets 0.1 to 0.9 for skills
0.5, 0.8 and 0.95, against a target of 300 ms each.

Times are the process's CPU time on its one thread (``time.thread_time``): the work done
on one core, which a shared machine's other processes do not stretch as they stretch
the wall clock (``--wall`` times that instead).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from webapp.game import engine
from webapp.game.odds import PLAYERS, build_tables, match_odds, state_graph
from webapp.game.rules import (
    MAX_HP_LIMIT,
    RULE_FIELDS,
    MatchError,
    Rules,
    count_states,
    longest_match,
    rules_from,
)
from webapp.game.tune import _tune, tune

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import percentile

CLOCK = time.thread_time  # --wall: time.perf_counter
TARGET_MS = 20.0
TUNE_TARGET_MS = 300.0
TIMED = (*PLAYERS, "skill:0.8")
TUNE_SKILLS = ("skill:0.5", "skill:0.8", "skill:0.95")
TUNE_TARGETS = tuple(n / 10 for n in range(1, 10))

# Found by hill-climbing over all eight rules for the most (state, game) pairs or the
# most runs of states to walk (tens of thousands of states, up to a million pairs):
# large maximum HP, a heal that often reaches it, and damages as small as the 100-game
# cap allows. The first two pack densely; the last two spread their states thinly.
SEARCHED: tuple[dict[str, int], ...] = (
    {
        "max_hp": 557,
        "start_human_hp": 204,
        "start_ai_hp": 144,
        "human_win_human_heal": 64,
        "human_win_ai_damage": 11,
        "ai_win_human_damage": 12,
        "draw_human_damage": 5,
        "draw_ai_damage": 1,
    },
    {
        "max_hp": 514,
        "start_human_hp": 206,
        "start_ai_hp": 145,
        "human_win_human_heal": 64,
        "human_win_ai_damage": 11,
        "ai_win_human_damage": 14,
        "draw_human_damage": 5,
        "draw_ai_damage": 1,
    },
    {
        "max_hp": 721,
        "start_human_hp": 481,
        "start_ai_hp": 506,
        "human_win_human_heal": 252,
        "human_win_ai_damage": 46,
        "ai_win_human_damage": 36,
        "draw_human_damage": 0,
        "draw_ai_damage": 7,
    },
    {
        "max_hp": 993,
        "start_human_hp": 538,
        "start_ai_hp": 594,
        "human_win_human_heal": 331,
        "human_win_ai_damage": 11,
        "ai_win_human_damage": 386,
        "draw_human_damage": 330,
        "draw_ai_damage": 13,
    },
)


def allowed(numbers: dict[str, int]) -> Rules | None:
    """The classic rules with ``numbers`` changed, or None if a player may not choose them."""
    try:
        return rules_from("classic", **numbers)
    except MatchError:
        return None


def random_rules(rng: random.Random) -> Rules:
    """A rule set a player may choose, drawn at random: any HP scale, and damages from
    the smallest to the largest that still end every match within the allowed games."""
    while True:
        max_hp = rng.choice([10, 50, 100, 100, 100, 200, 500, MAX_HP_LIMIT])
        try:
            return rules_from(
                max_hp=max_hp,
                start_human_hp=rng.randint(1, max_hp),
                start_ai_hp=rng.randint(1, max_hp),
                human_win_human_heal=rng.randint(0, max_hp // 2),
                human_win_ai_damage=rng.randint(1, max_hp),
                ai_win_human_damage=rng.randint(1, max_hp),
                draw_human_damage=rng.randint(0, max_hp // 2),
                draw_ai_damage=rng.randint(0, max_hp // 4),
            )
        except MatchError:
            continue


def smallest_damages() -> Iterator[Rules]:
    """The smallest damages and heals that still end every match within the allowed
    games, from several starting HPs: the most states a 100-HP match can reach."""
    for human in (30, 70, 100):
        for ai in (30, 70, 100):
            for step in (1, 2, 3, 4):
                for heal in (0, 1, 5):
                    try:
                        yield rules_from(
                            start_human_hp=human,
                            start_ai_hp=ai,
                            human_win_ai_damage=step,
                            ai_win_human_damage=step,
                            human_win_human_heal=heal,
                            draw_human_damage=step,
                            draw_ai_damage=1,
                        )
                    except MatchError:
                        continue


def answer_ms(rules: Rules, player: str, repeat: int = 1) -> float:
    """The fastest of ``repeat`` answers from scratch, in ms."""
    best = float("inf")
    for _ in range(repeat):
        match_odds.cache_clear()
        state_graph.cache_clear()
        begun = CLOCK()
        match_odds(rules, player)
        best = min(best, (CLOCK() - begun) * 1000)
    return best


def numbers_of(rules: Rules) -> dict[str, int]:
    """The rules as the numbers a player sends."""
    return {field.name: getattr(rules, field.name) for field in RULE_FIELDS}


def check_ms(numbers: dict[str, int], repeat: int = 1) -> float:
    """The fastest of ``repeat`` checks of a new rule set (``rules_from``, its caches
    cleared, allowed or refused), in ms: what a server does before any odds."""
    best = float("inf")
    for _ in range(repeat):
        count_states.cache_clear()
        longest_match.cache_clear()
        begun = CLOCK()
        with contextlib.suppress(MatchError):
            rules_from("classic", **numbers)
        best = min(best, (CLOCK() - begun) * 1000)
    return best


def slowest_player_ms(rules: Rules, repeat: int) -> float:
    """The slowest of the timed players' answers for ``rules``."""
    return max(answer_ms(rules, player, repeat) for player in TIMED)


def tune_ms(target: float, player: str, repeat: int) -> float:
    """The fastest of ``repeat`` whole tunes from scratch, in ms."""
    best = float("inf")
    for _ in range(repeat):
        for cached in (_tune, match_odds, state_graph):
            cached.cache_clear()
        begun = CLOCK()
        tune(target, player)
        best = min(best, (CLOCK() - begun) * 1000)
    return best


def search(seconds: float, rng: random.Random) -> list[Rules]:
    """Rule sets that take long to answer: from random ones, change one rule at a time by
    a random amount and keep the change whenever the answer gets slower."""
    found: list[Rules] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rules = random_rules(rng)
        spent = slowest_player_ms(rules, 1)
        for _ in range(60):
            numbers = {field.name: getattr(rules, field.name) for field in RULE_FIELDS}
            rule = rng.choice(RULE_FIELDS).name
            numbers[rule] += rng.choice([-1, 1]) * rng.choice([1, 2, 5, 10, 50])
            try:
                changed = rules_from("classic", **numbers)
            except MatchError:
                continue
            slower = slowest_player_ms(changed, 1)
            if slower > spent:
                rules, spent = changed, slower
        found.append(rules)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rule-sets", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timings of each hard rule set")
    parser.add_argument("--search", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--wall", action="store_true", help="time the wall clock, not CPU time")
    args = parser.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter

    engine.solved()  # the perfect-play tables, which every answer builds on, are not timed
    started = time.perf_counter()
    build_tables()
    tables_s = time.perf_counter() - started

    rng = random.Random(args.seed)
    times_ms: list[float] = []
    worst: tuple[float, Rules | None] = (0.0, None)
    for _ in range(args.rule_sets):
        rules = random_rules(rng)
        for player in TIMED:
            spent = answer_ms(rules, player)
            times_ms.append(spent)
            worst = max(worst, (spent, rules), key=lambda pair: pair[0])

    families = {
        "smallest damages": list(smallest_damages()),
        # Those with more than MAX_STATES states are refused now: a player cannot ask.
        "searched": [rules for rules in map(allowed, SEARCHED) if rules is not None],
    }
    if args.search > 0:
        families["searched now"] = search(args.search, rng)
    hardest: dict[str, tuple[float, Rules]] = {}
    for family, sets in families.items():
        if not sets:
            continue
        timed = [(slowest_player_ms(rules, args.repeat), rules) for rules in sets]
        hardest[family] = max(timed, key=lambda pair: pair[0])
    hardest_ms = max(spent for spent, _ in hardest.values())
    allowed_sets = [rules for sets in families.values() for rules in sets]
    checks_ms = [check_ms(numbers_of(rules), args.repeat) for rules in allowed_sets]
    refused_ms = [check_ms(numbers, args.repeat) for numbers in SEARCHED]
    tunes = {
        (player, target): tune_ms(target, player, args.repeat)
        for player in TUNE_SKILLS
        for target in TUNE_TARGETS
    }
    tunes_ms = list(tunes.values())
    slowest_tune = max(tunes, key=lambda key: tunes[key])
    result = {
        "hardest_ms": round(hardest_ms, 2),
        "hardest": {
            family: {"ms": round(spent, 2), "rules": repr(rules)}
            for family, (spent, rules) in hardest.items()
        },
        "tables_s": round(tables_s, 2),
        "answers": len(times_ms),
        "p50_ms": round(percentile(times_ms, 0.5), 2),
        "p99_ms": round(percentile(times_ms, 0.99), 2),
        "max_ms": round(max(times_ms), 2),
        "target_ms": TARGET_MS,
        "worst_rules": repr(worst[1]),
        "check_p50_ms": round(percentile(checks_ms, 0.5), 2),
        "check_max_ms": round(max(checks_ms), 2),
        "refuse_max_ms": round(max(refused_ms), 2),
        "tunes": len(tunes_ms),
        "tune_p50_ms": round(percentile(tunes_ms, 0.5), 2),
        "tune_max_ms": round(max(tunes_ms), 2),
        "tune_target_ms": TUNE_TARGET_MS,
        "slowest_tune": f"target {slowest_tune[1]} for {slowest_tune[0]}",
    }
    if args.json:
        print(json.dumps(result))
    else:
        verdict = "PASS" if percentile(times_ms, 0.99) <= TARGET_MS else "MISS"
        print(f"game-tree tables, once: {result['tables_s']} s")
        print(
            f"{result['answers']} answers (player x rule set): p50 {result['p50_ms']} ms,"
            f" p99 {result['p99_ms']} ms, max {result['max_ms']} ms"
            f" (target p99 {TARGET_MS:g} ms: {verdict})"
        )
        print(f"slowest: {result['worst_rules']}")
        for family, (spent, rules) in hardest.items():
            verdict = "PASS" if spent <= TARGET_MS else "MISS"
            print(
                f"hardest rule sets, {family} ({len(families[family])}): slowest player"
                f" {spent:.2f} ms, best of {args.repeat} (target {TARGET_MS:g} ms: {verdict})"
            )
            print(f"  slowest: {rules!r}")
        print(
            f"checking the rules of the hardest ({len(checks_ms)}): p50"
            f" {result['check_p50_ms']} ms, max {result['check_max_ms']} ms; refusing those"
            f" with too many states ({len(refused_ms)}): max {result['refuse_max_ms']} ms"
        )
        verdict = "PASS" if max(tunes_ms) <= TUNE_TARGET_MS else "MISS"
        print(
            f"{len(tunes_ms)} whole tunes, best of {args.repeat}: p50 {result['tune_p50_ms']} ms,"
            f" max {result['tune_max_ms']} ms, {result['slowest_tune']}"
            f" (target {TUNE_TARGET_MS:g} ms: {verdict})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
