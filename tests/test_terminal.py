"""The terminal game through a pipe and in-process, and the match simulator."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from webapp.cli.report import render_json, render_text
from webapp.cli.terminal import play_match
from webapp.game import strategies
from webapp.game.board import cell_name
from webapp.game.match import new_match
from webapp.game.rules import FIXED_STRATEGIES, MatchError, Rules
from webapp.game.simulation import PLAYERS, match_states, run_match, simulate

pytestmark = pytest.mark.shared_server  # one live server, each test a new player

ROOT = Path(__file__).resolve().parent.parent

# A human who tries every cell in turn, half of them typed as "row col", so each of
# its moves lands within nine lines whatever the AI did. Enough lines for any match.
SCAN = [cell_name(c) if c % 2 == 0 else f"{c // 3} {c % 3}" for c in range(9)]
SCAN_INPUT = "\n".join(SCAN * 300) + "\n"

PROMPT = re.compile(r"^Your move \([XO]\): ")
ROW = re.compile(r"^([123])   (.) \| (.) \| (.)$")
AI_LINE = re.compile(
    r"^AI \(([XO])\) plays ([abc][123]): rolled (\d+) (<|>=) (\d+): (perfect|random) \((\d+) µs\)$"
)
HP_LINE = re.compile(
    r"^HP: you (-?\d+)(?: \(([+-]\d+)\))?, AI (-?\d+)(?: \(([+-]\d+)\))?; difficulty (\d+)%$"
)
RESULTS = {
    "You win this game.": "human_won",
    "The AI wins this game.": "ai_won",
    "This game is a draw.": "draw",
}


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``tictactoe`` as a subprocess with ``stdin`` piped in."""
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def play_in_process(script: str, *, seed: int = 1, **settings: object) -> str:
    """Play ``tictactoe play`` in-process on a scripted input; return the output."""
    out = io.StringIO()
    status = play_match(io.StringIO(script), out, random.Random(seed), **settings)  # type: ignore[arg-type]
    assert status == 0
    return out.getvalue()


def first_seed(first: str) -> int:
    """A seed whose first game is started by ``first``."""
    return next(s for s in range(100) if new_match(random.Random(s)).game.first == first)


def expected_hp(status: str, human: int, ai: int) -> tuple[int, int]:
    """Both sides' HP after a game, written out from the rules."""
    if status == "human_won":
        return min(100, human + 10), ai - 10
    if status == "ai_won":
        return human - 34, ai
    return human - 10, ai - 2


@dataclass
class Transcript:
    """What a replay of the terminal output found."""

    games: int = 0
    ai_moves: int = 0
    decisions: set[str] = field(default_factory=set)
    boards: int = 0
    winner: str | None = None


def check_transcript(text: str) -> Transcript:
    """Walk the output line by line, checking each HP line and AI move against the rules."""
    seen = Transcript()
    hp: tuple[int, int] | None = None
    board, pending, status, rows = "", None, None, []
    for line in (PROMPT.sub("", raw) for raw in text.splitlines()):
        if row := ROW.match(line):
            rows.append("".join(row.groups()[1:]))
            if len(rows) == 3:
                board, rows, seen.boards = "".join(rows), [], seen.boards + 1
                if pending is not None:
                    assert board[pending[0]] == pending[1], "the AI's mark is not on the board"
                    pending = None
        elif ai := AI_LINE.match(line):
            mark, cell, roll, sign, level, decision, _ = ai.groups()
            index = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"].index(cell)
            assert board[index] == " ", "the AI played an occupied cell"
            assert hp is not None and int(level) == max(0, min(100, 100 - hp[1]))
            assert (int(roll) < int(level)) == (sign == "<") == (decision == "perfect")
            pending, seen.ai_moves = (index, mark), seen.ai_moves + 1
            seen.decisions.add(decision)
        elif line in RESULTS:
            status = RESULTS[line]
        elif hp_line := HP_LINE.match(line):
            human, d_human, ai_hp, d_ai, level = hp_line.groups()
            new = (int(human), int(ai_hp))
            if status is not None:
                assert hp is not None and new == expected_hp(status, *hp)
                assert (int(d_human), int(d_ai)) == (new[0] - hp[0], new[1] - hp[1])
                seen.games, status = seen.games + 1, None
            assert int(level) == max(0, min(100, 100 - new[1]))
            hp = new
        elif line.startswith("Match over: "):
            assert hp is not None
            seen.winner = "ai" if hp[0] <= 0 else "human"
            assert ("you win" in line) == (seen.winner == "human")
    return seen


# --- the whole game through a pipe ---------------------------------------------------


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_full_match_through_a_pipe(seed: int) -> None:
    proc = run_cli("play", "--seed", str(seed), stdin=SCAN_INPUT)
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert "    a   b   c" in proc.stdout
    assert "   ---+---+---" in proc.stdout
    seen = check_transcript(proc.stdout)
    assert seen.winner is not None
    assert seen.games == len(re.findall(r"^=== Game \d+: ", proc.stdout, re.MULTILINE))
    assert seen.games >= 3  # the human dies after three losses at the earliest
    assert seen.ai_moves > 0 and "random" in seen.decisions
    assert seen.boards > seen.ai_moves
    assert "Bye." not in proc.stdout


def test_same_seed_same_match() -> None:
    def without_timings(text: str) -> str:
        return re.sub(r"\(\d+ µs\)", "(? µs)", text)

    runs = [run_cli("play", "--seed", str(seed), stdin=SCAN_INPUT).stdout for seed in (5, 5, 6)]
    assert without_timings(runs[0]) == without_timings(runs[1])
    assert without_timings(runs[0]) != without_timings(runs[2])


@pytest.mark.parametrize(
    "script",
    ["q\n", "Q\n", "quit\n", "", "b2\n", "zz\n", "a1\nb1\nc1\n  q  \n"],
    ids=["q", "Q", "quit", "eof-at-once", "eof-after-a-move", "eof-after-bad-input", "q-later"],
)
def test_q_and_eof_quit_cleanly(script: str) -> None:
    proc = run_cli("play", "--seed", "3", stdin=script)
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert proc.stdout.endswith("\nBye.\n")
    assert "Match over" not in proc.stdout


def test_bad_input_reprompts_through_a_pipe() -> None:
    proc = run_cli("play", "--seed", "3", stdin="zz\nq\n")
    assert proc.returncode == 0
    assert "cannot read 'zz' as a cell" in proc.stdout
    assert proc.stdout.count("Your move (") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("play", "--human-hp", "0"), "your starting HP must be an integer from 1 to 100, got 0"),
        (
            ("play", "--ai-hp", "101"),
            "the AI's starting HP must be an integer from 1 to 100, got 101",
        ),
        (("play", "--human-hp", "-4"), "your starting HP must be an integer from 1 to 100, got -4"),
        (
            ("simulate", "--ai-hp", "0"),
            "the AI's starting HP must be an integer from 1 to 100, got 0",
        ),
        (("simulate", "--matches", "0"), "matches must be at least 1, got 0"),
    ],
)
def test_out_of_range_settings_are_refused(args: tuple[str, ...], message: str) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    # The HP messages name the rule (start_human_hp): the setting's name is in it.
    assert f"tictactoe {args[0]}: error: " in proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


# --- input, in process ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("zz", "cannot read 'zz' as a cell"),
        ("d1", "cannot read 'd1' as a cell"),
        ("3 3", "cannot read '3 3' as a cell"),
        ("b4", "cannot read 'b4' as a cell"),
        ("", "cannot read '' as a cell"),
    ],
)
def test_bad_input_reprompts(bad: str, message: str) -> None:
    out = play_in_process(f"{bad}\nq\n")
    assert f"{message}: use a1..c3 or 'row col' with 0-2. Try again, or q to quit." in out
    assert out.count("Your move (") == 2
    assert out.endswith("Bye.\n")


def test_taken_cell_reprompts() -> None:
    out = play_in_process("b2\nb2\nq\n")
    assert "b2 is already taken. Try again, or q to quit." in out
    assert out.count("Your move (") == 3


@pytest.mark.parametrize("typed", ["b2", "B2", " b2 ", "1 1", "1,1"])
def test_moves_as_names_or_row_col(typed: str) -> None:
    out = play_in_process(f"{typed}\nq\n", seed=first_seed("human"))
    assert "2     | X |  " in out  # the human, first, is X, now in the centre
    assert "Try again" not in out


def test_starting_hp_settings_are_used() -> None:
    out = play_in_process("q\n", rules=Rules(start_human_hp=40, start_ai_hp=70))
    assert out.splitlines()[1] == "HP: you 40, AI 70; difficulty 30%"


@pytest.mark.parametrize(("mode", "strategy"), list(FIXED_STRATEGIES.items()))
def test_fixed_modes_name_their_strategy(mode: str, strategy: str) -> None:
    out = play_in_process("\n".join(SCAN * 15) + "\n", mode=mode)
    assert f"{mode.capitalize()} match: the AI plays {strategy}; a record is kept." in out
    explanations = [line for line in out.splitlines() if line.startswith("AI (")]
    pattern = rf"AI \([XO]\) plays [abc][123]: {mode} mode, {strategy} \(\d+ µs\)"
    assert explanations and all(re.fullmatch(pattern, line) for line in explanations)
    games = sum(out.count(result) for result in RESULTS)
    assert games >= 2
    assert out.count("Record: won ") == games
    assert "HP:" not in out and "rolled" not in out
    assert out.endswith("Bye.\n")


# --- the simulator -------------------------------------------------------------------


@pytest.mark.parametrize("player", PLAYERS)
def test_simulation_adds_up(player: str) -> None:
    result = simulate(player, 40, random.Random(1))
    rows = result.hp_by_game
    assert (result.player, result.matches) == (player, 40)
    assert rows[0].game == 1 and rows[0].matches_reaching == 40
    assert [row.game for row in rows] == list(range(1, len(rows) + 1))
    reaching = [row.matches_reaching for row in rows]
    assert reaching == sorted(reaching, reverse=True) and reaching[-1] >= 1
    assert result.avg_games_per_match == pytest.approx(sum(reaching) / 40)
    assert result.human_match_win_rate == result.human_match_wins / 40
    assert all(row.human_hp <= 100 and row.ai_hp < 100 for row in rows)


def test_simulation_is_reproducible() -> None:
    runs = [simulate("heuristic", 30, random.Random(seed)) for seed in (4, 4, 5)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_perfect_human_against_a_nearly_dead_ai_always_wins_game_one() -> None:
    # A perfect human never loses a game, and a win (-10) or a draw (-2) ends the AI at 2 HP.
    result = simulate("perfect", 50, random.Random(2), rules=Rules(start_ai_hp=2))
    assert (result.human_match_win_rate, result.avg_games_per_match) == (1.0, 1.0)
    (row,) = result.hp_by_game
    assert row.matches_reaching == 50 and 90 <= row.human_hp <= 100 and row.ai_hp <= 0


def test_stronger_players_win_more_matches() -> None:
    rates = [simulate(p, 200, random.Random(8)).human_match_win_rate for p in PLAYERS]
    assert rates == sorted(rates) and rates[0] < rates[1] < rates[2]


@pytest.mark.parametrize("player", PLAYERS)
def test_each_simulated_match_ends_with_the_loser_out_of_hp(player: str) -> None:
    rng = random.Random(6)
    for _ in range(20):
        run = run_match(match_states(strategies.strategy(player), rng))
        human, ai = run.hp[-1]
        assert (human <= 0) == (run.winner == "ai")
        assert ai <= 0 or human <= 0
        assert all(h > 0 and a > 0 for h, a in run.hp[:-1])


@pytest.mark.parametrize(("player", "matches"), [("lookahead", 5), ("nobody", 5), ("random", 0)])
def test_bad_simulation_settings_are_refused(player: str, matches: int) -> None:
    with pytest.raises(MatchError) as caught:
        simulate(player, matches, random.Random(0))
    assert caught.value.code == "bad_setting"


def test_simulate_json_through_the_cli() -> None:
    args = ("simulate", "--player", "perfect", "--matches", "25", "--seed", "3", "--json")
    proc = run_cli(*args)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data == json.loads(render_json(simulate("perfect", 25, random.Random(3))))
    assert (data["player"], data["matches"]) == ("perfect", 25)
    assert 0 <= data["human_match_win_rate"] <= 1 and data["avg_games_per_match"] >= 1
    first = data["hp_by_game"][0]
    assert set(first) == {"game", "matches_reaching", "human_hp", "ai_hp"}
    assert (first["game"], first["matches_reaching"]) == (1, 25)


def test_simulate_text_through_the_cli() -> None:
    proc = run_cli("simulate", "--player", "random", "--matches", "30", "--seed", "3")
    assert proc.returncode == 0
    assert proc.stdout == render_text(simulate("random", 30, random.Random(3))) + "\n"
    assert "human won " in proc.stdout and "games per match: " in proc.stdout
    assert re.search(r"^   1       30  ", proc.stdout, re.MULTILINE)
