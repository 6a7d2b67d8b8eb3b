# Two entry points: `make run` and `make test`. Both set everything up first and
# are cheap to repeat: each step is skipped when its output is newer than its input.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
CLIENT := static/vendor/socket.io.esm.min.js
AXE := node_modules/axe-core/axe.min.js
CHROMIUM ?= /usr/bin/chromium
REDIS_SERVER ?= /usr/bin/redis-server
NGINX ?= /usr/sbin/nginx
SYSTEMD_ANALYZE ?= /usr/bin/systemd-analyze

.PHONY: run test lint typecheck pytest install client bench bench-load bench-lighthouse bench-peer lock clean

run: install
	$(BIN)/tictactoe serve

test: install $(CHROMIUM) $(REDIS_SERVER) $(NGINX) $(SYSTEMD_ANALYZE) lint typecheck pytest

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

# systemd-analyze scores the guide's unit (its security) and lists the system calls of
# its filter; it runs offline, without systemd as PID 1.
/usr/bin/systemd-analyze:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

pytest: install $(AXE) $(CHROMIUM) $(REDIS_SERVER) $(NGINX) $(SYSTEMD_ANALYZE)
	$(BIN)/pytest

bench: install
	$(BIN)/python bench/engine.py

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

# A deliberate upgrade: new exact versions within pyproject.toml's ranges. Re-read
# webapp/server/patches.py against any new version of the libraries it names.
LOCK := $(BIN)/pip-compile --quiet --strip-extras --generate-hashes --allow-unsafe \
	--no-emit-index-url --no-emit-find-links --upgrade
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet pip-tools
	$(LOCK) --extra redis --output-file requirements.lock pyproject.toml
	$(LOCK) --extra redis --extra test --extra bench --output-file requirements-dev.lock pyproject.toml

clean:
	rm -rf $(VENV) node_modules static/vendor build dist *.egg-info tests/artifacts
