"""``tictactoe solve`` and ``play`` beyond classic, and the opening books cached in the
data dir (webapp/server/store/books.py), in-process and as a real process."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from webapp.cli import main
from webapp.game import engine
from webapp.game.book import Book, build_book
from webapp.game.variant import variant_named
from webapp.server.store import books

ROOT = Path(__file__).resolve().parent.parent

# Every reachable classic board, then odd spellings and bad boards, as piped to `solve`;
# the digest is of the output of `tictactoe solve` before it took --variant.
CLASSIC_INPUT = [
    *sorted(engine.solved()),
    *["xx-oo    ", "XXXOOO...", "bad", "X..Z.....", "XX.......", "", "  ", "XX.OO....\r"],
]
CLASSIC_DIGEST = "824dff5b9ed00def85dfb832fb0536d42fd90c117178d0ff936ea67394a5aeb0"
CLASSIC_BYTES = 1_109_994


def run(
    capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str = ""
) -> tuple[int, str, str]:
    """Run the command in-process; its exit code, stdout and stderr."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        patch.delenv("TICTACTOE_DATA_DIR", raising=False)
        try:
            code = main(argv)
        except SystemExit as exit:
            code = int(exit.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def cli(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``tictactoe`` as a real process, no data dir in its environment unless given."""
    environ = {k: v for k, v in os.environ.items() if k != "TICTACTOE_DATA_DIR"}
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**environ, **(env or {})},
        cwd=ROOT,
        timeout=120,
        check=False,
    )


# --- solve --------------------------------------------------------------------------------


def test_solve_classic_is_byte_for_byte_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in ([], ["--variant", "classic"]):
        code, out, err = run(capsys, ["solve", *flags], stdin="\n".join(CLASSIC_INPUT) + "\n")
        assert code == 2  # the bad boards among them
        digest = hashlib.sha256(out.encode()).hexdigest()
        assert (len(out), digest) == (CLASSIC_BYTES, CLASSIC_DIGEST)
        assert err == ""


@pytest.mark.parametrize(
    ("name", "board", "result"),
    [
        ("misere", ".........", "draw"),
        ("4x4k3", "................", "win"),
        ("notakto1", ".........", "win"),
        ("notakto2", "........./.........", "loss"),
    ],
)
def test_solve_gives_each_variants_value_from_the_empty_board(
    capsys: pytest.CaptureFixture[str], name: str, board: str, result: str
) -> None:
    code, out, _ = run(capsys, ["solve", "--variant", name, board])
    assert code == 0
    (record,) = records(out)
    assert (record["board"], record["to_move"], record["result"]) == (board, "X", result)
    cells = variant_named(name).cells
    assert sorted(map(int, record["moves"])) == list(range(cells))
    assert {record["moves"][str(cell)]["result"] for cell in record["best"]} == {result}


def test_solve_4x4_wins_at_once_and_keys_several_boards_by_board_and_cell(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, ["solve", "--variant", "4x4k3", "XX..OO.........."])
    assert code == 0
    (four,) = records(out)
    assert four["moves"]["2"] == {"result": "win", "plies": 1}
    assert four["best"] == [2]
    assert four["to_move"] == "X" and len(four["moves"]) == 12

    code, out, _ = run(
        capsys, ["solve", "--variant", "notakto3"], stdin="XX......./XX......./.........\n"
    )
    assert code == 0
    (three,) = records(out)
    assert sorted(map(int, three["moves"])) == [c for c in range(27) if c not in (0, 1, 9, 10)]
    # Cell 2 of board 1 and cell 2 of board 2 (index 9 + 2) each kill a board.
    assert three["moves"]["2"] == three["moves"]["11"]
    assert three["board"] == "XX......./XX......./........."


def test_solve_refuses_bad_boards_and_variants(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, said = run(
        capsys, ["solve", "--variant", "4x4k4", "X........", "X...O..........O", "..../"]
    )
    assert code == 2
    short, counts, slash = records(out)
    assert short == {
        "board": "X........",
        "error": {"code": "bad_length", "message": "a board has 16 cells, got 9"},
    }
    assert counts["error"]["code"] == "bad_counts"
    assert slash["error"]["code"] == "bad_boards"

    assert "opening book" not in said  # boards refused need no book: none was built

    code, out, err = run(capsys, ["solve", "--variant", "5x5", "........."])
    assert code == 2 and out == ""
    assert "no variant is called '5x5': choose one of classic, misere, 4x4k3" in err


# --- play ---------------------------------------------------------------------------------


def scan(variant_name: str, rounds: int) -> str:
    """A player who tries every cell in turn: each move lands within one round of names."""
    variant = variant_named(variant_name)
    names = [variant.cell_name(cell) for cell in range(variant.cells)]
    return "\n".join(names * rounds) + "\n"


def test_play_classic_is_the_hp_match_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    def without_timings(text: str) -> str:
        return re.sub(r"\(\d+ µs\)", "(? µs)", text)

    script = scan("classic", 40)
    runs = [
        run(capsys, ["play", "--seed", "4", *flags], script)
        for flags in ([], ["--variant", "classic"])
    ]
    assert runs[0][0] == runs[1][0] == 0
    assert without_timings(runs[0][1]) == without_timings(runs[1][1])
    assert "Adaptive match" in runs[1][1]


def test_play_4x4k3_the_ai_wins_every_game_it_starts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, ["play", "--variant", "4x4k3"], scan("4x4k3", 60))
    assert code == 0
    games = out.split("\n=== Game ")
    assert games[1].startswith("1: you move first ===") and games[2].startswith("2: the AI")
    assert "    a   b   c   d\n1 " in out and "   ---+---+---+---" in out
    # The first player wins 4x4k3: the perfect AI wins each even game, whatever the player.
    for game in games[2::2]:
        assert "Record:" not in game or "The AI wins this game." in game
    assert "The AI wins this game.\nRecord: won" in games[2]
    assert out.endswith("Bye.\n")


def test_play_notakto2_marks_dead_boards_and_reads_board_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    script = "a1\n1:a1\n1:b1\n1:c1\n" + scan("notakto2", 20)
    code, out, _ = run(capsys, ["play", "--variant", "notakto2"], script)
    assert code == 0
    assert "'a1' names no board: use 1:a1..2:c3 (board, column, row)" in out
    assert "board 1           board 2\n" in out
    assert re.search(r"^board 1: dead +board 2$|^board 1 +board 2: dead$", out, re.MULTILINE)
    # notakto2 is a second player's win: the AI, second in game 1, wins it.
    game_one = out.split("\n=== Game ")[1]
    assert "Your move (X): " in game_one and "AI (X) plays " in game_one
    assert "The AI wins this game.\nRecord: won 0, lost 1, drawn 0" in game_one


def test_play_refuses_match_flags_beyond_classic(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["play", "--variant", "misere", "--mode", "hard", "--ai-hp", "9"])
    assert code == 2 and out == ""
    assert "on misere the AI plays perfectly" in err and "--mode" in err and "--ai-hp" in err


# --- the books cached in the data dir -----------------------------------------------------


def test_a_book_is_built_and_cached_once_then_loaded_by_the_next_process(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    path = data_dir / "books" / "notakto2.book"
    first = cli(
        "solve", "--variant", "notakto2", "--data-dir", str(data_dir), "X......../........."
    )
    assert first.returncode == 0
    built = r"tictactoe: built the notakto2 opening book in \d+\.\d s, cached in "
    assert re.fullmatch(built + re.escape(str(path)) + "\n", first.stderr)
    assert path.stat().st_mode & 0o777 == 0o600
    assert (data_dir / "books").stat().st_mode & 0o777 == 0o700
    assert [p.name for p in (data_dir / "books").iterdir()] == ["notakto2.book"]

    second = cli(
        "solve", "--variant", "notakto2", "X......../.........",
        env={"TICTACTOE_DATA_DIR": str(data_dir)},
    )  # fmt: skip
    assert second.returncode == 0
    assert second.stderr == f"tictactoe: loaded the notakto2 opening book from cache, {path}\n"
    assert second.stdout == first.stdout
    assert json.loads(second.stdout)["result"] == "win"  # the second player's, to move


def test_a_damaged_cached_book_is_rebuilt_and_said(tmp_path: Path) -> None:
    path = tmp_path / "books" / "notakto1.book"
    first = cli("solve", "--variant", "notakto1", "--data-dir", str(tmp_path), ".........")
    assert first.returncode == 0
    whole = path.read_bytes()
    path.write_bytes(whole[:-7])  # cut short, as by a full disk
    again = cli("solve", "--variant", "notakto1", "--data-dir", str(tmp_path), ".........")
    assert again.returncode == 0
    damaged, built = again.stderr.splitlines()
    assert damaged.startswith(f"tictactoe: the cached notakto1 opening book in {path} is damaged (")
    assert damaged.endswith("): rebuilding")
    assert built.startswith("tictactoe: built the notakto1 opening book in ")
    assert path.read_bytes() == whole
    assert json.loads(again.stdout)["result"] == "win"


def test_without_a_data_dir_the_book_is_built_in_memory(tmp_path: Path) -> None:
    proc = cli("solve", "--variant", "misere", ".........", env={"HOME": str(tmp_path)})
    assert proc.returncode == 0
    assert proc.stderr.startswith("tictactoe: built the misere opening book in ")
    assert proc.stderr.endswith(" s, kept in memory (no data dir to cache it in)\n")
    assert list(tmp_path.iterdir()) == []


def _cached(tmp_path: Path, name: str, data: bytes) -> list[str]:
    """Load ``name``'s book from a cache file holding ``data``; the lines said."""
    path = books.book_path(tmp_path, variant_named(name))
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    said: list[str] = []
    books._loaded.clear()
    book = books.opening_book(variant_named(name), tmp_path, say=said.append)
    assert isinstance(book, Book) and book.variant.name == name
    return said


def test_a_cached_book_whose_digest_or_variant_or_depth_is_wrong_is_rebuilt(
    tmp_path: Path,
) -> None:
    variant = variant_named("notakto1")
    good = books.cache_bytes(build_book(variant))
    body_start = good.index(b"\n") + 1
    flipped = bytearray(good)
    flipped[-1] ^= 1  # a score's low bit: the book's own checks cannot see it
    other = books.cache_bytes(build_book(variant_named("misere")))
    shallow = books.cache_bytes(build_book(variant, depth=3))
    for data, reason in [
        (bytes(flipped), "its digest does not match its bytes"),
        (b"sha256 0\n" + good[body_start:], "its digest does not match its bytes"),
        (other, "this book is for 'misere', not 'notakto1'"),
        (shallow, "it goes 3 plies deep, this release's 9"),
    ]:
        said = _cached(tmp_path, "notakto1", data)
        assert said[0].endswith(f"is damaged ({reason}): rebuilding")
        assert said[1].startswith("built the notakto1 opening book in ")
        assert books.book_path(tmp_path, variant).read_bytes() == good
    assert _cached(tmp_path, "notakto1", good) == [
        f"loaded the notakto1 opening book from cache, {books.book_path(tmp_path, variant)}"
    ]
    books._loaded.clear()
