"""The pages: the game, and the health check for supervisors and proxies."""

from __future__ import annotations

import secrets

from flask import Blueprint, Response, current_app, jsonify, render_template, session

from .. import __version__
from .protocol import MODE_CHOICES

pages = Blueprint("pages", __name__)


@pages.get("/")
def index() -> str:
    """The game page; gives a new browser its player id in the session cookie."""
    if "player" not in session:
        session["player"] = secrets.token_urlsafe(18)
    session.permanent = True
    transports = "websocket,polling" if current_app.config["POLLING"] else "websocket"
    return render_template(
        "index.html", release=__version__, transports=transports, modes=MODE_CHOICES
    )


@pages.get("/healthz")
def healthz() -> Response:
    """Liveness probe for supervisors and proxies."""
    return jsonify(status="ok", version=__version__)
