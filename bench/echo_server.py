"""A bare Flask-SocketIO server that answers the game protocol without playing any game.

The yardstick for bench/load.py: the same framework, session cookie, rooms and message
sizes as the real server, but no match logic, no AI and no storage. Each event is
answered with as many state-shaped emits as the real server sends, then the ack: a
move gets the human's move and the AI's reply (a random free cell) unless the move
ended the game; a game ends on three in a row or a full board, so games last as many
moves as real ones; a match lasts six games, about as many as the benchmark's
players last against the real AI. The release a client sends when it connects is
ignored.

It is served as ``tictactoe serve`` serves the game: gunicorn's arbiter with the
game's worker class (gunicorn's gevent worker, simple-websocket) and the game's settings,
read from the same TICTACTOE_* variables (TICTACTOE_WORKERS: how many workers), except
that it never uses Redis.

    .venv/bin/python bench/echo_server.py --port 5001
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import secrets
from typing import Any

from flask import Flask, jsonify, request, session
from flask_socketio import ConnectionRefusedError, SocketIO, join_room

from webapp.server import settings as config
from webapp.server.process.serve import Application

GAMES_PER_MATCH = 6
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class Echo:
    """Per-connection stand-in for a match: version, board, who started, game number."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.version = 0
        self.game = 0
        self.next_game()

    def next_game(self) -> None:
        """A fresh board; who starts is drawn, as the real server does."""
        self.board = list(".........")
        self.history: list[dict[str, Any]] = []
        self.game += 1
        self.first = self.rng.choice(("human", "ai"))

    def play(self, side: str, cell: object) -> None:
        """Put a mark on ``cell`` (or a random free cell)."""
        free = [i for i, c in enumerate(self.board) if c == "."]
        target = cell if isinstance(cell, int) and cell in free else self.rng.choice(free)
        self.board[target] = "X" if side == self.first else "O"
        self.history.append({"by": side, "cell": target})

    @property
    def done(self) -> bool:
        """True once a line is full or the board is."""
        board = self.board
        won = any(board[a] != "." and board[a] == board[b] == board[c] for a, b, c in LINES)
        return won or "." not in board

    def state(self, *, ai_to_move: bool = False) -> dict[str, Any]:
        """The next snapshot, with the keys and about the size of the real one."""
        self.version += 1
        done = self.done
        turn = None if done else "ai" if ai_to_move else "human"
        return {
            "version": self.version,
            "mode": "adaptive",
            "board": "".join(self.board),
            "human": "X" if self.first == "human" else "O",
            "ai": "O" if self.first == "human" else "X",
            "first": self.first,
            "turn": turn,
            "status": "draw" if done else "playing",
            "winning_line": None,
            "history": list(self.history),
            "last_ai_move": {
                "cell": 4,
                "decision": "perfect",
                "roll": 37,
                "difficulty": 60,
                "think_us": 85,
            },
            "match": {
                "human_hp": 100,
                "ai_hp": 40,
                "difficulty": 60,
                "start_human_hp": 100,
                "start_ai_hp": 100,
                "over": done and self.game >= GAMES_PER_MATCH,
                "winner": None,
                "game": self.game,
                "games": self.game - (0 if done else 1),
                "record": {"wins": 1, "losses": 0, "draws": 1},
                "last_hp_change": {"human": 10, "ai": -10},
            },
        }


def make_app(secret_key: str, max_payload: int = 4096) -> Flask:
    """The echo app, in gevent mode, signing its session cookies with ``secret_key``."""
    app = Flask(__name__)
    app.config["SECRET_KEY"] = secret_key
    socketio = SocketIO(app, async_mode="gevent", max_http_buffer_size=max_payload)
    echoes: dict[str, Echo] = {}

    @app.get("/")
    def index() -> str:
        session.setdefault("player", secrets.token_urlsafe(18))
        session.permanent = True
        return "<!doctype html><title>echo</title>"

    @app.get("/healthz")
    def healthz() -> Any:
        return jsonify(status="ok")

    def emit(state: dict[str, Any], to: str | None = None) -> None:
        socketio.emit("state", state, to=to or session["player"])

    def start_game(echo: Echo, to: str | None = None) -> dict[str, Any]:
        if echo.first == "ai":  # as the real server: the new game, then the AI's move
            emit(echo.state(ai_to_move=True), to)
            echo.play("ai", None)
        emit(echo.state(), to)
        return {"ok": True}

    @socketio.on("connect")
    def on_connect(auth: object = None) -> None:
        if "player" not in session:
            raise ConnectionRefusedError("no session: load the page first")
        join_room(session["player"])
        echoes[request.sid] = Echo(seed=len(echoes))  # type: ignore[attr-defined]
        start_game(echoes[request.sid], to=request.sid)  # type: ignore[attr-defined]

    @socketio.on("disconnect")
    def on_disconnect(*_: object) -> None:
        echoes.pop(request.sid, None)  # type: ignore[attr-defined]

    @socketio.on("move")
    def on_move(payload: Any = None) -> dict[str, Any]:
        echo = echoes[request.sid]  # type: ignore[attr-defined]
        echo.play("human", payload.get("cell") if isinstance(payload, dict) else None)
        emit(echo.state())
        if not echo.done:
            echo.play("ai", None)
            emit(echo.state())
        return {"ok": True}

    @socketio.on("next_game")
    def on_next_game(payload: Any = None) -> dict[str, Any]:
        echo = echoes[request.sid]  # type: ignore[attr-defined]
        echo.next_game()
        return start_game(echo)

    @socketio.on("new_match")
    def on_new_match(payload: Any = None) -> dict[str, Any]:
        echo = echoes[request.sid]  # type: ignore[attr-defined]
        echo.game = 0
        echo.next_game()
        return start_game(echo)

    return app


class EchoApplication(Application):
    """The echo app under the game's gunicorn application: same options, same worker."""

    def load_config(self) -> None:
        """The game's gunicorn settings, without its match pruning."""
        super().load_config()
        self.cfg.set("proc_name", "echo")
        self.cfg.set("post_worker_init", _settle)

    def load(self) -> Flask:
        """The echo app, built in the worker after gevent has patched it."""
        return make_app(self.settings["SECRET_KEY"])


def _settle(worker: object) -> None:
    """Keep the framework's objects out of the collector's way, as the game's workers do."""
    gc.collect()
    gc.freeze()


def main() -> None:
    """Serve the echo app until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address (127.0.0.1)")
    parser.add_argument("--port", type=int, default=5001, help="port (5001)")
    args = parser.parse_args()
    settings = {**config.load(os.environ), "HOST": args.host, "PORT": args.port}
    # One key for all workers, so that a page served by one is good for the others.
    settings["SECRET_KEY"] = settings["SECRET_KEY"] or secrets.token_hex(16)
    EchoApplication(settings).run()


if __name__ == "__main__":
    main()
