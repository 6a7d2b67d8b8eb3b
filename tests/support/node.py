"""The front end's modules run in Node, as the pages run them: an expression over a
module's exports, its value read back as JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

JS = Path(__file__).resolve().parents[2] / "static" / "js"
NODE = shutil.which("node")


def node_value(module: str, expression: str) -> Any:
    """``expression`` evaluated in Node with ``module``'s exports imported as ``w``."""
    assert NODE is not None, "needs Node, as `make` does"
    script = (
        f"import * as w from {json.dumps((JS / module).as_uri())};"
        f"console.log(JSON.stringify({expression}));"
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout)
