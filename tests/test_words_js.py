"""The wording module's numbers, run in Node as the page runs them: no float noise."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

WORDS = Path(__file__).resolve().parent.parent / "static" / "js" / "words.js"
NODE = shutil.which("node")


def percents(values: list[float]) -> list[str]:
    """words.js's ``percent`` of each value, computed by Node."""
    script = (
        f"import {{ percent }} from {json.dumps(WORDS.as_uri())};"
        f"console.log(JSON.stringify({json.dumps(values)}.map(percent)));"
    )
    run = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return list(json.loads(run.stdout))


@pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")
def test_percentages_have_at_most_three_significant_figures() -> None:
    table = [
        (0, "0%"),
        (1, "100%"),
        (0.9999999999999997, "more than 99.9%"),  # was "99.99999999999997%"
        (0.9995, "more than 99.9%"),
        (0.9994, "99.9%"),
        (0.847321, "84.7%"),
        (0.12, "12%"),
        (0.0539, "5.39%"),
        (0.00539, "0.539%"),
        (0.001, "0.1%"),
        (0.0000539, "less than 0.1%"),  # was "0.00539%"
        (1e-300, "less than 0.1%"),
    ]
    assert percents([value for value, _ in table]) == [words for _, words in table]
