"""One wording module: every word a page shows is written in static/js/words.js or one of
its per-page companions (words_*.js); no other script holds a user-visible string.

What counts as words, in a string literal outside the wording modules (comments and
import lines aside; a template's `${...}` counts as one digit, its inner literals apart):
- a literal with a space and a run of two letters ("Link copied", `${n} watching`);
- a literal that begins with a capital letter ("Replay", "AI", `Game ${n}`);
- any literal written straight into what a page shows: `textContent`, `title`,
  `placeholder`, `ariaLabel` or `setAttribute("aria-label" | "title" | "placeholder")`,
  or handed to `announce(` ("away" as much as "Away").
A single lowercase word elsewhere is taken for a code, a key or a class ("human",
"is-offline"); the few literals that match a rule without being words are listed below,
each with why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "static" / "js"
WORDING = re.compile(r"words(_[a-z]+)?\.js")

# Literals that match a rule and are no words: selectors, class lists, SVG attributes,
# Web Crypto's and the DOM's own names, keys, HTTP headers.
NOT_WORDS = {
    ".dice-details, .dice-seed": "CSS selector",
    "#actions :focus": "CSS selector",
    "#replay-moves li": "CSS selector",
    "button, input, select, summary, a[href]": "CSS selector",
    "(prefers-reduced-motion: reduce)": "media query",
    "(max-width: 860px)": "media query",
    "btn btn-small": "class names",
    "key key-0": "class names",
    "rotate(-90 12 0)": "SVG transform",
    "HMAC": "Web Crypto algorithm",
    "SHA-256": "Web Crypto algorithm",
    "Ed25519": "Web Crypto algorithm",
    "NotSupportedError": "DOMException name",
    "Home": "key",
    "End": "key",
    "Tab": "key",
    "Enter": "key",
    "POST": "HTTP method",
    "Retry-After": "HTTP header",
    "X": "a mark, as the protocol writes it",
    "O": "a mark, as the protocol writes it",
    "XO..X....": "a board, as the protocol writes it",
}

SHOWN = re.compile(
    r"(?:\.(?:textContent|title|placeholder|ariaLabel)\s*=|"
    r"setAttribute\(\s*\"(?:aria-label|title|placeholder)\",|announce\()\s*$"
)


def literals(source: str) -> Iterator[tuple[int, str, str]]:
    """Each string literal of a script: (line, text, the code just before it)."""
    yield from _scan(source, 0, len(source), "")


def _scan(source: str, at: int, end: int, stop: str) -> Iterator[tuple[int, str, str]]:
    depth = 0
    regex_may_start = True
    while at < end:
        char = source[at]
        two = source[at : at + 2]
        if two == "//":
            at = source.find("\n", at)
            at = end if at < 0 else at
        elif two == "/*":
            at = source.index("*/", at) + 2
        elif char in "\"'`":
            text, after, inner = _string(source, at)
            line = source.count("\n", 0, at) + 1
            yield line, text, source[max(0, source.rfind("\n", 0, at)) : at]
            yield from inner
            at, regex_may_start = after, False
        elif char == "/" and regex_may_start:
            at = _regex_end(source, at)
            regex_may_start = False
        else:
            if char == "{":
                depth += 1
            elif char == "}":
                if stop and depth == 0:
                    return
                depth -= 1
            if not char.isspace():
                # A slash after an operator or `return` opens a regex; after a value, divides.
                after_operator = char in "(,=:[!&|?{};+-*%<>~^"
                regex_may_start = after_operator or source.endswith("return", 0, at + 1)
            at += 1


def _string(source: str, at: int) -> tuple[str, int, list[tuple[int, str, str]]]:
    """The text of the literal opening at `at`, where it ends, and literals nested in it."""
    quote = source[at]
    text: list[str] = []
    inner: list[tuple[int, str, str]] = []
    at += 1
    while source[at] != quote:
        if source[at] == "\\":
            text.append(source[at : at + 2])
            at += 2
        elif quote == "`" and source.startswith("${", at):
            close = _matching_brace(source, at + 1)
            inner.extend(_scan(source, at + 2, close, ""))
            text.append("0")
            at = close + 1
        else:
            text.append(source[at])
            at += 1
    return "".join(text), at + 1, inner


def _matching_brace(source: str, at: int) -> int:
    depth = 0
    while True:
        char = source[at]
        if char in "\"'`":
            at = _string(source, at)[1]
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return at
        at += 1


def _regex_end(source: str, at: int) -> int:
    at += 1
    in_class = False
    while source[at] != "/" or in_class:
        if source[at] == "\\":
            at += 1
        elif source[at] == "[":
            in_class = True
        elif source[at] == "]":
            in_class = False
        at += 1
    return at + 1


def is_words(text: str, before: str) -> bool:
    """Whether a literal outside the wording modules is words a page would show."""
    if text in NOT_WORDS or not text:
        return False
    if SHOWN.search(before):
        return True
    spaced = re.search(r"\s", text) and re.search(r"[A-Za-z]{2}", text)
    return bool(spaced or re.match(r"[A-Z]", text))


def words_in(source: str) -> list[tuple[int, str]]:
    """The user-visible literals of a script, by line."""
    code = "\n".join("" if line.startswith("import ") else line for line in source.split("\n"))
    return [(line, text) for line, text, before in literals(code) if is_words(text, before)]


SCRIPTS = sorted(path.name for path in JS.glob("*.js") if not WORDING.fullmatch(path.name))


@pytest.mark.parametrize("name", SCRIPTS)
def test_no_words_outside_the_wording_modules(name: str) -> None:
    found = words_in((JS / name).read_text())
    assert not found, (name, found)


def test_the_allow_lists_are_all_used() -> None:
    # An entry nothing matches any more goes, so that the lists stay short and true.
    seen = {text for name in SCRIPTS for _line, text, _before in literals((JS / name).read_text())}
    assert set(NOT_WORDS) <= seen, set(NOT_WORDS) - seen


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('el.textContent = "Link copied";', [(1, "Link copied")]),
        ('el.textContent = "away";', [(1, "away")]),
        ('announce("here");', [(1, "here")]),
        ('button.setAttribute("aria-label", "close");', [(1, "close")]),
        ("const t = `${n} watching`;", [(1, "0 watching")]),
        ("const t = `Game ${n}`;", [(1, "Game 0")]),
        ('const a = cond ? `${x ? "You won" : "x"}` : "";', [(1, "You won")]),
        ('const who = "human"; // "Not this"', []),
        ('/* "Nor this one" */ const s = ".dice-details, .dice-seed";', []),
        ('const r = /^"[a-i] b"/.test(x); const k = "ai";', []),
        ('import { a } from "./words.js";', []),
    ],
)
def test_what_counts_as_words(source: str, found: list[tuple[int, str]]) -> None:
    assert words_in(source) == found


# The longest a module other than the wording ones may grow: past it, cut it by concern
# (a view is a module of one concern, not one long closure).
MOST_LINES = 300


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_module_is_short_enough_to_hold_one_concern(name: str) -> None:
    assert (JS / name).read_text().count("\n") <= MOST_LINES


def test_error_codes_become_words_in_one_function() -> None:
    sources = {path.name: path.read_text() for path in JS.glob("*.js")}
    lookups = [name for name, text in sources.items() if "ERROR_MESSAGES[" in text]
    defined = [
        name
        for name, text in sources.items()
        if re.search(r"\berrorWords\s*=|function errorWords\b", text)
    ]
    assert lookups == ["words.js"] and defined == ["words.js"], (lookups, defined)


@pytest.mark.parametrize("name", sorted(path.name for path in JS.glob("words*.js")))
def test_a_wording_module_only_declares(name: str) -> None:
    # Imports at the top, then declarations only: no code runs when it loads.
    lines = [
        line for line in (JS / name).read_text().splitlines() if line and line[0] not in " /}*)]"
    ]
    starts = ("import ", "export const ", "export function ", "const ", "function ", "export {")
    assert lines and all(line.startswith(starts) for line in lines), [
        line for line in lines if not line.startswith(starts)
    ]
