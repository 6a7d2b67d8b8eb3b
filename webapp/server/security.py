"""What keeps other sites out: the websocket's Origin check, proxy trust, page headers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

PROXY_HOPS = {"x_for": 1, "x_proto": 1, "x_host": 1, "x_port": 1}  # one reverse proxy
OriginCheck = Callable[[str | None, Mapping[str, Any]], bool]
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def allowed_origins(setting: str | None) -> list[str] | None:
    """The ``ALLOWED_ORIGINS`` setting as a list; None means same origin only."""
    if not setting:
        return None
    return [origin.strip() for origin in setting.split(",") if origin.strip()]


def origin_check(allowed: list[str] | None) -> OriginCheck:
    """Accept the configured origins, else only our own scheme and host.

    The scheme and host are the request's own, which ProxyFix has already taken from
    X-Forwarded-* when (and only when) TRUST_PROXY is on.
    """

    def check(origin: str | None, environ: Mapping[str, Any]) -> bool:
        if allowed is not None:
            return origin in allowed
        return origin == f"{environ.get('wsgi.url_scheme')}://{environ.get('HTTP_HOST')}"

    return check


def trust_proxy(app: Flask) -> None:
    """Take scheme, host and client address from one proxy's X-Forwarded-* headers.

    Outermost, so that the Socket.IO handshake sees the proxy's scheme and host too.
    """
    app.wsgi_app = ProxyFix(app.wsgi_app, **PROXY_HOPS)  # type: ignore[method-assign]


def handshake_allowed(app: Flask, environ: Mapping[str, Any]) -> bool:
    """Whether a request's Origin (if any) passes the check Engine.IO applies."""
    origin = environ.get("HTTP_ORIGIN")
    if not origin:
        return True
    seen: Mapping[str, Any] = environ
    if app.config["TRUST_PROXY"]:
        fixed: dict[str, Any] = {}

        def capture(environ: dict[str, Any], start_response: object) -> list[bytes]:
            fixed.update(environ)
            return []

        ProxyFix(capture, **PROXY_HOPS)(dict(environ), lambda *_: None)  # type: ignore[arg-type]
        seen = fixed
    return bool(app.extensions["origin_check"](origin, seen))


def security_headers(response: Response) -> Response:
    """Pages may load only our own scripts and styles, and never inside a frame."""
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response
