"""docs/hosting.md followed as written, on a scratch install on this machine.

The blocks come out of the guide itself (tests/support/guide.py). Its paths move into a
scratch folder, its public ports to free ones, and Let's Encrypt's certificate to a
self-signed one; everything else runs as the guide says: the install into a fresh
virtual environment, the service's user, environment, umask and file limit, nginx with
the guide's site and events block, a whole game in Chromium over https and wss, the
modes of the files the server made, and a backup restored into a fresh data dir.
"""

from __future__ import annotations

import logging
import os
import pwd
import re
import resource
import shlex
import shutil
import signal
import socket
import ssl
import stat
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from packaging.version import Version
from playwright.sync_api import Browser, Page, expect
from support.guide import (
    BACKUP,
    ENV_FILE,
    EVENTS,
    GUIDE,
    INSTALL,
    RESTORE,
    SITE,
    SUB_PATH_ENV,
    UNIT,
    block,
    commands,
    env_file,
    fill,
    releases,
    sub_path_site,
    unit_keys,
)
from support.hosts import find_tool
from support.testing import HOST, ServerProcess, free_port, healthy, wait_until

from webapp import __version__

CHECKOUT = Path(__file__).resolve().parent.parent
TOOLS = ("nginx", "openssl", "setpriv", "prlimit", "useradd", "userdel", "git", "npm")
HARDENING = {
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "UMask": "0077",
    "Restart": "on-failure",
}


def why_not() -> str | None:
    if os.geteuid() != 0:
        return "follows the guide as root: creates a user and runs the service as it"
    missing = [name for name in TOOLS if not find_tool(name)]
    return f"needs {', '.join(missing)}" if missing else None


# --- the unit, read alone ------------------------------------------------------------------


def test_the_unit_has_every_hardening_key() -> None:
    keys = unit_keys(block(UNIT))
    assert {key: keys.get(key) for key in HARDENING} == HARDENING
    assert float(keys["RestartSec"]) >= 1
    assert int(keys["LimitNOFILE"]) >= 65536
    assert keys.get("EnvironmentFile") == ENV_FILE or "LoadCredential" in keys
    assert keys["User"] != "root" and keys["StateDirectory"] == "tictactoe"
    assert keys["ExecStart"].endswith("tictactoe serve")


def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    analyze = find_tool("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    program = Path(shutil.which("tictactoe") or CHECKOUT / ".venv" / "bin" / "tictactoe")
    unit = tmp_path / "tictactoe.service"
    unit.write_text(fill(block(UNIT), {"/opt/tictactoe/venv/bin/tictactoe": str(program)}))
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "tictactoe.service" not in done.stderr, done.stderr  # no warning about it


# --- the whole guide -------------------------------------------------------------------------


class Install:
    """The scratch machine: folders standing in for /opt, /etc, /var/lib and /var/backups."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.opt = root / "opt" / "tictactoe"
        self.backups = root / "backups"
        self.env_file = root / "etc" / "env"
        self.www = root / "www"
        self.app_port, self.http_port, self.https_port = free_port(), free_port(), free_port()
        self.server: subprocess.Popen[bytes] | None = None
        self.nginx: subprocess.Popen[bytes] | None = None
        self.created_user: str | None = None
        self.log = root / "server.log"

    def paths(self, text: str) -> str:
        """The guide's paths moved into the scratch folder."""
        for real, scratch in (
            ("/opt/tictactoe", str(self.opt)),
            ("/var/backups/tictactoe", str(self.backups)),
            (ENV_FILE, str(self.env_file)),
        ):
            text = text.replace(real, scratch)
        return text

    def bash(self, script: str, cwd: Path | None = None) -> None:
        done = subprocess.run(
            ["bash", "-euxo", "pipefail", "-c", script],
            cwd=cwd or self.root,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr[-4000:]

    def copy_source(self) -> None:
        """The source at /opt/tictactoe/src, as a clone of this checkout would put it."""
        source = self.opt / "src"
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=CHECKOUT, capture_output=True, check=True
        ).stdout
        for name in filter(None, listed.decode().split("\0")):
            origin = CHECKOUT / name
            if origin.is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, source / name)

    def install(self) -> None:
        """The guide's install block; apt-get is the test's own set-up (make test)."""
        script = block(INSTALL)
        for line in commands(script):
            if line.startswith("useradd "):
                self.add_user(line)
        lines = commands(script, leave_out=("apt-get ", "useradd "))
        self.bash(self.paths("\n".join(lines)))

    def add_user(self, line: str) -> None:
        name = shlex.split(line)[-1]
        try:
            pwd.getpwnam(name)
        except KeyError:
            self.bash(line)
            self.created_user = name

    def user(self) -> pwd.struct_passwd:
        return pwd.getpwnam(unit_keys(block(UNIT))["User"])

    def state_dir(self, name: str) -> Path:
        """What StateDirectory= makes: a folder owned by the user, StateDirectoryMode."""
        keys = unit_keys(block(UNIT))
        path = self.root / name
        path.mkdir()
        user = self.user()
        os.chown(path, user.pw_uid, user.pw_gid)
        path.chmod(int(keys["StateDirectoryMode"], 8))
        return path

    def start_server(self, state: Path) -> None:
        """ExecStart as the unit runs it: its user, environment file, umask and file limit."""
        keys = unit_keys(block(UNIT))
        settings = env_file(block(ENV_FILE))
        settings["TICTACTOE_PORT"] = str(self.app_port)
        self.env_file.parent.mkdir(parents=True, exist_ok=True)
        self.env_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
        user = self.user()
        environ = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(state),
            "USER": user.pw_name,
            "STATE_DIRECTORY": str(state),  # what systemd sets for StateDirectory=
            **settings,
        }
        limit = service_file_limit()
        command = [
            *(find_tool("prlimit") or "prlimit", f"--nofile={limit}:{limit}", "--"),
            *(find_tool("setpriv") or "setpriv", "--reuid", user.pw_name, "--regid", user.pw_name),
            *("--init-groups", "--"),
            *shlex.split(self.paths(keys["ExecStart"])),
        ]
        with self.log.open("ab") as log:
            self.server = subprocess.Popen(
                command,
                env=environ,
                cwd=state,
                umask=int(keys["UMask"], 8),
                stdout=log,
                stderr=log,
            )
        try:
            # A first start builds the opening books (about 12 s of CPU): room for a busy machine.
            wait_until(lambda: healthy(f"http://{HOST}:{self.app_port}"), 180, "the service")
        except TimeoutError:
            raise AssertionError(self.log.read_text()[-3000:]) from None

    def stop_server(self) -> None:
        if self.server and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            self.server.wait(timeout=30)

    def certificate(self) -> tuple[Path, Path]:
        cert, key = self.root / "fullchain.pem", self.root / "privkey.pem"
        subprocess.run(
            [
                *(find_tool("openssl") or "openssl", "req", "-x509", "-newkey", "rsa:2048"),
                *("-nodes", "-days", "1", "-subj", "/CN=play.example.org"),
                *("-addext", "subjectAltName=DNS:play.example.org,IP:127.0.0.1"),
                *("-keyout", str(key), "-out", str(cert)),
            ],
            check=True,
            capture_output=True,
        )
        return cert, key

    def start_nginx(self, site: str | None = None) -> None:
        """nginx with the guide's events block and site, on loopback and free ports."""
        cert, key = self.certificate()
        self.www.mkdir()
        site = fill(
            site or block(SITE),
            {
                "    listen [::]:80;\n": "",
                "    listen [::]:443 ssl;\n": "",
                "listen 80;": f"listen {HOST}:{self.http_port};",
                "listen 443 ssl;": f"listen {HOST}:{self.https_port} ssl;",
                "/etc/letsencrypt/live/play.example.org/fullchain.pem": str(cert),
                "/etc/letsencrypt/live/play.example.org/privkey.pem": str(key),
                "server 127.0.0.1:5000;": f"server {HOST}:{self.app_port};",
                "/var/www/html": str(self.www),
            },
        )
        temp = "".join(
            f"    {kind}_temp_path {self.root / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        conf = self.root / "nginx.conf"
        conf.write_text(
            f"daemon off;\nuser root;\nworker_processes 1;\npid {self.root / 'nginx.pid'};\n"
            f"error_log {self.root / 'nginx-error.log'} info;\n{block(EVENTS)}\n"
            f"http {{\n    access_log {self.root / 'nginx-access.log'};\n{temp}{site}}}\n"
        )
        self.nginx = subprocess.Popen(
            [find_tool("nginx") or "nginx", "-c", str(conf), "-p", str(self.root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_until(lambda: answers(HOST, self.https_port), 10, "nginx")

    def close(self) -> None:
        self.stop_server()
        if self.nginx and self.nginx.poll() is None:
            self.nginx.terminate()
            self.nginx.wait(timeout=10)
        if self.created_user:
            subprocess.run([find_tool("userdel") or "userdel", self.created_user], check=False)
        shutil.rmtree(self.root, ignore_errors=True)


def service_file_limit() -> int:
    """The unit's LimitNOFILE, or this machine's hard limit if that is lower (a container
    may not raise it, as systemd on a server does)."""
    wanted = int(unit_keys(block(UNIT))["LimitNOFILE"])
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture
def scratch() -> Iterator[Install]:
    reason = why_not()
    if reason:
        pytest.skip(reason)
    root = Path(tempfile.mkdtemp(prefix="tictactoe-guide-"))
    root.chmod(0o755)  # the service user walks into the scratch /opt and state dirs
    machine = Install(root)
    try:
        yield machine
    finally:
        machine.close()


def play_a_whole_game(page: Page) -> str:
    """Click the first empty cell until the game is over; the board as nine characters."""
    grid = page.get_by_role("grid", name="Board")
    expect(grid).to_have_attribute("data-version", re.compile(r"^\d+$"))
    for _ in range(9):
        expect(grid).to_have_attribute("data-turn", re.compile(r"^(human|none)$"))
        if grid.get_attribute("data-turn") != "human":
            break
        target = page.locator("[data-cell][aria-label$='empty']").first
        name = target.get_attribute("aria-label")
        target.click()
        # Wait for the state with this move in it (the AI's turn, or the game over):
        # a board still showing the state before could be clicked again as it ends.
        expect(page.locator(f"[data-cell][aria-label='{name}']")).to_have_count(0)
    expect(page.locator("#status-text")).to_have_text(re.compile(r"You win|AI wins|Draw"))
    return board_of(page)


def board_of(page: Page) -> str:
    labels = page.locator("[data-cell]").evaluate_all(
        "cells => cells.map(c => c.getAttribute('aria-label'))"
    )
    return "".join("." if label.endswith("empty") else label[-1] for label in labels)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def redirect_of(url: str) -> tuple[int, str]:
    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    unverified = ssl.create_default_context()
    unverified.check_hostname, unverified.verify_mode = False, ssl.CERT_NONE  # self-signed
    try:
        opener = urllib.request.build_opener(Stay, urllib.request.HTTPSHandler(context=unverified))
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Location"]
    return 200, ""


def test_following_the_guide_from_install_to_restore(scratch: Install, browser: Browser) -> None:
    scratch.copy_source()
    scratch.install()
    state = scratch.state_dir("state")
    scratch.start_server(state)
    scratch.start_nginx()

    # http only redirects to https
    status, location = redirect_of(f"http://{HOST}:{scratch.http_port}/")
    assert status == 301 and location.startswith("https://"), (status, location)

    context = browser.new_context(ignore_https_errors=True)
    page = context.new_page()
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto(f"https://{HOST}:{scratch.https_port}/")
    finished = play_a_whole_game(page)
    version = page.get_by_role("grid", name="Board").get_attribute("data-version")
    assert sockets and all(url.startswith("wss://") for url in sockets), sockets

    # the service ran as its user, with its limit, and made its files private
    user = scratch.user()
    arbiter = Path(f"/proc/{scratch.server.pid if scratch.server else 0}")
    uids = (arbiter / "status").read_text().split("\nUid:")[1].split()[:2]
    assert uids == [str(user.pw_uid)] * 2
    limit = service_file_limit()
    assert re.search(rf"Max open files\s+{limit}\s+{limit}", (arbiter / "limits").read_text())
    assert state.stat().st_uid == user.pw_uid and mode(state) == 0o700
    made = {path: (mode(path), path.stat().st_uid) for path in state.rglob("*")}
    assert {"matches.sqlite3", "secret_key", "books"} <= {path.name for path in made}
    # Files 0600; the opening books' directory 0700: both the service user's alone.
    private = {path: (0o700 if path.is_dir() else 0o600, user.pw_uid) for path in made}
    assert made == private, made

    # the nightly backup, as written, while the server runs
    script = scratch.root / "backup.sh"
    script.write_text(fill(scratch.paths(block(BACKUP)), {"/var/lib/tictactoe": str(state)}))
    scratch.bash(f"sh {script}")
    (dated,) = scratch.backups.iterdir()
    assert sorted(path.name for path in dated.iterdir()) == [
        "matches.sqlite3",
        "secret_key",
        "signing_key",
    ]

    # restore into a fresh data dir, as written, with the server stopped
    scratch.stop_server()
    fresh = scratch.state_dir("fresh-state")
    restore = commands(block(RESTORE), leave_out=("systemctl ",))
    lines = [
        fill(scratch.paths(line), {"/var/lib/tictactoe": str(fresh)}).replace(
            str(scratch.backups / "2026-11-23"), str(dated)
        )
        for line in restore
    ]
    scratch.bash("\n".join(lines))
    assert {mode(path) for path in fresh.iterdir()} == {0o600}
    assert {path.stat().st_uid for path in fresh.iterdir()} == {user.pw_uid}
    scratch.start_server(fresh)

    page.reload()
    grid = page.get_by_role("grid", name="Board")
    # One version more: the restore gave the match fresh seeds (docs/fairness.md).
    expect(grid).to_have_attribute("data-version", str(int(version or 0) + 1))
    assert board_of(page) == finished
    expect(page.locator("#status-text")).to_have_text(re.compile(r"You win|AI wins|Draw"))
    context.close()


def test_the_sub_path_option_serves_the_game_under_its_path(
    scratch: Install, browser: Browser
) -> None:
    settings = env_file(block(ENV_FILE)) | env_file(block(SUB_PATH_ENV))
    base = settings["TICTACTOE_BASE_PATH"]
    server = ServerProcess(
        scratch.root / "data",
        settings | {"TICTACTOE_PORT": str(scratch.app_port)},
        port=scratch.app_port,
        url=f"http://{HOST}:{scratch.app_port}{base}",
    )
    server.start()
    try:
        scratch.start_nginx(sub_path_site())
        context = browser.new_context(ignore_https_errors=True)
        page = context.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        page.goto(f"https://{HOST}:{scratch.https_port}{base}/")
        play_a_whole_game(page)
        assert sockets and all(f"{base}/socket.io/" in url for url in sockets), sockets
        assert [cookie["path"] for cookie in context.cookies()] == [base]
        status, location = redirect_of(f"https://{HOST}:{scratch.https_port}{base}")
        assert status in (301, 308) and location.endswith(f"{base}/"), (status, location)
        context.close()
    finally:
        server.stop()


# --- the guide's words, kept true ----------------------------------------------------


def test_the_guides_data_files_are_what_a_started_server_keeps(
    server_factory: Callable[..., ServerProcess],
) -> None:
    (row,) = [line for line in GUIDE.read_text().splitlines() if line.startswith("| its data")]
    listed = set(re.findall(r"`([^`/]+)/?`", row.split("|")[1]))  # a directory ends in /
    server = server_factory()
    server.stop()
    kept = {path.name for path in server.data_dir.iterdir()} - {server.log.name}
    assert listed == kept


def test_the_backup_command_names_every_file_it_copies(capsys: pytest.CaptureFixture[str]) -> None:
    from webapp.cli.main import main
    from webapp.server.store import datadir, signing
    from webapp.server.store.backup import FILES
    from webapp.server.store.sqlite.db import DATABASE_FILE

    with pytest.raises(SystemExit):
        main(["--help"])
    listing = " ".join(capsys.readouterr().out.split())
    backup = listing[listing.index(" backup ") : listing.index(" restore ")]
    named = {DATABASE_FILE: "the matches", datadir.KEY_FILE: "the secret key"}
    named[signing.KEY_FILE] = "the signing key"
    assert set(named) == set(FILES)
    assert [words for words in named.values() if words not in backup] == []


def test_the_guides_sample_log_line_is_the_servers_own() -> None:
    """The line as the server writes it, naming a current release: the one this checkout
    is or leads to (0.5.0 for 0.5.0.dev0), or the newest CHANGELOG.md lists, as after a
    release; never an older one."""
    from webapp.server.process.serve import LOG_DATE_FORMAT, LOG_FORMAT

    (sample,) = [line for line in GUIDE.read_text().splitlines() if "server.serve: " in line]
    named = re.search(r" tictactoe (\S+) on ", sample)
    assert named, sample
    newest = max((Version(release.version) for release in releases()), default=None)
    current = {str(newest), Version(__version__).base_version}
    assert named[1] in current, named[1]
    record = logging.LogRecord(
        "webapp.server.serve",
        logging.INFO,
        __file__,
        1,
        "tictactoe %s on %s with %d worker(s)",
        (named[1], "http://127.0.0.1:5000", 1),
        None,
    )
    record.created, record.process = 1795400122.0, 13005
    line = logging.Formatter(LOG_FORMAT, LOG_DATE_FORMAT).format(record)
    stamp = re.compile(r"^\[[^]]*\]")
    assert stamp.sub("", sample) == stamp.sub("", line)
