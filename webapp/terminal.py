"""Terminal play and match simulation, both driven by the pure HP match model.

``play_match`` runs a whole match over text streams, so a test can script the input;
``simulate`` plays many adaptive matches with a scripted human and sums them up.
All randomness comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from statistics import fmean
from typing import TextIO

from . import engine
from .board import RuleError, cell_name, parse_cell
from .cli import draw_board
from .match import (
    FIXED_POLICIES,
    AiMove,
    Match,
    MatchError,
    Side,
    Status,
    ai_move,
    apply_ai_move,
    choose_ai_move,
    human_move,
    new_match,
    next_game,
)

QUIT_WORDS = frozenset({"q", "quit", "exit"})
PLAYERS = ("random", "heuristic", "perfect")
GAME_RESULTS: dict[Status, str] = {
    "human_won": "You win this game.",
    "ai_won": "The AI wins this game.",
    "draw": "This game is a draw.",
    "playing": "This game is still going.",
}
MATCH_RESULTS: dict[Side, str] = {
    "human": "Match over: you win the match!",
    "ai": "Match over: the AI wins the match.",
}


# --- playing in the terminal ---------------------------------------------------------


class Quit(Exception):
    """The player typed ``q`` or closed the input."""


def play_match(
    inp: TextIO,
    out: TextIO,
    rng: random.Random,
    *,
    mode: str = "adaptive",
    human_hp: int | None = None,
    ai_hp: int | None = None,
) -> int:
    """Play a match on ``inp``/``out`` until it ends or the player quits; return 0."""
    match = new_match(rng, mode=mode, human_hp=human_hp, ai_hp=ai_hp)
    out.write(intro(match) + "\n")
    try:
        while True:
            match = play_game(inp, out, match, rng)
            out.write(f"\n{game_summary(match)}\n")
            if match.over:
                return 0
            match = next_game(match, rng)
    except Quit:
        out.write("\nBye.\n")
        return 0


def play_game(inp: TextIO, out: TextIO, match: Match, rng: random.Random) -> Match:
    """Play the current game to its end: AI moves explained, human moves read from ``inp``."""
    out.write(f"\n{game_header(match)}\n{draw_board(match.game.board)}\n")
    while match.game.turn is not None:
        ai_to_move = match.game.turn == "ai"
        match = ai_turn(out, match, rng) if ai_to_move else human_turn(inp, out, match)
        out.write(draw_board(match.game.board) + "\n")
    return match


def ai_turn(out: TextIO, match: Match, rng: random.Random) -> Match:
    """Let the AI choose, say why, and play."""
    move = choose_ai_move(match, rng)
    mark = match.game.mark_of("ai")
    out.write(f"\nAI ({mark}) plays {cell_name(move.cell)}: {explain(move, match.mode)}\n")
    return apply_ai_move(match, move)


def human_turn(inp: TextIO, out: TextIO, match: Match) -> Match:
    """Ask for the human's move until a legal one arrives."""
    prompt = f"\nYour move ({match.game.mark_of('human')}): "
    while True:
        text = ask(inp, out, prompt)
        try:
            return human_move(match, parse_cell(text))
        except RuleError as err:
            out.write(f"{err.message}. Try again, or q to quit.\n")


def ask(inp: TextIO, out: TextIO, prompt: str) -> str:
    """One line of input after ``prompt``; raise Quit on ``q`` or end of input."""
    out.write(prompt)
    out.flush()
    line = inp.readline()
    if not line or line.strip().lower() in QUIT_WORDS:
        raise Quit
    return line


def explain(move: AiMove, mode: str) -> str:
    """Why the AI played ``move``: its roll against the difficulty, or its fixed strategy."""
    if move.roll is None or move.difficulty is None:
        reason = f"{mode} mode, {move.decision}"
    else:
        # The model made the decision; the sign only shows which side of the line it fell.
        sign = "<" if move.decision == "minimax" else ">="
        reason = f"rolled {move.roll} {sign} {move.difficulty}: {move.decision}"
    return f"{reason} ({move.think_us} µs)"


def intro(match: Match) -> str:
    """The opening lines: the mode, the starting HP and how to type a move."""
    if match.adaptive:
        title = f"Adaptive match: the AI plays better as its HP falls.\n{hp_line(match)}"
    else:
        strategy = FIXED_POLICIES[match.mode][1]
        title = f"{match.mode.capitalize()} match: the AI plays {strategy}; a record is kept."
    return (
        f"{title}\nType a move as b2 (columns a-c, rows 1-3 from the top) "
        "or 'row col' (0-2 each); q or Ctrl-D quits."
    )


def game_header(match: Match) -> str:
    """The title of a game: its number, the human's mark and who starts."""
    game = match.game
    starter = "you move" if game.first == "human" else "the AI moves"
    return f"=== Game {match.game_number}: you are {game.mark_of('human')}, {starter} first ==="


def hp_line(match: Match) -> str:
    """Both sides' HP, with the last game's change, and the AI's difficulty."""
    change = match.last_hp_change
    human, ai = (f" ({change[0]:+d})", f" ({change[1]:+d})") if change else ("", "")
    return f"HP: you {match.human_hp}{human}, AI {match.ai_hp}{ai}; difficulty {match.difficulty}%"


def game_summary(match: Match) -> str:
    """The lines printed after each game: result, HP (adaptive), record, match result."""
    record = match.record
    lines = [GAME_RESULTS[match.game.status]]
    if match.adaptive:
        lines.append(hp_line(match))
    lines.append(f"Record: won {record.wins}, lost {record.losses}, drawn {record.draws}")
    if match.winner is not None:
        lines.append(MATCH_RESULTS[match.winner])
    return "\n".join(lines)


# --- simulation ----------------------------------------------------------------------


@dataclass(frozen=True)
class MatchRun:
    """One simulated match: who won, and both sides' HP after each game."""

    winner: Side
    hp: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class HpByGame:
    """Average HP after game ``game`` over the matches that played it."""

    game: int
    matches_reaching: int
    human_hp: float
    ai_hp: float


@dataclass(frozen=True)
class Simulation:
    """The summary of many simulated adaptive matches against one kind of human player."""

    player: str
    matches: int
    human_match_wins: int
    human_match_win_rate: float
    avg_games_per_match: float
    hp_by_game: tuple[HpByGame, ...]


def match_states(
    player: engine.Strategy,
    rng: random.Random,
    *,
    human_hp: int | None = None,
    ai_hp: int | None = None,
) -> Iterator[Match]:
    """Every state of one adaptive match, ``player`` moving for the human, until it ends."""
    match = new_match(rng, human_hp=human_hp, ai_hp=ai_hp)
    yield match
    while not match.over:
        if match.game.turn is None:
            match = next_game(match, rng)
        elif match.game.turn == "human":
            match = human_move(match, player(match.game.board, rng))
        else:
            match = ai_move(match, rng)
        yield match


def run_match(states: Iterable[Match]) -> MatchRun:
    """The winner and the HP after each game, read off a finished match's states."""
    hp: list[tuple[int, int]] = []
    last: Match | None = None
    for last in states:
        if last.game.turn is None:
            hp.append((last.human_hp, last.ai_hp))
    if last is None or last.winner is None:
        raise MatchError("match_not_over", "the match did not reach its end")
    return MatchRun(last.winner, tuple(hp))


def simulate(
    player: str,
    matches: int,
    rng: random.Random,
    *,
    human_hp: int | None = None,
    ai_hp: int | None = None,
) -> Simulation:
    """Play ``matches`` adaptive matches with a scripted ``player`` and sum them up."""
    if player not in PLAYERS:
        raise MatchError("bad_setting", f"player must be one of {', '.join(PLAYERS)}")
    if matches < 1:
        raise MatchError("bad_setting", f"matches must be at least 1, got {matches}")
    strategy = engine.strategy(player)
    runs = [
        run_match(match_states(strategy, rng, human_hp=human_hp, ai_hp=ai_hp))
        for _ in range(matches)
    ]
    wins = sum(run.winner == "human" for run in runs)
    return Simulation(
        player=player,
        matches=matches,
        human_match_wins=wins,
        human_match_win_rate=wins / matches,
        avg_games_per_match=fmean(len(run.hp) for run in runs),
        hp_by_game=hp_by_game(runs),
    )


def hp_by_game(runs: Sequence[MatchRun]) -> tuple[HpByGame, ...]:
    """Average HP after each game number over the matches that got that far."""
    rows = []
    for index in range(max(len(run.hp) for run in runs)):
        reached = [run.hp[index] for run in runs if len(run.hp) > index]
        human = fmean(h for h, _ in reached)
        rows.append(HpByGame(index + 1, len(reached), human, fmean(a for _, a in reached)))
    return tuple(rows)


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
