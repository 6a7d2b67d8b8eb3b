"""The reports of ``tictactoe simulate`` (text or JSON), ``tictactoe odds`` and
``tictactoe tune`` (text)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from ..game.rules import PRESETS, RULE_FIELDS
from ..game.simulation import Simulation

if TYPE_CHECKING:  # the odds need numpy, which the other commands do without
    from ..game.odds import MatchOdds
    from ..game.tune import Tuned


def render_json(result: Simulation) -> str:
    """The simulation as one JSON object."""
    return json.dumps(asdict(result))


def render_text(result: Simulation) -> str:
    """The simulation as a short report and a table of average HP by game number."""
    lines = [
        f"player: {result.player}, adaptive matches: {result.matches:,}",
        f"human won {result.human_match_win_rate:.1%} of matches "
        f"({result.human_match_wins:,} of {result.matches:,})",
        f"games per match: {result.avg_games_per_match:.2f} on average",
        "",
        "HP after each game, averaged over the matches that reached it:",
        "game  matches  human HP   AI HP",
    ]
    lines += [
        f"{row.game:>4}  {row.matches_reaching:>7,}  {row.human_hp:>8.1f}  {row.ai_hp:>6.1f}"
        for row in result.hp_by_game
    ]
    return "\n".join(lines)


def percent(share: float) -> str:
    """A chance in percent, with the digits that tell a small one from none, or a near
    certainty from a certainty."""
    value = share * 100
    if 0 < value < 0.1:
        return f"{value:.2g}%"
    if 99.95 <= value < 100:
        return f"{value:.4g}%"
    return f"{value:.1f}%"


def render_odds(found: list[MatchOdds]) -> str:
    """The odds of each scripted player as a short table."""
    header = ("player", "wins the match", "games, on average", "50% / 90% / 99% within")
    lines = [f"{header[0]:<10} {header[1]:>15} {header[2]:>18} {header[3]:>24}"]
    for odds in found:
        q = odds.games_quantiles
        within = f"{q['50']} / {q['90']} / {q['99']} games"
        lines.append(
            f"{odds.player:<10} {percent(odds.human_match_win_prob):>15}"
            f" {odds.expected_games:>18.1f} {within:>24}"
        )
    return "\n".join(lines)


def render_tuned(tuned: Tuned) -> str:
    """The rules a tune found, how to ask for them, and their odds."""
    classic = PRESETS["classic"]
    changed = [
        (rule, getattr(tuned.rules, rule.name))
        for rule in RULE_FIELDS
        if getattr(tuned.rules, rule.name) != getattr(classic, rule.name)
    ]
    reach = f"{percent(tuned.low)} to {percent(tuned.high)}"
    if tuned.reachable:
        verdict = f"found {percent(tuned.chance)} (these rules reach {reach})"
    else:
        verdict = (
            f"cannot be reached: these rules reach {reach}; the nearest is {percent(tuned.chance)}"
        )
    words = ", ".join(
        f"{rule.label} {value} (classic {getattr(classic, rule.name)})" for rule, value in changed
    )
    flags = " ".join(f"{rule.flag} {value}" for rule, value in changed)
    variant = tuned.rules.variant.name
    on = "" if variant == "classic" else f" --variant {variant}"
    return "\n".join(
        [
            f"target {percent(tuned.target)} for {tuned.odds.player}: {verdict}",
            f"rules: classic, with {words}" if changed else "rules: classic",
            f"the same odds: tictactoe odds --player {tuned.odds.player} {flags}{on}".rstrip(),
            "",
            render_odds([tuned.odds]),
        ]
    )
