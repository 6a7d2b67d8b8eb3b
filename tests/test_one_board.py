"""One board and one vocabulary for every page: only static/js/board.js draws a board, and
only static/js/words.js words the AI's decisions, the values of moves and the verdicts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "static" / "js"
SCRIPTS = {path.name: path.read_text() for path in sorted(JS.glob("*.js"))}
TEMPLATES = {path.name: path.read_text() for path in sorted((ROOT / "templates").glob("*.html"))}

# What drawing a board takes: its grid cells, the cells' numbers, the X and O glyphs
# (strokes drawn by pathLength), the winning line, and the hint labels.
BOARD_MAKINGS = ('"gridcell"', "dataset.cell", "pathLength", "strike", "hint-label", "glyph(")

# Player-facing words of decisions, values and verdicts, as words.js writes them.
WORDINGS = (
    "played its best move",
    "moved at random",
    "the move with the best odds",
    "moves ahead and played",
    "a move looking two ahead",
    "three in a row",
    "the board is full",
    "draw with best play",
    "loses against best play",
    "win now",
    "of your moves",
    "a win in",
    "loses in",
    "the draw",
    "only draws",
    "an inaccuracy",
    "a mistake",
    "a blunder",
    "best move",
    "the better move",
    "That's your move again",
    "Also good",
    "You win!",
    "AI wins",
    "won the match",
    "AI gift",
    "was not played",
    "Arrow keys move between cells",
    "keys 1 to 9 play a cell",
    "of the time, else at random",
)


# board.js and the part it draws its grids with; only board.js imports that part.
BOARD_MODULE = ("board.js", "board_grid.js")


def test_only_board_js_draws_a_board() -> None:
    whole = "".join(SCRIPTS[name] for name in BOARD_MODULE)
    assert all(making in whole for making in BOARD_MAKINGS)
    for name, text in SCRIPTS.items():
        if name in BOARD_MODULE:
            continue
        found = [making for making in BOARD_MAKINGS if making in text]
        assert not found, (name, found)
        assert "./board_grid.js" not in text, name


def test_no_template_draws_a_board() -> None:
    for name, text in TEMPLATES.items():
        assert not re.search(r'role="(grid|row|gridcell)"|data-cell|class="strike"', text), name


@pytest.mark.parametrize("words", WORDINGS)
def test_each_wording_is_written_in_words_js_and_no_view(words: str) -> None:
    # A page's own wording module (words_lab.js) may say it within a longer sentence.
    assert words in SCRIPTS["words.js"], words
    views = [name for name in SCRIPTS if not name.startswith("words")]
    elsewhere = [name for name in views if words in SCRIPTS[name]]
    assert not elsewhere, (words, elsewhere)


def test_the_ai_page_derives_no_refusal() -> None:
    # What may be played is the server's to say: the page sends the move and shows the
    # answer. The one refusal of its own is a move while not connected.
    view = SCRIPTS["view.js"]
    assert "refusalOf" not in view
    assert not re.search(r"board\[cell\]\s*!==", view)
    assert "offlineMoveWords" in view and "offlineMoveWords" in SCRIPTS["roomview.js"]


def test_no_page_judges_a_verdict() -> None:
    # Which verdicts make a game worth practising is the server's to say (`can_practise`).
    for name, text in SCRIPTS.items():
        if name != "words.js":  # which words say them, not what follows from them
            assert not re.search(r'"(inaccuracy|mistake|blunder)"', text), name


def test_words_js_is_a_flat_list_of_exports() -> None:
    # Imports at the top, then declarations only: no code runs when it loads.
    lines = [line for line in SCRIPTS["words.js"].splitlines() if line and line[0] not in " /}*)]"]
    starts = ("import ", "export const ", "export function ", "const ", "function ")
    assert all(line.startswith(starts) for line in lines), [
        line for line in lines if not line.startswith(starts)
    ]
