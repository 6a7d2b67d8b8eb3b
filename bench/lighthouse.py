"""Lighthouse's scores for the pages: performance, accessibility and best practices.

Starts ``tictactoe serve`` of this checkout on a free loopback port with its own
temporary data dir, then runs Google's Lighthouse against the page in headless Chromium
(Debian's; CHROMIUM_PATH overrides where it is), once with Lighthouse's default mobile
preset (a throttled mid-range phone, simulated) and once with ``--preset=desktop``, for
``--runs`` rounds, on each page (``--page``, repeated; by default the game, ``/``, and
the lab, ``/lab``, which loads with its tree's first level open and its step-through at
the first step). Prints one row per run and the median of each column per page and
preset: the three category scores (0-100) and the metrics FCP, LCP, TBT (ms) and CLS.

A check as well: exits 1 when a median is under its target (accessibility and best
practices 100, mobile performance 95) and names the audits that cost the points (score
under 1 in the failing category, in any run of that page and preset); 2 when a run
failed.

Lighthouse (an exact version, below) is installed by npm into .bench/lighthouse/, which
git ignores; it is never in package.json, so the tests' set-up never installs it.

    .venv/bin/python bench/lighthouse.py            # 3 runs, about 2 minutes
    .venv/bin/python bench/lighthouse.py --runs 5
    .venv/bin/python bench/lighthouse.py --runs 1 --page /lab
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.testing import ServerProcess

LIGHTHOUSE_VERSION = "12.8.2"  # the newest that runs on Node 20 (13.x wants Node 22.19)
ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".bench" / "lighthouse"
LIGHTHOUSE = TOOLS / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"
CATEGORIES = ("performance", "accessibility", "best-practices")
METRICS = {
    "FCP": "first-contentful-paint",
    "LCP": "largest-contentful-paint",
    "TBT": "total-blocking-time",
    "CLS": "cumulative-layout-shift",
}
PRESETS = ("mobile", "desktop")
PAGES = ("/", "/lab")
# (preset, category) -> the lowest median score that passes.
TARGETS = {
    ("mobile", "performance"): 95,
    ("mobile", "accessibility"): 100,
    ("mobile", "best-practices"): 100,
    ("desktop", "accessibility"): 100,
    ("desktop", "best-practices"): 100,
}
RUN_SECONDS = 300
# Audits whose score says nothing by itself: not applicable, to check by hand, informative.
UNSCORED = {"notApplicable", "manual", "informative"}


@dataclass
class Run:
    """What one Lighthouse run measured, and the audits that cost points per category."""

    preset: str
    page: str
    scores: dict[str, float]
    metrics: dict[str, float]
    losses: dict[str, dict[str, tuple[float, str]]]  # category -> audit id -> (score, title)


# --- installing and running Lighthouse -----------------------------------------------------


def installed_version() -> str | None:
    """The version of Lighthouse in .bench/lighthouse/, if any."""
    manifest = TOOLS / "node_modules" / "lighthouse" / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def install() -> None:
    """Install the pinned Lighthouse into .bench/lighthouse/ unless it is there already."""
    if installed_version() == LIGHTHOUSE_VERSION and LIGHTHOUSE.exists():
        return
    TOOLS.mkdir(parents=True, exist_ok=True)
    manifest = TOOLS / "package.json"
    if not manifest.exists():  # so that npm never takes the project's package.json
        manifest.write_text('{"private": true}\n')
    print(f"installing lighthouse {LIGHTHOUSE_VERSION} into {TOOLS}", file=sys.stderr)
    options = ["--save-exact", "--no-audit", "--no-fund", "--loglevel=error"]
    package = f"lighthouse@{LIGHTHOUSE_VERSION}"
    subprocess.run(["npm", "install", "--prefix", str(TOOLS), *options, package], check=True)


def lighthouse_command(url: str, preset: str, output: Path) -> list[str]:
    """The command line of one Lighthouse run writing its JSON report to ``output``."""
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={output}"]
    command += [f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"]
    return command + ([f"--preset={preset}"] if preset != "mobile" else [])


def run_lighthouse(url: str, preset: str, workdir: Path) -> dict[str, Any]:
    """Run Lighthouse once and return its report; raise RuntimeError if it failed."""
    output = workdir / f"{preset}.json"
    output.unlink(missing_ok=True)
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    done = subprocess.run(
        lighthouse_command(url, preset, output),
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    if done.returncode != 0 or not output.exists():
        raise RuntimeError(f"lighthouse ({preset}) exited {done.returncode}: {done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(output.read_text())
    if report.get("runtimeError"):
        raise RuntimeError(f"lighthouse ({preset}): {report['runtimeError']}")
    return report


# --- reading a report ----------------------------------------------------------------------


def losses(report: dict[str, Any], category: str) -> dict[str, tuple[float, str]]:
    """The audits of ``category`` scored under 1: id -> (score, title)."""
    found = {}
    for ref in report["categories"][category]["auditRefs"]:
        audit = report["audits"][ref["id"]]
        score = audit.get("score")
        if score is not None and score < 1 and audit["scoreDisplayMode"] not in UNSCORED:
            found[ref["id"]] = (float(score), str(audit["title"]))
    return found


def parse(report: dict[str, Any], preset: str, page: str = "/") -> Run:
    """The scores (0-100), the metrics and the lost audits of one report."""
    categories = report["categories"]
    audits = report["audits"]
    return Run(
        preset=preset,
        page=page,
        scores={name: 100 * float(categories[name]["score"] or 0) for name in CATEGORIES},
        metrics={label: float(audits[key]["numericValue"]) for label, key in METRICS.items()},
        losses={name: losses(report, name) for name in CATEGORIES},
    )


# --- the table and the check -------------------------------------------------------------

HEADER = ("performance", "accessibility", "best practices", "FCP ms", "LCP ms", "TBT ms", "CLS")
WIDTHS = [max(len(title), 6) + 2 for title in HEADER]


def line(label: str, cells: list[str]) -> str:
    """One line of the table: the label, then the cells right-aligned under the header."""
    return f"{label:<24}" + "".join(
        f"{cell:>{width}}" for cell, width in zip(cells, WIDTHS, strict=True)
    )


def row(label: str, scores: dict[str, float], metrics: dict[str, float]) -> str:
    """One line of figures."""
    cells = [f"{scores[name]:g}" for name in CATEGORIES]
    cells += [f"{metrics[label]:.0f}" for label in ("FCP", "LCP", "TBT")]
    return line(label, [*cells, f"{metrics['CLS']:.3f}"])


def medians(runs: list[Run]) -> tuple[dict[str, float], dict[str, float]]:
    """The median score per category and the median of each metric over ``runs``."""
    scores = {name: statistics.median(r.scores[name] for r in runs) for name in CATEGORIES}
    metrics = {label: statistics.median(r.metrics[label] for r in runs) for label in METRICS}
    return scores, metrics


def table(runs: list[Run]) -> list[str]:
    """Each run's row, then each page and preset's medians."""
    lines = [line("page, preset", list(HEADER))]
    numbered: dict[tuple[str, str], int] = {}
    for run in runs:
        key = (run.page, run.preset)
        numbered[key] = numbered.get(key, 0) + 1
        lines.append(row(f"{run.page} {run.preset} #{numbered[key]}", run.scores, run.metrics))
    for page, preset in groups(runs):
        chosen = of_preset(runs, preset, page)
        lines.append(row(f"{page} {preset} median", *medians(chosen)))
    return lines


def groups(runs: list[Run]) -> list[tuple[str, str]]:
    """The (page, preset) pairs of ``runs``, in the order they were run."""
    return list(dict.fromkeys((run.page, run.preset) for run in runs))


def of_preset(runs: list[Run], preset: str, page: str | None = None) -> list[Run]:
    """The runs of one preset (on one page, when given)."""
    return [run for run in runs if run.preset == preset and page in (None, run.page)]


def lost_audits(runs: list[Run], category: str) -> list[str]:
    """The audits of ``category`` under 1 in any of ``runs``, lowest score first."""
    worst: dict[str, tuple[float, str, int]] = {}
    for run in runs:
        for audit, (score, title) in run.losses[category].items():
            low, _, count = worst.get(audit, (1.0, title, 0))
            worst[audit] = (min(low, score), title, count + 1)
    ordered = sorted(worst.items(), key=lambda item: (item[1][0], item[0]))
    return [
        f"    {audit}: {title} (score {low:g}, in {count} of {len(runs)} runs)"
        for audit, (low, title, count) in ordered
    ]


def failures(runs: list[Run]) -> list[str]:
    """A paragraph per median under its target, naming the audits that cost points."""
    lines = []
    for page, (preset, category) in itertools.product(dict.fromkeys(r.page for r in runs), TARGETS):
        target = TARGETS[preset, category]
        chosen = of_preset(runs, preset, page)
        median = medians(chosen)[0][category]
        if median < target:
            lines.append(f"{page} {preset} {category}: {median:g} < {target:g}")
            lines += lost_audits(chosen, category) or ["    (no single audit under 1)"]
    return lines


# --- the run -------------------------------------------------------------------------------


@contextmanager
def server(workdir: Path) -> Iterator[ServerProcess]:
    """``tictactoe serve`` of this checkout on a free loopback port; stopped on exit."""
    process = ServerProcess(workdir / "data")
    try:
        process.start()
        yield process
    finally:
        process.stop()


def measure(runs: int, pages: tuple[str, ...] = PAGES) -> list[Run]:
    """``runs`` rounds of Lighthouse, each page and preset once per round, against a fresh
    server."""
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-lighthouse-") as tmp, server(Path(tmp)) as app:
        for number, page, preset in itertools.product(range(1, runs + 1), pages, PRESETS):
            print(f"run {number}/{runs}: {page} {preset}", file=sys.stderr)
            report = run_lighthouse(app.url + page, preset, Path(tmp))
            results.append(parse(report, preset, page))
    return results


def main() -> int:
    """Install Lighthouse, measure, print the table; 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="rounds of both presets (3)")
    parser.add_argument(
        "--page", action="append", help="a page's path, repeated (/ and /lab by default)"
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    install()
    try:
        runs = measure(args.runs, tuple(args.page or PAGES))
    except (RuntimeError, subprocess.TimeoutExpired) as err:
        print(f"lighthouse.py: error: {err}", file=sys.stderr)
        return 2
    print(
        f"lighthouse {LIGHTHOUSE_VERSION}, {args.runs} runs of each page and preset, then medians"
    )
    print("\n".join(table(runs)))
    missed = failures(runs)
    if missed:
        print("\nunder target:\n" + "\n".join(missed))
        return 1
    print("\nall targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
