"""The settings table: parsing, refusals, and README's configuration table kept true."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from webapp.server.settings import DEFAULTS, SETTINGS, SettingError, load

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_default(default: Any) -> str:
    """How README writes a default."""
    if default is None:
        return "unset"
    if isinstance(default, bool):
        return "on" if default else "off"
    return f"`{default:g}`" if isinstance(default, float) else f"`{default}`"


def readme_rows() -> dict[str, tuple[str, str]]:
    """Variable -> (default, meaning) from README's configuration table."""
    section = README.read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        found = re.match(r"`(TICTACTOE_[A-Z_]+)`", cells[0]) if len(cells) == 3 else None
        if found:
            rows[found[1]] = (cells[1], cells[2])
    return rows


def test_readme_lists_every_setting_with_its_default_and_doc() -> None:
    expected = {s.env: (readme_default(s.default), s.doc.rstrip(".")) for s in SETTINGS if s.env}
    assert readme_rows() == expected


def test_defaults_without_environment() -> None:
    assert load({}) == DEFAULTS


def test_environment_overrides_and_aliases() -> None:
    settings = load({"PORT": "8080", "TICTACTOE_HOST": "0.0.0.0", "TICTACTOE_TRUST_PROXY": "yes"})
    assert (settings["PORT"], settings["HOST"], settings["TRUST_PROXY"]) == (8080, "0.0.0.0", True)
    assert load({"PORT": "8080", "TICTACTOE_PORT": "9090"})["PORT"] == 9090


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TICTACTOE_PORT", "0"),
        ("TICTACTOE_PORT", "eighty"),
        ("TICTACTOE_WORKERS", "0"),
        ("TICTACTOE_IDLE_DAYS", "nan"),
        ("TICTACTOE_RATE_BURST", "1.5"),
        ("TICTACTOE_POLLING", "sometimes"),
    ],
)
def test_bad_values_name_the_variable_and_the_range(variable: str, value: str) -> None:
    with pytest.raises(SettingError, match=rf"^{variable}={value!r} is not valid: expected"):
        load({variable: value})


def test_every_setting_has_a_doc_and_a_unique_variable() -> None:
    variables = [v for s in SETTINGS for v in s.variables]
    assert len(variables) == len(set(variables))
    assert all(s.doc and s.name == s.name.upper() for s in SETTINGS)
