"""The exact odds on 4x4k3 and misere against simulated matches: 100,000 per rule set.

Run with ``.venv/bin/python bench/variant_odds.py [--matches N] [--workers W] [--games G]``
(about two minutes of CPU per 100,000 matches; the workers split each rule set's
matches, each with its own seed; ``--games`` also plays single games on every variant,
4x4k4's solver with its opening book). For each variant, three rule sets, each with a
player whose chance is far from 0 and 1, are played match after match: every game a coin
tosses who starts,
the player makes a perfect move (any best move, uniformly) with chance S and a random
one otherwise, the AI rolls 0..99 against its difficulty (``100 - AI HP``) for the
solver's lowest best move (``Solver.best_move``) or else a random one, and the HP move
by ``match.hp_after_game`` (webapp/game/variant_simulation.py). The moves come from the
solver, not from the odds' polynomials, so the two agree only if both are right.
Each simulated share of matches won is printed with its Wilson 95% interval, and
whether the exact chance (``odds.match_odds``) lies inside it. tests/test_variant_odds.py
plays a few hundred matches per rule set through the match core itself.
"""

from __future__ import annotations

import argparse
import random
from concurrent.futures import ProcessPoolExecutor

from webapp.game.book import build_book, solver_with
from webapp.game.odds import match_odds
from webapp.game.rules import rules_from
from webapp.game.skill import wilson
from webapp.game.solver import Solver
from webapp.game.variant import variant_named
from webapp.game.variant_chances import shipped
from webapp.game.variant_simulation import Sides

VARIANTS = ("4x4k3", "misere")
RULE_SETS = (("classic", 90), ("gentle", 50), ("brutal", 100))
"""Each rule set's preset and the player's chance of a perfect move, in hundredths."""


def sides(name: str) -> Sides:
    """Both sides of the variant's games (4x4k4's solver with its opening book)."""
    variant = variant_named(name)
    return Sides(solver_with(build_book(variant)) if name == "4x4k4" else Solver(variant))


def wins(variant: str, preset: str, skill: int, matches: int, seed: str) -> int:
    """How many of ``matches`` matches the player wins (one worker's share)."""
    player, rng = sides(variant), random.Random(seed)
    rules = rules_from(preset, variant=player.variant)
    return sum(player.match(rng, rules, skill)[0] for _ in range(matches))


def game_shares(variant: str, p: float, skill: float, games: int, seed: str) -> list[int]:
    """How many of ``games`` single games the player wins, loses and draws at AI chance
    ``p`` and skill ``skill`` (one worker's share)."""
    player, rng = sides(variant), random.Random(seed)
    counts = {"human_won": 0, "ai_won": 0, "draw": 0}
    for _ in range(games):
        counts[player.game(rng, round(skill * 100), round(p * 100))] += 1
    return list(counts.values())


def check_games(pool: ProcessPoolExecutor, games: int, workers: int) -> None:
    """One game's chances on every variant at one p and S (S = 1 where the table holds the
    ends of the skill scale only), against ``games`` games."""
    p = 0.7
    print(f"\nOne game at p = {p}, S = 0.8 (notakto3: 1), {games:,} games each:\n")
    print(
        "| variant | win: exact | simulated, 95% interval | loss: exact | simulated, 95% interval |"
    )
    print("|---|---|---|---|---|")
    for variant, entry in shipped().items():  # every variant but classic
        skill = 0.8 if "win" in entry else 1.0
        jobs = [
            pool.submit(game_shares, variant, p, skill, games // workers, f"{variant}-game-{i}")
            for i in range(workers)
        ]
        counts = [sum(column) for column in zip(*(job.result() for job in jobs), strict=True)]
        played = sum(counts)
        row = [f"`{variant}`"]
        for result in (0, 1):
            exact = chance_at(variant, result, p, skill)
            low, high = wilson(counts[result], played)
            inside = "" if low <= exact <= high else " (outside)"
            row += [
                f"{exact:.2%}",
                f"{counts[result] / played:.2%}, {low:.2%} to {high:.2%}{inside}",
            ]
        print("| " + " | ".join(row) + " |", flush=True)


def chance_at(variant: str, result: int, p: float, skill: float) -> float:
    """The shipped polynomial of ``result`` (0 win, 1 loss) at p and S."""
    entry, key = shipped()[variant], ("win", "loss")[result]
    if key not in entry:
        return sum(c * p**i for i, c in enumerate(entry["skills"][f"{skill:g}"][key]))
    rows = entry[key]
    return sum(c * p**i * skill**j for i, row in enumerate(rows) for j, c in enumerate(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100_000, help="per rule set (100000)")
    parser.add_argument("--workers", type=int, default=2, help="processes (2)")
    parser.add_argument(
        "--games", type=int, default=0, help="also single games on every variant (0: none)"
    )
    args = parser.parse_args()
    with ProcessPoolExecutor(args.workers) as pool:
        if args.matches:
            check_matches(pool, args.matches, args.workers)
        if args.games:
            check_games(pool, args.games, args.workers)


def check_matches(pool: ProcessPoolExecutor, matches: int, workers: int) -> None:
    """Each rule set's exact chance against ``matches`` matches."""
    print("| variant | rules | player | exact | simulated | 95% interval | inside |")
    print("|---|---|---|---|---|---|---|")
    for variant in VARIANTS:
        for preset, skill in RULE_SETS:
            shares = [matches // workers] * workers
            shares[0] += matches - sum(shares)
            seeds = [f"{variant}-{preset}-{i}" for i in range(workers)]
            jobs = [
                pool.submit(wins, variant, preset, skill, n, seed)
                for n, seed in zip(shares, seeds, strict=True)
            ]
            won = sum(job.result() for job in jobs)
            player = "perfect" if skill == 100 else f"skill:{skill / 100:g}"
            rules = rules_from(preset, variant=variant_named(variant))
            exact = match_odds(rules, player).human_match_win_prob
            low, high = wilson(won, matches)
            inside = "yes" if low <= exact <= high else "NO"
            print(
                f"| `{variant}` | {preset} | {player} | {exact:.2%} | {won / matches:.2%}"
                f" | {low:.2%} to {high:.2%} | {inside} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
