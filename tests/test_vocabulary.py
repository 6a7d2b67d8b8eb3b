"""One vocabulary: the protocol's names agree across the server, the page and the docs."""

from __future__ import annotations

import re
from pathlib import Path

from webapp.game.board import cell_name
from webapp.game.rules import MODES
from webapp.server.protocol.vocabulary import (
    CELL_NAMES,
    MODE_CHOICES,
    ErrorCode,
    Event,
    RefusalCode,
    ServerEvent,
)

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_JS = (ROOT / "static" / "js" / "protocol.js").read_text()
WORDS_JS = (ROOT / "static" / "js" / "words.js").read_text()
PROTOCOL_MD = (ROOT / "docs" / "protocol.md").read_text()
CLIENT_ONLY = {"offline", "timeout", "bad_reply"}


def js_object(name: str, script: str = PROTOCOL_JS) -> dict[str, str]:
    """The key -> string-value pairs of ``export const NAME = Object.freeze({...})``."""
    body = re.search(rf"export const {name} = Object\.freeze\(\{{(.*?)\}}\);", script, re.S)
    assert body, name
    return dict(re.findall(r'(\w+): "([^"]*)"', body[1]))


def md_table(heading: str) -> list[str]:
    """The first column (backticked names) of the table under ``heading``."""
    section = PROTOCOL_MD.split(heading, 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, re.M)


def test_events_agree() -> None:
    assert sorted(js_object("EVENTS").values()) == sorted(Event)
    sections = ("## Client to server", "## Rooms", "## History", "## Lab")
    documented = [name for section in sections for name in md_table(section)]
    assert documented == list(Event)
    assert sorted(js_object("SERVER_EVENTS").values()) == sorted(ServerEvent)
    for event in ServerEvent:
        assert f"# Server to client: `{event}`" in PROTOCOL_MD, event


def test_error_codes_agree() -> None:
    # The codes are the protocol's; their words are words.js's.
    assert sorted(js_object("ERROR_MESSAGES", WORDS_JS)) == sorted(ErrorCode)
    assert md_table("### Error codes") == list(ErrorCode)
    assert set(js_object("CLIENT_ERROR_MESSAGES", WORDS_JS)) == CLIENT_ONLY
    assert not CLIENT_ONLY & set(ErrorCode)
    assert all(f"`{code}`" in PROTOCOL_MD for code in CLIENT_ONLY)


def test_refusal_codes_agree() -> None:
    assert sorted(js_object("REFUSALS").values()) == sorted(RefusalCode)
    assert md_table("## Connecting") == list(RefusalCode)


def test_modes_agree() -> None:
    assert tuple(MODE_CHOICES) == MODES
    # words.js's modeName writes a mode as the new-match form names it: with a capital.
    assert all(name == mode.capitalize() for mode, (name, _) in MODE_CHOICES.items())
    documented = re.search(r'"mode": "([a-z\\|]+)"', PROTOCOL_MD)
    assert documented and documented[1].split("\\|") == list(MODES)


def test_cell_names_agree() -> None:
    assert CELL_NAMES == ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
    assert tuple(cell_name(cell) for cell in range(9)) == CELL_NAMES
    # The page computes the same names: column letter, then row from the top.
    assert 'const COLUMNS = "abcdefghi";' in PROTOCOL_JS
    assert "`${COLUMNS[cell % size]}${Math.floor(cell / size) + 1}`" in PROTOCOL_JS
    assert "export const cellName = (cell, size = 3) =>" in PROTOCOL_JS


def test_no_other_script_spells_out_a_code_or_event() -> None:
    names = {*ErrorCode, *Event, *RefusalCode} - {"hint", "move"}
    for script in (ROOT / "static" / "js").glob("*.js"):
        if script.name == "protocol.js":
            continue
        quoted = set(re.findall(r'"([a-z_]+)"', script.read_text()))
        assert not quoted & names, (script.name, quoted & names)
