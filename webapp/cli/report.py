"""``tictactoe simulate``'s report, as text or JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from ..game.simulation import Simulation


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
