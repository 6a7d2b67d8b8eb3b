"""The ports the tests' servers get: never one twice in a run, nor one another pytest-xdist
worker may get, nor one the kernel may give a probe or an outgoing connection."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from support.testing import HOST, PORTS_FROM, PORTS_PER_WORKER, free_port


def test_each_port_is_new_and_in_this_workers_range_below_the_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kernels = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
    low, high = (int(n) for n in kernels.split())
    for worker in range(4):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{worker}")
        first = PORTS_FROM + worker * PORTS_PER_WORKER
        ports = [free_port() for _ in range(50)]
        assert len(set(ports)) == 50
        assert all(first <= port < first + PORTS_PER_WORKER for port in ports)
        assert all(not low <= port <= high for port in ports)


def test_a_port_something_listens_on_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    taken = free_port() + 1
    first = PORTS_FROM + PORTS_PER_WORKER
    if taken >= first + PORTS_PER_WORKER:
        taken = first
    with socket.socket() as listener:
        listener.bind((HOST, taken))
        listener.listen()
        assert taken not in {free_port() for _ in range(PORTS_PER_WORKER - 1)}
