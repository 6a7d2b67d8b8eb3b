"""The ``tictactoe`` command: solve, stats and selfplay, in-process and as a real process."""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.testing import TREE_STATS

from webapp.cli import main
from webapp.game import engine
from webapp.game.board import Board

pytestmark = pytest.mark.shared_server  # one live server, each test a new player


def run(
    capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str | None = None
) -> tuple[int, str]:
    """Run the command in-process; return its exit code and stdout."""
    if stdin is not None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sys, "stdin", io.StringIO(stdin))
            code = main(argv)
    else:
        code = main(argv)
    return code, capsys.readouterr().out


def json_lines(out: str) -> list[dict[str, Any]]:
    """One JSON object per non-empty line."""
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def results(out: str) -> list[str]:
    """The ``Result:`` lines of selfplay output."""
    return re.findall(r"^Result: (.+)$", out, re.MULTILINE)


def tictactoe_command() -> list[str]:
    """The installed console script if present, else the module."""
    script = Path(sys.executable).with_name("tictactoe")
    return [str(script)] if script.exists() else [sys.executable, "-m", "webapp.cli"]


# --- solve ------------------------------------------------------------------------------


def test_solve_boards_from_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["solve", "XX.OO....", ".X...XOOX", "........."])
    assert code == 0
    records = json_lines(out)
    assert [r["board"] for r in records] == ["XX.OO....", ".X...XOOX", "........."]
    assert records[0] == engine.analyse(Board.parse("XX.OO....")).to_dict()
    assert records[0]["best"] == [2]
    assert records[0]["result"] == "win"
    assert records[1]["best"] == [2]
    assert (records[1]["result"], records[1]["plies"]) == ("loss", 4)
    assert (records[2]["result"], records[2]["plies"]) == ("draw", 9)
    assert records[2]["best"] == list(range(9))


def test_solve_normalises_input_spellings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["solve", "xx-oo    "])
    assert code == 0
    (record,) = json_lines(out)
    assert record["board"] == "XX.OO...."
    assert record["best"] == [2]


def test_solve_reads_one_board_per_line_from_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["solve"], stdin="XX.OO....\n\nOXO.X.X..\r\nX...O...X\n")
    assert code == 0
    records = json_lines(out)
    assert [r["board"] for r in records] == ["XX.OO....", "OXO.X.X..", "X...O...X"]
    assert records[1]["best"] == [7]
    assert records[2]["best"] == [1, 3, 5, 7]


def test_solve_reports_invalid_boards_and_continues(capsys: pytest.CaptureFixture[str]) -> None:
    stdin = "XX.OO....\nXXXOOO...\nbad\nX..Z.....\nOXO.X.X..\n"
    code, out = run(capsys, ["solve"], stdin=stdin)
    assert code == 2
    records = json_lines(out)
    assert len(records) == 5
    assert "error" not in records[0]
    assert [r["board"] for r in records[1:4]] == ["XXXOOO...", "bad", "X..Z....."]
    codes = [r["error"]["code"] for r in records[1:4]]
    assert codes == ["two_winners", "bad_length", "bad_character"]
    for record in records[1:4]:
        assert set(record) == {"board", "error"}
        assert set(record["error"]) == {"code", "message"}
        assert record["error"]["message"]
    assert records[4]["best"] == [7]


def test_solve_invalid_argument_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["solve", "XX.......", "........."])
    assert code == 2
    first, second = json_lines(out)
    assert first["error"]["code"] == "bad_counts"
    assert second["result"] == "draw"


def test_solve_every_valid_position(capsys: pytest.CaptureFixture[str]) -> None:
    boards = sorted(engine.solved())
    code, out = run(capsys, ["solve"], stdin="\n".join(boards) + "\n")
    assert code == 0
    records = json_lines(out)
    assert [r["board"] for r in records] == boards
    assert all("error" not in r for r in records)


# --- stats ------------------------------------------------------------------------------


def test_stats_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["stats", "--json"])
    assert code == 0
    assert json.loads(out) == TREE_STATS


def test_stats_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["stats"])
    assert code == 0
    assert re.search(r"^positions\s+5,478$", out, re.MULTILINE)
    assert re.search(r"^tree nodes\s+549,946$", out, re.MULTILINE)
    assert len(out.splitlines()) == len(TREE_STATS)


# --- selfplay ---------------------------------------------------------------------------


def test_selfplay_random_vs_perfect(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["selfplay", "--x", "random", "--o", "perfect", "--seed", "1"])
    assert code == 0
    assert out.startswith("X: random   O: perfect")
    boards = out.count("    a   b   c")
    moves = re.findall(r"^([XO]) \((random|perfect)\) plays ([abc][123])$", out, re.MULTILINE)
    assert boards == len(moves) + 1
    assert [mover for mover, _, _ in moves] == ["X", "O"] * (len(moves) // 2) + ["X"] * (
        len(moves) % 2
    )
    assert all(name == ("random" if mover == "X" else "perfect") for mover, name, _ in moves)
    assert results(out) in (["O wins"], ["draw"])


def test_selfplay_is_reproducible_with_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "--x", "random", "--o", "random", "--seed", "5"]
    _, first = run(capsys, argv)
    _, second = run(capsys, argv)
    assert first == second
    games = {run(capsys, [*argv[:-1], str(seed)])[1] for seed in range(6)}
    assert len(games) > 1


@pytest.mark.parametrize("seed", range(8))
def test_selfplay_perfect_vs_perfect_is_a_draw(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    code, out = run(capsys, ["selfplay", "--seed", str(seed)])
    assert code == 0
    assert results(out) == ["draw"]
    assert len(re.findall(r"plays [abc][123]$", out, re.MULTILINE)) == 9


@pytest.mark.parametrize("seed", range(8))
def test_selfplay_perfect_never_loses_to_random(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    _, out = run(capsys, ["selfplay", "--x", "perfect", "--o", "random", "--seed", str(seed)])
    assert results(out) in (["X wins"], ["draw"])


def test_selfplay_rejects_unknown_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["selfplay", "--x", "genius"])
    assert caught.value.code == 2
    assert "genius" in capsys.readouterr().err


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main([])
    assert caught.value.code == 2
    assert "usage" in capsys.readouterr().err


# --- as a real process ----------------------------------------------------------------


def test_solve_as_a_subprocess() -> None:
    proc = subprocess.run(
        [*tictactoe_command(), "solve"],
        input="OXO.X.X..\nnope\n.X...XOOX\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    first, bad, last = json_lines(proc.stdout)
    assert first["best"] == [7]
    assert bad == {"board": "nope", "error": bad["error"]}
    assert bad["error"]["code"] == "bad_length"
    assert last["best"] == [2]


def test_stats_as_a_subprocess() -> None:
    proc = subprocess.run(
        [*tictactoe_command(), "stats", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(proc.stdout) == TREE_STATS


def test_selfplay_as_a_subprocess() -> None:
    proc = subprocess.run(
        [*tictactoe_command(), "selfplay", "--x", "random", "--o", "perfect", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.count("    a   b   c") >= 6
    assert results(proc.stdout) in (["O wins"], ["draw"])


def test_readme_command_table_matches_the_commands_own_help() -> None:
    # Every command and every option of it is in README's table, and nothing else is.
    from webapp.cli.main import build_parser
    from webapp.game.rules import RULE_FIELDS

    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    rule_flags = {rule.flag for rule in RULE_FIELDS} | {"--preset"}
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## The command line", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ")[0] for line in section.splitlines() if line.startswith("| `")]
    listed = {m for row in rows for m in re.findall(r"`tictactoe ((?:--)?\w[\w-]*)", row)}
    assert listed == set(commands.choices) | {"--version"}
    for name, command in commands.choices.items():
        (row,) = [row for row in rows if re.search(rf"`tictactoe {name}\b", row)]
        flags = {
            flag
            for action in command._actions
            for flag in action.option_strings
            if flag.startswith("--") and flag != "--help"
        }
        missing = {flag for flag in flags - rule_flags if flag not in row}
        assert not missing, f"README's row for {name} lacks {sorted(missing)}"
        if flags & rule_flags:
            assert "[rule flags]" in row and "--preset" in row, name


# --- explain ----------------------------------------------------------------------------


def test_explain_json_near_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["explain", "XOXOXO...", "--prune", "--json"])
    assert code == 0
    record = json.loads(out)
    assert record["board"] == "XOXOXO..."
    assert record["best"] == "a3"
    assert record["values"] == {
        "a3": {"value": 9, "bound": "exact"},
        "b3": {"value": 9, "bound": "at most"},
        "c3": {"value": 9, "bound": "exact"},
    }
    assert record["counts"]["minimax"] == 8
    assert record["counts"]["alphabeta"] == 6
    assert record["cuts"]["alphabeta"] == 1
    assert len(record["counts"]) == len(record["seconds"]) == 8
    assert "ties go to the lowest cell" in record["why"]


@pytest.mark.parametrize(
    ("scoring", "values"),
    [("result", {"c1": 1, "c2": 0}), ("empties", {"c1": 5, "c2": 0})],
)
def test_explain_scorings(
    capsys: pytest.CaptureFixture[str], scoring: str, values: dict[str, int]
) -> None:
    code, out = run(capsys, ["explain", "XX.OO....", "--scoring", scoring, "--json"])
    assert code == 0
    record = json.loads(out)
    assert {k: record["values"][k]["value"] for k in values} == values
    assert record["best"] == "c1"


def test_explain_empty_board_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["explain", ".........", "--json", "--symmetry", "--table"])
    assert code == 0
    record = json.loads(out)
    assert record["counts"]["minimax"] == TREE_STATS["tree_nodes"]
    assert record["counts"]["alphabeta"] == 20_866
    assert record["counts"]["minimax+table+symmetry"] == 8_307
    assert record["best"] == "a1"


def test_explain_answers_costly_counts_from_the_shipped_ones(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The empty board's plain minimax is not re-counted: its counts and times are the
    # shipped ones, with the date they were measured.
    from webapp.game import lab
    from webapp.server.services.lab.counts import shipped_counts

    def no_counting(*_: object) -> None:
        raise AssertionError("counted again")

    monkeypatch.setattr(lab, "measure", no_counting)
    code, out = run(capsys, ["explain", ".........", "--json"])
    record = json.loads(out)
    assert code == 0 and record["measured"] == shipped_counts()[0]
    assert record["counts"]["minimax"] == TREE_STATS["tree_nodes"]
    assert record["seconds"]["minimax"] > 0
    code, out = run(capsys, ["explain", "X........", "--scoring", "result"])
    assert code == 0 and f"times measured {shipped_counts()[0]}" in out


def test_explain_counts_what_the_shipped_counts_do_not_cover(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(capsys, ["explain", "XOXOXO...", "--json"])
    assert code == 0 and json.loads(out)["measured"] is None
    code, out = run(capsys, ["explain", ".........", "--depth", "2"])
    assert code == 0 and "times measured now" in out


def test_explain_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, ["explain", "XOXOXO...", "--depth", "2", "--scoring", "share"])
    assert code == 0
    assert out.startswith("XOXOXO...  X to move, scoring share")
    assert re.search(r"^alphabeta\s+\d+\s+\d+\s+\d+\s+[\d.]+$", out, re.MULTILINE)
    assert "X plays a3" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["XXXOOO..."], "both sides cannot have a line"),
        (["XX......."], "X moves first"),
        (["XOXOXO...", "--depth", "0"], "at least 1 ply"),
    ],
)
def test_explain_illegal_board_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code = main(["explain", *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert said in captured.err
    assert captured.out == ""
