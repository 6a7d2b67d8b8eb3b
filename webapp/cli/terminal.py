"""A whole HP match in the terminal, over text streams so that a test can script the input.

The ``random.Random`` passed in draws each game's server seed, and so all its dice.
"""

from __future__ import annotations

import random
import time
from typing import TextIO

from ..game.board import Board, RuleError, cell_name, parse_cell
from ..game.game import AiMove, Side, Status
from ..game.match import Match, apply_ai_move, choose_ai_move, human_move, new_match, next_game
from ..game.rules import FIXED_STRATEGIES, Rules
from ..game.variant import COLUMN_LETTERS

QUIT_WORDS = frozenset({"q", "quit", "exit"})
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


def draw_board(board: Board) -> str:
    """The board as a labelled grid, columns a-c and rows 1-3 from the top."""
    return "\n".join(grid_lines(board.rows()))


def grid_lines(rows: list[str]) -> list[str]:
    """One board's rows (X, O and .) as a grid's lines, columns a.. and rows 1.. labelled."""
    columns = len(rows[0])
    lines = ["    " + "   ".join(COLUMN_LETTERS[:columns])]
    for number, row in enumerate(rows, start=1):
        marks = [" " if ch == "." else ch for ch in row]
        lines.append(f"{number}   {' | '.join(marks)}")
        if number < len(rows):
            lines.append("   " + "+".join(["---"] * columns))
    return lines


class Quit(Exception):
    """The player typed ``q`` or closed the input."""


def play_match(
    inp: TextIO,
    out: TextIO,
    rng: random.Random,
    *,
    mode: str = "adaptive",
    rules: Rules | None = None,
) -> int:
    """Play a match on ``inp``/``out`` until it ends or the player quits; return 0."""
    match = new_match(rng, mode=mode, rules=rules)
    out.write(intro(match) + "\n")
    try:
        while True:
            match = play_game(inp, out, match)
            out.write(f"\n{game_summary(match)}\n")
            if match.over:
                return 0
            match = next_game(match, rng)
    except Quit:
        out.write("\nBye.\n")
        return 0


def play_game(inp: TextIO, out: TextIO, match: Match) -> Match:
    """Play the current game to its end: AI moves explained, human moves read from ``inp``."""
    out.write(f"\n{game_header(match)}\n{draw_board(match.game.board)}\n")
    while match.game.turn is not None:
        ai_to_move = match.game.turn == "ai"
        match = ai_turn(out, match) if ai_to_move else human_turn(inp, out, match)
        out.write(draw_board(match.game.board) + "\n")
    return match


def ai_turn(out: TextIO, match: Match) -> Match:
    """Let the AI choose, say why, and play."""
    move = choose_ai_move(match, clock=time.perf_counter_ns)
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
        sign = "<" if move.decision == "perfect" else ">="
        reason = f"rolled {move.roll} {sign} {move.difficulty}: {move.decision}"
    return f"{reason} ({move.think_us} µs)"


def intro(match: Match) -> str:
    """The opening lines: the mode, the starting HP and how to type a move."""
    if match.adaptive:
        title = f"Adaptive match: the AI plays better as its HP falls.\n{hp_line(match)}"
    else:
        strategy = FIXED_STRATEGIES[match.mode]
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
