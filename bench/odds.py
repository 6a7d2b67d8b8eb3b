"""How long the exact odds take: the game-tree tables once, then any rule set.

Run with ``.venv/bin/python bench/odds.py`` (``--rule-sets N``, ``--json``). The tables
(one game's chances as polynomials, for each scripted player) are built once per
process; after that, each rule set's three players are answered from scratch (the
cache cleared between them), and the target is 100 ms for each (player, rule set).
"""

from __future__ import annotations

import argparse
import json
import random
import time

from webapp.game import engine
from webapp.game.match import MAX_HP_LIMIT, MatchError, Rules, rules_from
from webapp.game.odds import PLAYERS, build_tables, match_odds
from webapp.testing import percentile

TARGET_MS = 100.0


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rule-sets", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    engine.solved()  # the perfect-play tables, which every answer builds on, are not timed
    started = time.perf_counter()
    build_tables()
    tables_s = time.perf_counter() - started

    rng = random.Random(args.seed)
    times_ms: list[float] = []
    worst: tuple[float, Rules | None] = (0.0, None)
    for _ in range(args.rule_sets):
        rules = random_rules(rng)
        for player in PLAYERS:
            match_odds.cache_clear()
            begun = time.perf_counter()
            match_odds(rules, player)
            spent = (time.perf_counter() - begun) * 1000
            times_ms.append(spent)
            worst = max(worst, (spent, rules), key=lambda pair: pair[0])
    # The hardest rule sets a player may choose: the smallest damages and heals that still
    # end every match within the allowed games, so the most states to solve.
    hardest_ms = 0.0
    for human in (30, 70, 100):
        for ai in (30, 70, 100):
            for step in (1, 2, 3, 4):
                for heal in (0, 1, 5):
                    try:
                        rules = rules_from(
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
                    for player in PLAYERS:
                        match_odds.cache_clear()
                        begun = time.perf_counter()
                        match_odds(rules, player)
                        spent = (time.perf_counter() - begun) * 1000
                        hardest_ms = max(hardest_ms, spent)
    result = {
        "hardest_ms": round(hardest_ms, 2),
        "tables_s": round(tables_s, 2),
        "answers": len(times_ms),
        "p50_ms": round(percentile(times_ms, 0.5), 2),
        "p99_ms": round(percentile(times_ms, 0.99), 2),
        "max_ms": round(max(times_ms), 2),
        "target_ms": TARGET_MS,
        "worst_rules": repr(worst[1]),
    }
    if args.json:
        print(json.dumps(result))
    else:
        verdict = "PASS" if result["max_ms"] <= TARGET_MS else "MISS"
        print(f"game-tree tables, once: {result['tables_s']} s")
        print(
            f"{result['answers']} answers (player x rule set): p50 {result['p50_ms']} ms,"
            f" p99 {result['p99_ms']} ms, max {result['max_ms']} ms"
            f" (target {TARGET_MS:g} ms: {verdict})"
        )
        print(f"slowest: {result['worst_rules']}")
        hardest = "PASS" if result["hardest_ms"] <= TARGET_MS else "MISS"
        print(
            f"hardest rule sets (smallest damages within the game cap): max"
            f" {result['hardest_ms']} ms (target {TARGET_MS:g} ms: {hardest})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
