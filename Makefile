# Two entry points: `make run` and `make test`. Both set everything up first and
# are cheap to repeat: each step is skipped when its output is newer than its input.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
CLIENT := static/vendor/socket.io.esm.min.js
CHROMIUM ?= /usr/bin/chromium
REDIS_SERVER ?= /usr/bin/redis-server

.PHONY: run test lint typecheck pytest install bench bench-load clean

run: install
	$(BIN)/tictactoe serve

test: install $(CHROMIUM) $(REDIS_SERVER) lint typecheck pytest

install: $(INSTALLED) $(CLIENT)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python $(CLIENT)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

node_modules/socket.io-client/package.json: package.json package-lock.json
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

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

pytest: install $(CHROMIUM) $(REDIS_SERVER)
	$(BIN)/pytest

bench: install
	$(BIN)/python bench/engine.py

# The server under 200 players, against a bare echo server (a few minutes).
bench-load: install
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python bench/load.py --clients 200 --flood 1000 --idle-sessions 10000

clean:
	rm -rf $(VENV) node_modules static/vendor build dist *.egg-info tests/artifacts
