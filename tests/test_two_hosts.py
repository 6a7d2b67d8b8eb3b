"""Two hosts on one Redis behind nginx, as the hosting guide runs them, and one killed.

The set-up is tests/support/hosts.py's: two network namespaces (host A and host B) on a
bridge in a private /24 that the test creates and removes, ``tictactoe serve`` in each,
one redis-server on the bridge, and nginx on loopback configured from the nginx blocks
of docs/hosting.md. 100 players play through nginx, host A is killed with kill -9 mid-game,
and every player must find its match on host B exactly as it was, then finish its game.
The time until every player is back is printed (``pytest -s``); bench/failover.py
reports the same run in full. Needs root, ``ip``, ``nginx`` and ``redis-server``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.guide import GUIDE, SEVERAL_HOSTS, SITE, guide_blocks
from support.hosts import (
    BEYOND_GUIDE,
    Failover,
    NamespacesRefused,
    TwoHosts,
    failover,
    find_tool,
    nginx_config,
    unavailable,
)

PLAYERS = 100
UPSTREAMS = ["10.231.99.11:5000", "10.231.99.12:5000"]  # only written into a file here


@pytest.fixture
def two_hosts() -> Iterator[TwoHosts]:
    """Two hosts and nginx, all removed afterwards (namespaces, links, processes, files)."""
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    hosts = TwoHosts()
    try:
        hosts.start()
    except NamespacesRefused as err:
        hosts.close()
        pytest.skip(f"cannot create network namespaces: {err}")
    except BaseException:
        hosts.close()
        raise
    try:
        yield hosts
    finally:
        hosts.close()


def logs(two: TwoHosts) -> str:
    """What the hosts and nginx said, for a failure's message."""
    parts = [f"--- {host.url}\n{host.log_tail(2000)}" for host in two.hosts]
    return "\n".join([*parts, f"--- nginx\n{two.nginx_log(2000)}"])


def test_nginx_config_is_the_guides_with_only_the_operators_parts(tmp_path: Path) -> None:
    guide = GUIDE.read_text()
    blocks = guide_blocks(guide)
    config = nginx_config(guide, prefix=tmp_path, listen="127.0.0.1:8080", upstreams=UPSTREAMS)
    site_lines = [line.split("#", 1)[0].strip() for line in blocks[SITE].splitlines()]
    last = len(site_lines) - 1 - site_lines[::-1].index("location / {")  # the TLS server's
    location = site_lines[last + 1 :]
    copied = [line for line in location[: location.index("}")] if line.endswith(";")]
    assert any(line.startswith("proxy_set_header") for line in copied), copied
    assert "proxy_pass http://tictactoe;" in copied
    for line in [*copied, "upstream tictactoe {", "client_max_body_size 16k;"]:
        assert line in config
    assert config.count("NOT in the hosting guide") == len(BEYOND_GUIDE)
    for upstream in UPSTREAMS:
        assert f"server {upstream};" in config
    examples = [line.strip() for line in blocks[SEVERAL_HOSTS].splitlines()]
    examples = [line for line in examples if line.startswith("server ")]
    assert examples and not any(line in config for line in examples)  # replaced
    nginx = find_tool("nginx")
    if nginx is None:
        pytest.skip("nginx not found: the config was not checked by nginx -t")
    conf = tmp_path / "nginx.conf"
    conf.write_text(config)
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c", str(conf)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def test_one_host_killed_every_player_resumes_on_the_other(two_hosts: TwoHosts) -> None:
    run: Failover = failover(two_hosts, PLAYERS)
    summary = run.summary()
    print(f"\ntwo hosts behind nginx, {PLAYERS} players, host A killed -9: {json.dumps(summary)}")

    errors = [(o.index, o.error) for o in run.outcomes if o.error]
    assert not errors, f"{len(errors)} players failed, e.g. {errors[:5]}\n{logs(two_hosts)}"
    assert all(
        o.snapshot["status"] == "playing" and o.snapshot["turn"] == "human" for o in run.outcomes
    )  # every player was mid-game, with nothing pending, when the host died
    assert 0 < run.held < PLAYERS, summary  # nginx had put players on both hosts
    assert len(run.moved) == run.held, summary  # each socket host A held dropped
    assert two_hosts.network.empty(0)  # host A is dead: every new connection went to B

    assert [o.index for o in run.outcomes if o.first is None] == []  # every player is back
    lost = [(o.index, o.snapshot["version"], o.first) for o in run.outcomes if o.lost]
    assert lost == [], f"{len(lost)} games lost, e.g. {lost[:3]}"
    changed = [(o.index, o.differences()) for o in run.outcomes if o.changed]
    assert changed == [], f"{len(changed)} games changed, e.g. {changed[:3]}"
    unfinished = [o.index for o in run.outcomes if not o.final or o.final["status"] == "playing"]
    assert unfinished == []
    disturbed = [o.index for o in run.outcomes if not o.lost_socket and not o.old_still_open]
    assert disturbed == [], "sockets on the surviving host were dropped"
