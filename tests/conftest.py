"""Shared fixtures: the app in-process, protocol clients, and a real server process.

The suite's tiers are marked by the fixtures a test asks for (``TIERS``), or by a
module's ``pytestmark`` where it starts its processes itself: ``browser`` (Chromium),
``server`` (a production server process), ``attack`` (hostile clients against one) and
``system`` (Redis, nginx and network namespaces, other Pythons). A test with none of them
is in-process, the tier `make check` runs; it may start no server or Redis process.

A module marked ``shared_server`` shares one data dir, and so one live server per set of
settings, among its tests; each still gets its own app and a new player (a fresh
cookie). Its tests that ask for ``server`` share one server process too, each a new
browser context and so a new player (``SHARED_PROCESS_ENV``). A test there marked
``fresh_server`` gets a data dir and servers of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import screenshot
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import expect
from support.live import Actions, LiveSocket, connect, live_servers, stop_live_servers
from support.testing import Processes, RedisServer, ServerProcess, Stopping, seed_books

from webapp.server.app import create_app

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
# axe-core, an npm devDependency for the tests only: never under static/, never served.
AXE = Path(__file__).parent.parent / "node_modules" / "axe-core" / "axe.min.js"
# axe's default rules, and every rule of these tags besides, whether on by default or not.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# Transitions (a colour scheme's change among them) run out first, so that colours are
# checked as they end, not midway; endless animations (a spinner) are left running.
AXE_RUN = """async tags => {
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  const moving = () => document.getAnimations().some(
    a => a.playState === "running" && a.effect?.getComputedTiming().iterations !== Infinity);
  for (let i = 0; i < 120 && (await frame(), moving()); i++);
  const rules = Object.fromEntries(axe.getRules(tags).map(r => [r.ruleId, {enabled: true}]));
  const result = await axe.run(document, {rules});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => `${n.target.join(" ")}: ${n.failureSummary}`),
  }));
}"""


# The tiers, by the fixtures that bring each one's processes.
TIERS = {
    "browser": {"page", "context", "browser", "new_context", "axe", "shoot"},
    "server": {"socket_client", "play", "server", "server_factory"},
    "system": {"redis_server", "redis_url", "two_hosts"},
}
OUT_OF_PROCESS = ("browser", "server", "attack", "system")
# `make test`'s workers (pytest-xdist, each taking whole modules) start the longest
# modules first, then those with a test of these tiers, in this order, so that they end
# together on the many short in-process ones.
LONGEST = (
    "test_release_upgrade.py",
    "test_pythons.py",
    "test_serve.py",
    "test_hosting_guide.py",
    "test_redis.py",
    "test_e2e_odds.py",
    "test_attacks_wire.py",
)
FIRST = ("system", "browser", "attack", "server")


def pytest_configure() -> None:
    """A page's expected state may take 20 s to come on a busy machine (5 s by default)."""
    expect.set_options(timeout=20_000)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Mark each test with the tiers of the fixtures it asks for (a store parametrized
    with "redis" asks for Redis), before ``-m`` selects by them; then, once pytest's own
    order is made, put the modules in the order of ``LONGEST`` and ``FIRST``."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        if callspec and "redis" in callspec.params.values():
            fixtures.add("redis_url")
        for tier, brought_by in TIERS.items():
            if fixtures & brought_by:
                item.add_marker(tier)
    yield
    rank: dict[str, tuple[int, int]] = {}
    for item in items:
        module = item.path.name
        tiers = [FIRST.index(tier) for tier in FIRST if item.get_closest_marker(tier)]
        longest = LONGEST.index(module) if module in LONGEST else len(LONGEST)
        rank[module] = min(
            rank.get(module, (longest, len(FIRST))), (longest, min(tiers, default=len(FIRST)))
        )
    items.sort(key=lambda item: rank[item.path.name])  # stable: in a module too


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The servers asked to stop have stopped; a worker of a parallel run (pytest-xdist)
    hands its count of processes to the controller."""
    Stopping.wait()
    handed = getattr(session.config, "workeroutput", None)
    if handed is not None:
        handed["processes_started"] = dict(Processes.started)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The controller adds up the processes its workers started."""
    del error
    for kind, count in getattr(node, "workeroutput", {}).get("processes_started", {}).items():
        Processes.started[kind] = Processes.started.get(kind, 0) + count


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many server and Redis processes the run started (all its workers')."""
    started = ", ".join(f"{count} {kind}" for kind, count in sorted(Processes.started.items()))
    terminalreporter.write_line(f"processes started: {started or 'none'}")


@pytest.fixture(autouse=True)
def _in_process(request: pytest.FixtureRequest) -> Iterator[None]:
    """An unmarked test is in-process: starting a server or Redis there is an error."""
    if not any(request.node.get_closest_marker(tier) for tier in OUT_OF_PROCESS):
        Processes.refused = f"mark {request.node.nodeid} with its tier (tests/conftest.py)"
    yield
    Processes.refused = None


@pytest.fixture(scope="module")
def shared_data_dir(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path | None]:
    """The data dir the tests of a ``shared_server`` module share (None elsewhere); the
    live servers on it are stopped when the module is done."""
    if request.node.get_closest_marker("shared_server") is None:
        yield None
        return
    shared = tmp_path_factory.mktemp("shared")
    running = live_servers()
    yield shared
    stop_live_servers(keep=running)


@pytest.fixture(autouse=True)
def _live_servers(shared_data_dir: Path | None) -> Iterator[None]:
    """Stop the production servers that this test's sockets were opened on (but those of
    a wider scope's app, already running when it began, and those its module shares)."""
    running = live_servers()
    yield
    shared = {key for key in live_servers() if key[0] == str(shared_data_dir)}
    stop_live_servers(keep=running | shared)


@pytest.fixture
def app(request: pytest.FixtureRequest, tmp_path: Path, shared_data_dir: Path | None) -> Flask:
    """The app with a temp data dir (its module's, where it shares one) holding the
    opening books, no AI pause, a seeded generator, room for bursts, and its module's
    ``APP_SETTINGS``."""
    fresh = shared_data_dir is None or request.node.get_closest_marker("fresh_server")
    data_dir = tmp_path if fresh else shared_data_dir
    seed_books(data_dir)  # as a real server's first start leaves them: loaded, not built
    settings = {"DATA_DIR": str(data_dir), "AI_DELAY_MS": 0, "SEED": 7, "RATE_BURST": 10_000}
    # A module may add settings of its own (APP_SETTINGS), the same for all its tests.
    return create_app({"TESTING": True, **settings, **getattr(request.module, "APP_SETTINGS", {})})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A Flask test client that has loaded the page, so it holds a session cookie."""
    flask_client = app.test_client()
    assert flask_client.get("/").status_code == 200
    return flask_client


@pytest.fixture
def socket_client(app: Flask, client: FlaskClient) -> Iterator[LiveSocket]:
    """A socket of the same player as the Flask client (its session cookie), on a
    production server that shares the app's data dir and settings."""
    connected = connect(app, client)
    yield connected
    if connected.is_connected():
        connected.disconnect()


@pytest.fixture
def play(socket_client: LiveSocket) -> Actions:
    """Protocol actions for the ``socket_client`` player."""
    return Actions(socket_client)


# --- a real server process ------------------------------------------------------


@pytest.fixture
def server_factory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., ServerProcess]]:
    """Start real servers with extra arguments and environment; all are stopped afterwards."""
    started: list[ServerProcess] = []

    def start(*args: str, **env: str) -> ServerProcess:
        server = ServerProcess(tmp_path_factory.mktemp("server"), env, args)
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        server.stop_soon()  # waited for at the end of the run: the next test starts now


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private redis-server for the whole run, on a free loopback port."""
    redis = RedisServer(tmp_path_factory.mktemp("redis"))
    yield redis.start()
    redis.stop()


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The private Redis, emptied for this test."""
    import redis

    redis.Redis.from_url(redis_server).flushall()
    return redis_server


# The server process a ``shared_server`` module's tests share has no limits per client
# address: its tests all come from 127.0.0.1, each a new player, and one address's counts
# (new players a minute, new rooms an hour, events and odds a second) would add up from
# test to test. The limits per player and per connection stay as a server's defaults;
# the per-address ones are tested on servers of their own.
SHARED_PROCESS_ENV = {
    f"TICTACTOE_{name}": "0"
    for name in (
        "NEW_PLAYERS_PER_MINUTE",
        "NEW_ROOMS_PER_HOUR",
        "RATE_PER_ADDRESS",
        "ODDS_MS_PER_ADDRESS",
        "LAB_MS_PER_ADDRESS",
        "COSTLY_PER_ADDRESS_MINUTE",
        "TRAIN_PER_ADDRESS_MINUTE",
    )
}


@pytest.fixture(scope="module")
def shared_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server process of a ``shared_server`` module's tests, stopped after the last."""
    shared = ServerProcess(tmp_path_factory.mktemp("server"), SHARED_PROCESS_ENV)
    shared.start()
    yield shared
    shared.stop_soon()


@pytest.fixture
def server(
    request: pytest.FixtureRequest, server_factory: Callable[..., ServerProcess]
) -> ServerProcess:
    """A real server process on a free port with a temp data dir and no AI pause: the
    module's, in a ``shared_server`` module (but for a ``fresh_server`` test)."""
    node = request.node
    if node.get_closest_marker("shared_server") and not node.get_closest_marker("fresh_server"):
        shared: ServerProcess = request.getfixturevalue("shared_process")
        assert shared.process is not None
        if shared.process.poll() is not None:  # an earlier test's end, not this one's
            pytest.fail(f"the module's server exited: {shared.log_tail()}")
        return shared
    return server_factory()


# --- the browser ----------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's Chromium, headless, with no background traffic."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def axe() -> Callable[[Any], list[dict[str, Any]]]:
    """``axe(page)``: axe-core's violations on the page as it is now.

    Its default rules run (best practices among them), and every WCAG 2.0, 2.1 and 2.2
    A and AA rule too, including those axe leaves off by default.

    The script is evaluated rather than added as a tag, which the page's CSP refuses.
    """
    assert AXE.exists(), "axe-core is missing: run `npm ci`"
    source = AXE.read_text() + "\n;undefined"

    def run(page: Any) -> list[dict[str, Any]]:
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.evaluate(source)
        return list(page.evaluate(AXE_RUN, AXE_TAGS))

    return run


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where the suite writes screenshots for people to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def shoot(artifacts: Path) -> Callable[[Any, str], None]:
    """``shoot(page, moment)``: whole-page screenshots of the page as it is, on a desktop
    and a phone, light and dark, into the artifacts; none may scroll sideways."""

    def take(page: Any, moment: str) -> None:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
            for device, viewport in SCREENS.items():
                page.set_viewport_size(viewport)
                page.wait_for_timeout(150)
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= viewport["width"], f"{moment} {device}: {wide} px wide"
                path = artifacts / f"{moment}-{device}-{scheme}.png"
                screenshot(page, path, full_page=True)

    return take
