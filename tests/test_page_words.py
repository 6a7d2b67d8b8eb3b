"""The rules dialog's and the lab's own words: each written once, in its page's wording
module (static/js/words_rules.js, words_lab.js), and their views in modules of one
concern each, none long enough to hide a second."""

from __future__ import annotations

from pathlib import Path

import pytest

JS = Path(__file__).resolve().parent.parent / "static" / "js"
SCRIPTS = {path.name: path.read_text() for path in sorted(JS.glob("*.js"))}
WORDING = ("words.js", "words_rules.js", "words_lab.js")
VIEWS = [name for name in SCRIPTS if name.startswith(("rules", "lab"))]
# The longest a view module of the rules dialog or the lab may grow: past it, cut by concern.
MOST_LINES = 250

# Words the rules dialog and the lab show, each by the wording module that writes them.
PAGE_WORDINGS = (
    ("words_rules.js", "coin toss for who starts"),
    ("words_rules.js", "rules tuned for you"),
    ("words_rules.js", "A perfect player wins this match"),
    ("words_rules.js", "No odds just now"),
    ("words_rules.js", "is under way."),
    ("words_rules.js", "The new match: "),
    ("words_rules.js", "Lock at "),
    ("words_rules.js", "A seed is 1 to 64 letters"),
    ("words_rules.js", "a whole number from"),
    ("words_rules.js", "Those settings were refused"),
    ("words_rules.js", "Not started: "),
    ("words_rules.js", "Working out the rules"),
    ("words_rules.js", "No rules just now"),
    ("words_lab.js", "Position to search"),
    ("words_lab.js", "Position at this step"),
    ("words_lab.js", "Running the search"),
    ("words_lab.js", ": pruned"),
    ("words_lab.js", "No more cuts in this search."),
    ("words_lab.js", "No answer"),
)


@pytest.mark.parametrize(("module", "words"), PAGE_WORDINGS)
def test_each_page_wording_is_written_once_in_its_module(module: str, words: str) -> None:
    assert words in SCRIPTS[module], words
    elsewhere = [name for name, text in SCRIPTS.items() if name != module and words in text]
    assert not elsewhere, (words, elsewhere)


@pytest.mark.parametrize("module", WORDING[1:])
def test_a_page_wording_module_is_a_flat_list_of_exports(module: str) -> None:
    # Imports at the top, then declarations only: no code runs when it loads.
    lines = [line for line in SCRIPTS[module].splitlines() if line and line[0] not in " /}*)]"]
    starts = ("import ", "export const ", "export function ", "const ", "function ")
    assert lines and all(line.startswith(starts) for line in lines), module


def test_error_codes_become_words_in_one_function() -> None:
    # The rules dialog and the lab word an error code only through errorWords.
    for name in VIEWS + list(WORDING[1:]):
        if "ERROR_MESSAGES" in SCRIPTS[name]:
            assert name == "words_rules.js", name
    assert "export const errorWords = " in SCRIPTS["words_rules.js"]


def test_the_rules_dialog_and_the_lab_are_views_of_one_concern_each() -> None:
    assert {"rules.js", "rules_form.js", "lab.js", "lab_tree.js", "lab_steps.js"} <= set(VIEWS)
    long = {name: SCRIPTS[name].count("\n") for name in VIEWS}
    assert all(lines <= MOST_LINES for lines in long.values()), long
