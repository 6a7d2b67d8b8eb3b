# Three entry points: `make run`, `make check` (a change's quick check: the linters and
# the in-process tests, in a couple of minutes) and `make test` (everything). Each sets
# everything up first and is cheap to repeat: a step is skipped when its output is newer
# than its input.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
CLIENT := static/vendor/socket.io.esm.min.js
AXE := node_modules/axe-core/axe.min.js
CHROMIUM ?= /usr/bin/chromium
REDIS_SERVER ?= /usr/bin/redis-server
NGINX ?= /usr/sbin/nginx
# The Pythons the runtime lock is installed on and the server played on
# (tests/test_pythons.py): Debian 12's own (3.11.2), and a 3.12 (Ubuntu 24.04's) and a
# 3.13 (Debian 13's) from pyenv's builds, else from PATH. `make test` tries each one it
# finds and names those it skipped; with TICTACTOE_REQUIRE_PYTHONS=1 (as .ci/run sets) a
# missing one is an error. Name them with `make test PYTHON312=/path/to/python3.12` and so on.
SYSTEM_PYTHON ?= /usr/bin/python3
PYENV_VERSIONS := $(shell pyenv root 2>/dev/null)/versions
found_python = $(or $(lastword $(sort $(wildcard $(PYENV_VERSIONS)/$(1)*/bin/python$(1)))),$\
	$(shell command -v python$(1) 2>/dev/null))
PYTHON312 ?= $(call found_python,3.12)
PYTHON313 ?= $(call found_python,3.13)
SYSTEMD_ANALYZE ?= /usr/bin/systemd-analyze
FOUND_PYTHONS = $(foreach python,$(SYSTEM_PYTHON) $(PYTHON312) $(PYTHON313),$(wildcard $(python)))
# pytest's worker processes in `make test` (pytest-xdist), each taking whole modules (so
# that a module's tests share one live server) in tests/conftest.py's order; most of a
# test's time is spent waiting on its servers and browser.
JOBS ?= 4
# The tiers that leave the test's process (tests/conftest.py); `make check` runs the rest.
OUT_OF_PROCESS := browser or server or attack or system

.PHONY: run check test lint typecheck pytest pythons install client bench bench-lab bench-load bench-lighthouse bench-peer lock clean

run: install
	$(BIN)/tictactoe serve

check: install lint typecheck
	$(BIN)/pytest -q -n 2 -m "not ($(OUT_OF_PROCESS))"

test: install $(CHROMIUM) $(REDIS_SERVER) $(NGINX) $(SYSTEMD_ANALYZE) pythons lint typecheck pytest

install: $(INSTALLED) $(CLIENT)

# Only the browser's socket.io client, from npm, into static/vendor/: what a server's
# install needs before `pip install .` (docs/hosting.md).
client: $(CLIENT)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Exact versions with hashes from the lock (the same one for a developer and CI), then
# the project itself with nothing more.
$(INSTALLED): requirements-dev.lock pyproject.toml | $(BIN)/python $(CLIENT)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# A server's install takes the browser's client alone; the tests also take axe-core
# (a devDependency, never served), which checks the page's accessibility.
node_modules/socket.io-client/package.json: package.json package-lock.json
	npm ci --omit=dev --no-audit --no-fund --loglevel=error
	touch $@

$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(CLIENT): node_modules/socket.io-client/package.json
	mkdir -p static/vendor
	cp node_modules/socket.io-client/dist/socket.io.esm.min.js $@

# Debian's Chromium drives the browser tests and redis-server backs the several-process
# tests (each test run starts its own, on a free loopback port); installed when missing.
/usr/bin/chromium:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

/usr/bin/redis-server:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server

# nginx fronts the several-host test (each test run starts its own, in its own netns).
# Debian's package starts a service on port 80 when it can; the tests never use it.
/usr/sbin/nginx:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light iproute2

# Each of the three that is found, and a line for each one skipped (an error with
# TICTACTOE_REQUIRE_PYTHONS=1); Debian's python3-venv (venv's pip) when missing.
pythons:
	@found() { test -n "$$2" && test -x "$$2" && return; \
		if [ "$${TICTACTOE_REQUIRE_PYTHONS:-}" = 1 ]; then echo "no $$1 found: set $$3=" >&2; exit 1; fi; \
		echo "skipped: no $$1 found (set $$3= to try it)"; }; \
		found "$(SYSTEM_PYTHON)" "$(SYSTEM_PYTHON)" SYSTEM_PYTHON; \
		found "Python 3.12" "$(PYTHON312)" PYTHON312; \
		found "Python 3.13" "$(PYTHON313)" PYTHON313
	@test ! -x "$(SYSTEM_PYTHON)" || $(SYSTEM_PYTHON) -c 'import ensurepip' 2>/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv; }

# systemd-analyze scores the guide's unit (its security) and lists the system calls of
# its filter; it runs offline, without systemd as PID 1.
/usr/bin/systemd-analyze:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd

# ruff, and the layers' contracts (pyproject.toml's [tool.importlinter], docs/architecture.md).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

typecheck: install
	$(BIN)/mypy

pytest: install $(AXE) $(CHROMIUM) $(REDIS_SERVER) $(NGINX) $(SYSTEMD_ANALYZE) pythons
	TICTACTOE_TEST_PYTHONS="$(FOUND_PYTHONS)" $(BIN)/pytest -n $(JOBS) --dist loadfile --no-loadscope-reorder --durations=25

bench: install
	$(BIN)/python bench/engine.py

# Opening a node of the lab's tree, every combination of choices: under 50 ms on the
# server (about 20 s; docs/lab.md).
bench-lab: install
	$(BIN)/python bench/lab.py

# The server under 200 players, against a bare echo server (a few minutes).
bench-load: install
	$(BIN)/python bench/load.py --clients 200 --flood 1000 --idle-sessions 10000

# Lighthouse's scores for the page, mobile and desktop, median of 3 runs (a few minutes);
# fails under its targets (docs/performance.md). Lighthouse goes into .bench/ on first
# use, never into package.json.
bench-lighthouse: install $(CHROMIUM)
	$(BIN)/python bench/lighthouse.py --runs 3

# This server against boardgame.io 0.50's, 200 games each in interleaved windows, then
# 2,000 idle players; on SQLite, then on Redis (about 5 minutes; docs/performance.md).
# boardgame.io goes into .bench/ on first use, never into package.json.
bench-peer: install $(REDIS_SERVER)
	$(BIN)/python bench/peer.py
	$(BIN)/python bench/peer.py --redis

# A deliberate upgrade: new exact versions within pyproject.toml's ranges. A new version
# of a library in webapp/server/wire/overrides.py's PINNED fails a test: re-read what
# relies on it (the overrides there, the websocket guard in wire/websocket.py, the
# worker in process/serve.py), then update PINNED.
# One resolution for every Python from 3.11 up and every platform, with hashes: a
# dependency that only some take carries its marker (redis's async-timeout, below
# Python 3.11.3). `make lock UPGRADE=` only adds what changed ranges need, keeping
# the other versions. The development lock takes the production lock's versions.
UPGRADE ?= --upgrade
LOCK := $(BIN)/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock" $(UPGRADE)
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv
	$(LOCK) --extra redis --output-file requirements.lock pyproject.toml
	$(LOCK) --extra redis --extra test --extra bench --constraints requirements.lock \
		--output-file requirements-dev.lock pyproject.toml

clean:
	rm -rf $(VENV) node_modules static/vendor build dist *.egg-info tests/artifacts
