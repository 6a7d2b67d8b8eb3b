"""Where the data lives, who may read it, and what the log says about each request."""

from __future__ import annotations

import os
import stat
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.testing import ServerProcess, wait_until

from webapp.server import settings as config
from webapp.server.app import create_app
from webapp.server.store import datadir


def test_a_service_state_directory_comes_first(tmp_path: Path) -> None:
    environ = {"STATE_DIRECTORY": f"{tmp_path}/state:{tmp_path}/other", "XDG_DATA_HOME": "/x"}
    assert datadir.default(environ) == tmp_path / "state"


def test_a_checkout_keeps_its_data_in_instance() -> None:
    assert datadir.default({}) == datadir.CHECKOUT / "instance"


def test_an_installed_program_keeps_its_data_under_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(datadir, "CHECKOUT", tmp_path / "site-packages")
    assert datadir.default({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "tictactoe"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert datadir.default({}) == tmp_path / "home" / ".local" / "share" / "tictactoe"


def test_the_tictactoe_name_wins_over_the_short_one() -> None:
    settings = config.load({"HOST": "0.0.0.0", "TICTACTOE_HOST": "127.0.0.2", "PORT": "81"})
    assert settings["HOST"] == "127.0.0.2" and settings["PORT"] == 81


@pytest.fixture
def open_umask() -> Iterator[None]:
    before = os.umask(0)
    yield
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_the_server_creates_are_private_whatever_the_umask(
    tmp_path: Path, open_umask: None
) -> None:
    data_dir = tmp_path / "new" / "data"
    app = create_app({"DATA_DIR": str(data_dir), "TESTING": True})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200  # writes to the database
    assert mode(data_dir) == 0o700
    created = {path.name: mode(path) for path in data_dir.iterdir()}
    assert {"secret_key", "matches.sqlite3"} <= set(created)
    assert set(created.values()) == {0o600}, created


def get(url: str, **headers: str) -> None:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as reply:
        reply.read()


@pytest.mark.parametrize(("trust", "logged"), [("1", "203.0.113.9"), ("0", "127.0.0.1")])
def test_the_access_log_names_the_client_behind_a_trusted_proxy(
    server_factory: Callable[..., ServerProcess], trust: str, logged: str
) -> None:
    server = server_factory(TICTACTOE_TRUST_PROXY=trust)
    get(server.url + "/?from=the-log-test", **{"X-Forwarded-For": "203.0.113.9"})
    line = f"{logged} ["
    wait_until(lambda: "from=the-log-test" in server.log_tail(1 << 16), 5, "the access line")
    lines = [text for text in server.log_tail(1 << 16).splitlines() if "the-log-test" in text]
    assert len(lines) == 1 and lines[0].startswith(line), lines
    assert '"GET /?from=the-log-test HTTP/1.1" 200 ' in lines[0]


def test_the_access_log_can_be_turned_off(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(TICTACTOE_ACCESS_LOG="0")
    get(server.url + "/?from=the-log-test")
    get(server.url + "/healthz")
    assert "the-log-test" not in server.log_tail(1 << 16)
