"""The Flask application: configuration, pages, and the Socket.IO server."""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, render_template, request, session
from flask.sessions import SecureCookieSessionInterface
from flask_socketio import SocketIO
from werkzeug.middleware.proxy_fix import ProxyFix

from . import __version__
from .store import SQLiteStore

log = logging.getLogger(__name__)
PACKAGE_DIR = Path(__file__).resolve().parent

DEFAULTS: dict[str, Any] = {
    "HOST": "127.0.0.1",
    "PORT": 5000,
    "DATA_DIR": None,  # None: the Flask instance folder
    "AI_DELAY_MS": 350,
    "SECRET_KEY": None,  # None: generated once and kept in the data dir
    "ALLOWED_ORIGINS": None,  # None: same origin only
    "TRUST_PROXY": False,
    "IDLE_DAYS": 30,
    "RATE_PER_SECOND": 20.0,
    "RATE_BURST": 40,
    "MAX_PAYLOAD_BYTES": 4096,
    "ASYNC_MODE": "threading",
    "SEED": None,
}
# Environment variables that override the defaults, and how to read each one.
ENV_SETTINGS: dict[str, Any] = {
    "HOST": str,
    "PORT": int,
    "DATA_DIR": str,
    "AI_DELAY_MS": int,
    "SECRET_KEY": str,
    "ALLOWED_ORIGINS": str,
    "TRUST_PROXY": lambda v: v.strip().lower() in ("1", "true", "yes", "on"),
    "IDLE_DAYS": float,
    "RATE_PER_SECOND": float,
    "RATE_BURST": int,
}
UNPREFIXED = ("HOST", "PORT")

pages = Blueprint("pages", __name__)


def resource_dir(name: str) -> Path:
    """``templates`` or ``static``: inside the installed package, else beside it in a checkout."""
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent / name


def env_config(environ: Mapping[str, str]) -> dict[str, Any]:
    """Settings read from ``TICTACTOE_*`` variables (and plain HOST and PORT)."""
    found: dict[str, Any] = {}
    for key, parse in ENV_SETTINGS.items():
        names = [f"TICTACTOE_{key}"] + ([key] if key in UNPREFIXED else [])
        for name in names:
            if environ.get(name):
                found[key] = parse(environ[name])
                break
    return found


class _SessionInterface(SecureCookieSessionInterface):
    """Marks the session cookie Secure whenever the request came over https."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


def _secret_key(data_dir: Path) -> str:
    """The key kept in the data dir, created once with owner-only permissions."""
    path = data_dir / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_hex(32))
    return path.read_text().strip()


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then the environment, then ``test_config``."""
    app = Flask(
        __name__,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
    )
    app.config.update(DEFAULTS)
    app.config.update(env_config(os.environ))
    app.config.update(test_config or {})
    data_dir = Path(app.config["DATA_DIR"] or app.instance_path)
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data_dir)
    app.config["SECRET_KEY"] = app.config["SECRET_KEY"] or _secret_key(data_dir)
    app.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=app.config["IDLE_DAYS"]),
    )
    app.session_interface = _SessionInterface()
    if app.config["TRUST_PROXY"]:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1, x_port=1)  # type: ignore[method-assign]
    app.register_blueprint(pages)
    app.after_request(_security_headers)

    from .events import Games, register

    store = SQLiteStore(data_dir / "matches.sqlite3")
    store.prune(app.config["IDLE_DAYS"] * 86400)
    socketio = SocketIO(
        app,
        async_mode=app.config["ASYNC_MODE"],
        cors_allowed_origins=_origins(app.config["ALLOWED_ORIGINS"]),
        max_http_buffer_size=app.config["MAX_PAYLOAD_BYTES"],
    )
    games = Games(app.config, store, socketio)
    app.extensions["tictactoe"] = games
    register(socketio, games)
    return app


def _origins(setting: str | None) -> list[str] | None:
    if not setting:
        return None
    return [origin.strip() for origin in setting.split(",") if origin.strip()]


def _security_headers(response: Response) -> Response:
    """Pages may load only our own scripts and styles, and never inside a frame."""
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


@pages.get("/")
def index() -> str:
    """The game page; gives a new browser its player id in the session cookie."""
    if "player" not in session:
        session["player"] = secrets.token_urlsafe(18)
    session.permanent = True
    return render_template("index.html", version=__version__)


@pages.get("/healthz")
def healthz() -> Response:
    """Liveness probe for supervisors and proxies."""
    return jsonify(status="ok", version=__version__)


def serve(*, host: str | None = None, port: int | None = None) -> None:
    """Run the production server (gevent; the caller has monkey-patched) until interrupted."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    app = create_app({"ASYNC_MODE": "gevent"})
    socketio: SocketIO = app.extensions["socketio"]
    host = host or app.config["HOST"]
    port = port or app.config["PORT"]
    log.info("tictactoe %s listening on http://%s:%s", __version__, host, port)
    socketio.run(app, host=host, port=port, log_output=False)
