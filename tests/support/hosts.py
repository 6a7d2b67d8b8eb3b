"""Two hosts on one Redis behind nginx, as docs/hosting.md's "Several hosts" runs them.

Helpers for tests/test_two_hosts.py and bench/failover.py (nothing here runs in
production). ``TwoHosts`` builds two network namespaces (host A and host B) joined by
veth pairs to a bridge on a private /24 that it picks and creates, runs
``tictactoe serve`` in each, one redis-server on the bridge's address, and nginx on
loopback in front with the configuration an operator would copy from the hosting
guide's nginx blocks. ``failover`` plays players through nginx, kills host A with kill -9
mid-game and checks that every player finds its match, unchanged, on host B.

Everything is removed on ``TwoHosts.close()`` (it is a context manager), even after a
failure. It needs root and ``ip``, ``nginx`` and ``redis-server``: ``unavailable()``
says why it cannot run here, and ``NamespacesRefused`` means the kernel refused the
namespaces (no CAP_SYS_ADMIN, for instance).
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

from .guide import GUIDE, SEVERAL_HOSTS, SITE, guide_blocks
from .testing import (
    HOST,
    Player,
    RedisServer,
    ServerProcess,
    free_port,
    healthy,
    percentile,
    session_cookie,
    wait_until,
)

HOST_PORT = 5000
SUBNETS = [ipaddress.IPv4Network(f"10.231.{third}.0/24") for third in range(57, 77)]
LOCK = tempfile.gettempdir()  # flock()ed while a run claims a /24
TOOLS = ("ip", "nginx", "redis-server")

# What the test had to add to the hosting guide's nginx configuration, each line a finding
# for the guide (empty: its blocks work as they are).
BEYOND_GUIDE: tuple[str, ...] = ()


class NamespacesRefused(RuntimeError):
    """The kernel refused to create a network namespace, veth pair or bridge."""


def unavailable() -> str | None:
    """Why two hosts cannot be built here (not root, a tool missing), or None."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    missing = [tool for tool in TOOLS if not find_tool(tool)]
    return f"needs {', '.join(missing)} (not found)" if missing else None


def find_tool(name: str) -> str | None:
    """``name`` on PATH or in /usr/sbin and /usr/bin."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")


def run(*command: str) -> str:
    """Run a command; its output, or RuntimeError with what it said."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip() or done.returncode}")
    return done.stdout


# --- nginx, configured from the hosting guide --------------------------------------------------


def top_level_blocks(text: str) -> list[list[str]]:
    """The top-level ``name ... { ... }`` blocks of an nginx file, each as its lines."""
    blocks: list[list[str]] = []
    depth = 0
    for line in text.splitlines():
        code = line.split("#", 1)[0]
        if depth == 0 and "{" in code:
            blocks.append([])
        if depth > 0 or "{" in code:
            blocks[-1].append(line)
        depth += code.count("{") - code.count("}")
    return blocks


def location_lines(block: list[str]) -> list[str]:
    """The directives of the ``location / { ... }`` inside ``block``, comments left out."""
    lines = [line.split("#", 1)[0].strip() for line in block]
    start = lines.index("location / {")
    end = lines.index("}", start)
    return [line for line in lines[start + 1 : end] if line.endswith(";")]


def directive(line: str) -> str:
    """What makes a line the same setting as another: its name (and header, if it sets one)."""
    words = line.rstrip(";").split()
    return " ".join(words[:2]) if words[0] in {"proxy_set_header", "add_header"} else words[0]


def nginx_site(guide: str, *, listen: str, upstreams: list[str]) -> str:
    """The guide's site for several hosts, on plain http, as the test's nginx runs it.

    From the guide's site: the ``map``, the TLS server's ``client_*`` lines and its whole
    ``location /``; from its several-hosts block: the ``upstream``, with the test's hosts
    in place of the example addresses. TLS and the port-80 redirect are left out (the
    hosting guide's own test runs those). A guide that no longer reads this way is an
    error, not a silent change of config.
    """
    blocks = guide_blocks(guide)
    site, several = top_level_blocks(blocks[SITE]), top_level_blocks(blocks[SEVERAL_HOSTS])
    maps = [block for block in site if block[0].startswith("map ")]
    secure = [block for block in site if any("ssl_certificate " in line for line in block)]
    upstream = [block for block in several if block[0].startswith("upstream ")]
    if len(maps) != 1 or len(secure) != 1 or len(upstream) != 1:
        raise ValueError("the guide's site no longer has one map, one TLS server, one upstream")
    hosts = [line for line in upstream[0] if re.fullmatch(r"\s*server\s+\S+;", line)]
    if not hosts:
        raise ValueError("the guide's upstream for several hosts lists no server")
    indent = hosts[0][: len(hosts[0]) - len(hosts[0].lstrip())]
    ours = [f"{indent}server {host};  # the operator's" for host in upstreams]
    listed = [line for line in upstream[0] if line not in hosts]
    server_lines = [line.strip() for line in secure[0][1:-1] if line.startswith("    client_")]
    out = [*maps[0], "", *listed[:1], *ours, *listed[1:], "", "server {"]
    out += [f"    listen {listen};  # the operator's", *(f"    {line}" for line in server_lines)]
    out += ["    location / {", *(f"        {line}" for line in location_lines(secure[0]))]
    out += ["    }", "}"]
    return "\n".join(out)


def nginx_config(
    guide: str, *, prefix: Path, listen: str, upstreams: list[str], beyond: tuple[str, ...] = ()
) -> str:
    """A whole nginx.conf around ``nginx_site``: paths in ``prefix``, one worker, no daemon.

    ``beyond`` are lines added inside the guide's ``location /`` (what the guide should say).
    """
    site = nginx_site(guide, listen=listen, upstreams=upstreams)
    lines = site.splitlines()
    for line in beyond:  # in place of the guide's line for the same setting, or added
        mark = f"{line}  # NOT in the hosting guide: what it should say"
        same = [i for i, old in enumerate(lines) if _sets(old, directive(line))]
        if same:
            old = lines[same[0]]
            lines[same[0]] = old[: len(old) - len(old.lstrip())] + mark
        else:
            at = next(i for i, old in enumerate(lines) if old.strip() == "location / {")
            lines.insert(at + 1, " " * (lines[at].index("l") + 4) + mark)
    site = "\n".join(lines)
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    body = "\n".join(f"    {line}" for line in site.splitlines())
    # As root, nginx's workers would run as nobody, who cannot enter a private temp dir.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        "# Written by tests/support/hosts.py: the frame is the test's, the site the guide's.\n"
        f"daemon off;\n{user}worker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'} info;\n"
        "events {\n    worker_connections 8192;\n}\n"
        f"http {{\n    access_log {prefix / 'access.log'};\n{temp}\n\n{body}\n}}\n"
    )


def _sets(line: str, name: str) -> bool:
    """Whether a config line (not a comment) sets ``name``."""
    text = line.split("#", 1)[0].strip()
    return text.endswith(";") and directive(text) == name


# --- the network: a bridge on a private /24, a namespace per host -----------------------------


def used_networks() -> list[ipaddress.IPv4Network]:
    """Every IPv4 route destination and interface network on this machine."""
    used = []
    for entry in json.loads(run("ip", "-j", "-4", "route", "show", "table", "all") or "[]"):
        if entry.get("dst", "default") != "default":
            used.append(ipaddress.ip_network(entry["dst"], strict=False))
    for link in json.loads(run("ip", "-j", "-4", "addr") or "[]"):
        for addr in link.get("addr_info", []):
            used.append(ipaddress.ip_network(f"{addr['local']}/{addr['prefixlen']}", strict=False))
    return [net for net in used if isinstance(net, ipaddress.IPv4Network)]


@contextlib.contextmanager
def machine_lock() -> Iterator[None]:
    """Serialises choosing and claiming a /24 between concurrent runs on this machine.

    The lock is on the temp directory itself, so that no lock file is left behind.
    """
    handle = os.open(LOCK, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


class Network:
    """A bridge holding ``.1`` of a free private /24, and one namespace per host (.11, .12...)."""

    def __init__(self, hosts: int = 2) -> None:
        self.tag = secrets.token_hex(3)
        self.bridge = f"ttt-br-{self.tag}"
        self.names = [f"ttt-{chr(ord('a') + i)}-{self.tag}" for i in range(hosts)]
        self.subnet: ipaddress.IPv4Network | None = None
        self.namespaces: list[str] = []
        self.links: list[str] = []

    @property
    def gateway(self) -> str:
        """The root namespace's address on the bridge (where Redis listens)."""
        assert self.subnet is not None
        return str(self.subnet.network_address + 1)

    def address(self, host: int) -> str:
        """Host ``host``'s address (0 is .11)."""
        assert self.subnet is not None
        return str(self.subnet.network_address + 11 + host)

    def create(self) -> None:
        """Claim a free /24 and build the bridge, namespaces and veth pairs."""
        with machine_lock():
            used = used_networks()
            free = [net for net in SUBNETS if not any(net.overlaps(u) for u in used)]
            if not free:
                raise RuntimeError(f"no free /24 among {SUBNETS[0]}..{SUBNETS[-1]}")
            self.subnet = free[0]
            try:
                run("ip", "link", "add", self.bridge, "type", "bridge")
            except RuntimeError as err:
                raise NamespacesRefused(str(err)) from err
            self.links.append(self.bridge)
            run("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        run("ip", "link", "set", self.bridge, "up")
        for index, namespace in enumerate(self.names):
            try:
                run("ip", "netns", "add", namespace)
            except RuntimeError as err:
                raise NamespacesRefused(str(err)) from err
            self.namespaces.append(namespace)
            outside, inside = namespace, f"{namespace}i"  # link names; 15 characters at most
            run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
            self.links.append(outside)
            run("ip", "link", "set", inside, "netns", namespace)
            run("ip", "link", "set", outside, "master", self.bridge)
            run("ip", "link", "set", outside, "up")
            run("ip", "-n", namespace, "addr", "add", f"{self.address(index)}/24", "dev", inside)
            run("ip", "-n", namespace, "link", "set", inside, "up")
            run("ip", "-n", namespace, "link", "set", "lo", "up")

    def pids(self, host: int) -> list[int]:
        """The processes in host ``host``'s namespace."""
        if self.names[host] not in self.namespaces:
            return []
        return [int(pid) for pid in run("ip", "netns", "pids", self.names[host]).split()]

    def kill(self, host: int) -> None:
        """Kill -9 every process in host ``host``'s namespace, as a crash of the host would."""
        for pid in self.pids(host):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def empty(self, host: int) -> bool:
        """Whether no process is left in host ``host``'s namespace."""
        return not self.pids(host)

    def connections(self, host: int, port: int) -> int:
        """Established TCP connections to ``port`` in host ``host``'s namespace."""
        table = run("ip", "netns", "exec", self.names[host], "cat", "/proc/net/tcp")
        local_port, established = f":{port:04X}", "01"
        rows = [line.split() for line in table.splitlines()[1:]]
        return sum(row[1].endswith(local_port) and row[3] == established for row in rows)

    def cut(self, host: int) -> None:
        """Take host ``host``'s link down: its packets are dropped, as if it lost power."""
        run("ip", "link", "set", self.names[host], "down")

    def close(self) -> list[str]:
        """Remove everything created; the errors, if any."""
        errors = []
        for namespace in list(self.namespaces):
            index = self.names.index(namespace)
            self.kill(index)
            with contextlib.suppress(TimeoutError):
                wait_until(partial(self.empty, index), 5, f"{namespace} emptied")
            try:
                run("ip", "netns", "del", namespace)  # takes its end of the veth pair along
                self.namespaces.remove(namespace)
            except RuntimeError as err:
                errors.append(str(err))
        for link in reversed(self.links):  # a veth goes with its namespace, not at once
            try:
                run("ip", "link", "del", link)
            except RuntimeError as err:
                if "Cannot find device" not in str(err):
                    errors.append(str(err))
        self.links.clear()
        return errors


# --- the hosts, Redis and nginx together ------------------------------------------------------


class TwoHosts:
    """Two ``tictactoe serve`` hosts on one Redis behind nginx on loopback.

    ``url`` is nginx's; ``hosts[i].url`` a host's own. Host processes log to
    ``hosts[i].log``, nginx to ``workdir / "nginx" / "error.log"``.
    """

    def __init__(
        self,
        *,
        ai_delay_ms: int = 0,
        beyond: tuple[str, ...] = BEYOND_GUIDE,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="tictactoe-two-hosts-"))
        self.network = Network(2)
        self.redis: RedisServer | None = None
        self.hosts: list[ServerProcess] = []
        self.nginx: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.url = ""
        self.ai_delay_ms = ai_delay_ms
        self.beyond = beyond
        self.config = ""
        self.env = dict(env or {})

    def __enter__(self) -> TwoHosts:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        """Build the network, then Redis, the two hosts and nginx."""
        self.network.create()
        gateway = self.network.gateway
        # The hosts reach Redis on the bridge, which redis-server's protected mode refuses
        # without a password: turned off, as an operator must (or set a password) for
        # Redis shared by several hosts.
        self.redis = RedisServer(self.workdir, bind=(gateway,), protected=False)
        self.redis.start()
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        shared = {
            "TICTACTOE_REDIS_URL": f"redis://{gateway}:{self.redis.port}/0",
            "TICTACTOE_SECRET_KEY": secrets.token_hex(32),  # the guide: the same on every host
            "TICTACTOE_SIGNING_KEY": secrets.token_hex(32),
            "TICTACTOE_TRUST_PROXY": "1",  # the guide: behind nginx
            "TICTACTOE_AI_DELAY_MS": str(self.ai_delay_ms),
            # Every player here comes from 127.0.0.1, which the caps per client address
            # are meant to stop: off (0), as for one big NAT.
            "TICTACTOE_NEW_PLAYERS_PER_MINUTE": "0",
            "TICTACTOE_MAX_SOCKETS_PER_ADDRESS": "0",
            "TICTACTOE_NEW_ROOMS_PER_HOUR": "0",
            **self.env,
        }
        tictactoe = str(Path(sys.executable).parent / "tictactoe")
        for index, namespace in enumerate(self.network.names):
            address = self.network.address(index)
            command = ["ip", "netns", "exec", namespace, tictactoe, "serve"]
            command += ["--host", address, "--port", str(HOST_PORT)]
            url = f"http://{address}:{HOST_PORT}"  # healthz from here, over the bridge
            host = ServerProcess(
                self.workdir / f"host-{namespace}", shared, command=command, port=HOST_PORT, url=url
            )
            self.hosts.append(host)
        with ThreadPoolExecutor(len(self.hosts)) as pool:
            list(pool.map(lambda host: host.start(), self.hosts))
        self.start_nginx()

    def start_nginx(self) -> None:
        """nginx on loopback with the hosting guide's configuration around the two hosts."""
        prefix = self.workdir / "nginx"
        prefix.mkdir()
        upstreams = [f"{host.url.removeprefix('http://')}" for host in self.hosts]
        self.config = nginx_config(
            GUIDE.read_text(),
            prefix=prefix,
            listen=f"{HOST}:{self.port}",
            upstreams=upstreams,
            beyond=self.beyond,
        )
        conf = prefix / "nginx.conf"
        conf.write_text(self.config)
        nginx = find_tool("nginx") or "nginx"
        log = (prefix / "stderr.log").open("ab")
        with log:
            self.nginx = subprocess.Popen(
                [nginx, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(conf)],
                stdout=log,
                stderr=log,
            )

        def ready() -> bool:
            if self.nginx is not None and self.nginx.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.nginx_log()}")
            return healthy(self.url)

        wait_until(ready, 10, "nginx answering")

    def nginx_log(self, chars: int = 3000) -> str:
        """The end of nginx's error log."""
        prefix = self.workdir / "nginx"
        text = ""
        for name in ("stderr.log", "error.log"):
            if (prefix / name).exists():
                text += (prefix / name).read_text(errors="replace")
        return text[-chars:]

    def kill(self, host: int) -> None:
        """Kill -9 host ``host``'s whole process tree (arbiter and workers)."""
        self.network.kill(host)
        process = self.hosts[host].process
        if process is not None:
            process.wait(timeout=10)
        wait_until(partial(self.network.empty, host), 10, "the killed host's processes gone")

    def close(self) -> None:
        """Stop nginx, the hosts and Redis; remove the namespaces, links and temp dir."""
        errors: list[str] = []
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait(timeout=10)
        for index, host in enumerate(self.hosts):
            self.network.kill(index)
            if host.process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    host.process.wait(timeout=10)
        if self.redis is not None:
            try:
                self.redis.stop()
            except subprocess.TimeoutExpired:
                if self.redis.process is not None:
                    self.redis.process.kill()
        errors += self.network.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        if errors:
            raise RuntimeError("clean-up failed: " + "; ".join(errors))


# --- the failover scenario ------------------------------------------------------------------


def play_move(player: Player, state: dict[str, Any]) -> dict[str, Any]:
    """Play the first empty cell; the state once the move and the AI's reply are in."""
    ack = player.move(state["board"].index("."))
    if ack != {"ok": True}:
        raise AssertionError(f"move refused: {ack}")
    return player.wait_for(lambda s: s["version"] > state["version"] and s["turn"] != "ai")


@dataclass
class Outcome:
    """What happened to one player across the failover."""

    index: int
    snapshot: dict[str, Any]  # its match just before the kill
    lost_socket: bool = False  # its socket was on the killed host and dropped
    dropped_s: float | None = None  # from the kill until its socket dropped
    back_s: float | None = None  # from the kill until its new connection had its state
    attempts: int = 0  # connections tried through nginx after the kill
    first: dict[str, Any] | None = None  # the first state on its new connection
    final: dict[str, Any] | None = None  # its state once the game was over
    old_still_open: bool | None = None  # its old socket, at the end
    error: str | None = None

    @property
    def lost(self) -> bool:
        """It came back to a match started anew instead of its own."""
        return self.first is not None and self.first["version"] < self.snapshot["version"]

    @property
    def changed(self) -> bool:
        """It found its match different from how it left it."""
        return self.first is not None and not self.lost and self.first != self.snapshot

    def differences(self) -> dict[str, tuple[Any, Any]]:
        """Each field that differs: (before the kill, after)."""
        first = self.first or {}
        keys = sorted(set(first) | set(self.snapshot))
        return {
            key: (self.snapshot.get(key), first.get(key))
            for key in keys
            if first.get(key) != self.snapshot.get(key)
        }


@dataclass
class Failover:
    """The whole run: one outcome per player."""

    outcomes: list[Outcome]
    killed: str
    held: int  # the websockets the killed host held when it was killed
    cut: bool
    setup_s: float
    total_s: float

    @property
    def moved(self) -> list[Outcome]:
        """The players whose socket was on the killed host."""
        return [o for o in self.outcomes if o.lost_socket]

    def summary(self) -> dict[str, Any]:
        """Figures for people; reconnection times are over the players who lost their socket."""
        back = [o.back_s for o in self.moved if o.back_s is not None]
        dropped = [o.dropped_s for o in self.moved if o.dropped_s is not None]

        def ms(values: list[float], share: float) -> float:
            return round(percentile(values, share) * 1000, 1)

        return {
            "players": len(self.outcomes),
            "killed": f"{self.killed} ({'link cut, then ' if self.cut else ''}kill -9)",
            "killed_host_sockets": self.held,
            "lost_socket": len(self.moved),
            "back": len(back),
            "not_back": sum(o.first is None for o in self.outcomes),
            "all_back_s": round(max(back), 3) if back else None,
            "back_ms": {"p50": ms(back, 0.5), "p99": ms(back, 0.99), "max": ms(back, 1.0)},
            "drop_seen_ms": {"p50": ms(dropped, 0.5), "max": ms(dropped, 1.0)},
            "retried_connections": sum(max(0, o.attempts - 1) for o in self.outcomes),
            "games_lost": sum(o.lost for o in self.outcomes),
            "games_changed": sum(o.changed for o in self.outcomes),
            "games_finished": sum(
                o.final is not None and o.final["status"] != "playing" for o in self.outcomes
            ),
            "errors": sum(o.error is not None for o in self.outcomes),
            "setup_s": round(self.setup_s, 1),
            "total_s": round(self.total_s, 1),
        }


def reconnect(url: str, cookie: str, deadline: float, outcome: Outcome) -> Player:
    """A new connection through nginx, tried again every 50 ms until ``deadline``."""
    while True:
        outcome.attempts += 1
        try:
            return Player(url, cookie)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def failover(
    two: TwoHosts,
    players: int = 100,
    *,
    kill: int = 0,
    cut: bool = False,
    drop_seconds: float = 10.0,
    reconnect_seconds: float = 30.0,
) -> Failover:
    """Players mid-game through nginx; host ``kill`` is killed -9; all resume and finish.

    Each player loads the page for its cookie, connects through nginx (its round robin
    puts about half on each host), plays one move and keeps the state after the AI's
    reply as its snapshot: mid-game, its turn, nothing pending. The websockets the host
    holds are counted, then every process of host ``kill`` is killed -9 (with ``cut``
    its link is taken down first, as when a host loses power rather than a process
    dying). A player whose socket drops reconnects through nginx at once, as the page
    does. The others, whose socket was on the surviving host, keep it, and once that
    many sockets have dropped (or after ``drop_seconds``) and those players are back,
    open a new connection too (a reload), so as not to slow the failover they measure.
    On the new connection the first state must be the snapshot; then the player plays
    its game to the end there.
    """
    started = time.monotonic()
    with ThreadPoolExecutor(min(players, 32)) as pool:
        cookies = list(pool.map(lambda _: session_cookie(two.url), range(players)))
        old = list(pool.map(lambda cookie: Player(two.url, cookie), cookies))
        snapshots = list(pool.map(lambda p: play_move(p, p.human_turn()), old))
    outcomes = [Outcome(i, snapshot) for i, snapshot in enumerate(snapshots)]
    setup_s = time.monotonic() - started

    drops = threading.Condition()
    dropped_at: dict[int, float] = {}
    came_back: set[int] = set()

    def watch(index: int) -> None:
        def on_disconnect(*_: object) -> None:
            with drops:
                dropped_at.setdefault(index, time.monotonic())
                drops.notify_all()

        old[index].client.on("disconnect", on_disconnect)

    for index in range(players):
        watch(index)
    held = two.network.connections(kill, HOST_PORT)
    killed_at = time.monotonic()
    if cut:
        two.network.cut(kill)
    two.kill(kill)

    def resume(outcome: Outcome) -> None:
        before, new = old[outcome.index], None
        try:
            with drops:
                drops.wait_for(
                    lambda: outcome.index in dropped_at or len(dropped_at) >= held, drop_seconds
                )
                if outcome.index in dropped_at:
                    outcome.lost_socket = True
                    outcome.dropped_s = dropped_at[outcome.index] - killed_at
                else:  # on the surviving host: wait for the others to be back
                    drops.wait_for(lambda: came_back >= set(dropped_at), reconnect_seconds)
            deadline = time.monotonic() + reconnect_seconds
            new = reconnect(two.url, cookies[outcome.index], deadline, outcome)
            state = outcome.first = new.wait_for(lambda s: True)
            outcome.back_s = time.monotonic() - killed_at
            with drops:
                came_back.add(outcome.index)
                drops.notify_all()
            while state["status"] == "playing":
                state = play_move(new, state)
            outcome.final = state
            outcome.old_still_open = before.connected
        except Exception as err:  # kept per player, reported together
            outcome.error = f"{type(err).__name__}: {err}"
        finally:
            for player in (new, before):
                if player is not None and player.connected:
                    with contextlib.suppress(Exception):
                        player.close()

    with ThreadPoolExecutor(players) as pool:
        list(pool.map(resume, outcomes))
    return Failover(
        outcomes,
        two.hosts[kill].url,
        held,
        cut=cut,
        setup_s=setup_s,
        total_s=time.monotonic() - started,
    )
