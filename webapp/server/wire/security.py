"""What keeps other sites out: the websocket's Origin check, proxy trust, page headers."""

from __future__ import annotations

import contextlib
import functools
import socket
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix

OriginCheck = Callable[[str | None, Mapping[str, Any]], bool]
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, the cookie marked Secure over https too."""

    def get_cookie_secure(self, app: Flask) -> bool:
        """Secure when configured so, or when this request came over https."""
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


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


def comma_list(setting: str | None) -> list[str]:
    """A comma-separated setting as a list of its non-empty items."""
    return [item.strip() for item in (setting or "").split(",") if item.strip()]


class ForwardedHosts:
    """WSGI middleware: drops an X-Forwarded-Host that is not one of the public hosts.

    Anyone can send the header; the proxy's word on the host counts only for the hosts
    the site is served as.
    """

    def __init__(self, app: Any, public_hosts: list[str]) -> None:
        self.app, self.public_hosts = app, {host.lower() for host in public_hosts}

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Pass the request on without a foreign X-Forwarded-Host."""
        forwarded = environ.get("HTTP_X_FORWARDED_HOST", "").split(",")[-1].strip().lower()
        if forwarded and forwarded.rsplit(":", 1)[0] not in self.public_hosts:
            environ.pop("HTTP_X_FORWARDED_HOST", None)
            environ.pop("HTTP_X_FORWARDED_PORT", None)
        return self.app(environ, start_response)


def behind_proxy(app: Flask, inner: Any) -> Any:
    """``inner`` as seen through one trusted reverse proxy's X-Forwarded-* headers."""
    public = comma_list(app.config["PUBLIC_HOSTS"])
    listed = 1 if public else 0
    fixed = ProxyFix(inner, x_for=1, x_proto=1, x_host=listed, x_port=listed)
    return ForwardedHosts(fixed, public)


def trust_proxy(app: Flask) -> None:
    """Take scheme, client address (and a listed host) from one proxy's headers.

    Outermost, so that the Socket.IO handshake sees the proxy's scheme and host too.
    """
    app.wsgi_app = behind_proxy(app, app.wsgi_app)  # type: ignore[method-assign]


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

        behind_proxy(app, capture)(dict(environ), lambda *_: None)
        seen = fixed
    return bool(app.extensions["origin_check"](origin, seen))


BODY_BYTES = 1024  # the largest request body a page or form takes (a form's few fields)


def refuse_large_bodies() -> Response | None:
    """Before a page's or form's route: a body it would never read is refused by its
    announced length, unread, and the connection closed (gevent would read it to find
    the next request)."""
    chunked = "chunked" in request.headers.get("Transfer-Encoding", "").lower()
    if not chunked and (request.content_length or 0) <= BODY_BYTES:
        return None
    message = f"Request bodies here are at most {BODY_BYTES} bytes: this one was not read.\n"
    response = Response(message, 413, {"Connection": "close"}, mimetype="text/plain")
    # gunicorn keeps the connection open whatever the app says, and would read the body
    # to find the next request: once the answer is out, the connection ends instead.
    sock = request.environ.get("gunicorn.socket")
    if sock is not None:
        response.call_on_close(functools.partial(hang_up, sock))
    return response


def hang_up(sock: socket.socket) -> None:
    """End a connection in both directions (what is unread stays unread)."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
)


class SecurityHeaders:
    """WSGI middleware: every response carries the headers (Socket.IO's included).

    Pages may load only our own scripts and styles, and never inside a frame.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Add the missing security headers to the response."""

        def with_headers(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            present = {name.lower() for name, _ in headers}
            extra = [(k, v) for k, v in SECURITY_HEADERS if k.lower() not in present]
            return start_response(status, headers + extra, *rest)

        return self.app(environ, with_headers)


NOT_FOUND = b"Not found: this site is served under "


class UnderPath:
    """WSGI middleware: the site lives under ``base`` (e.g. ``/tictactoe``).

    The proxy forwards the path whole; this moves ``base`` from PATH_INFO to SCRIPT_NAME,
    so that every URL the app builds (pages, static files, the socket's path, the
    cookie's path) carries it. ``base`` alone is sent on to ``base/``; any other path
    is a 404.
    """

    def __init__(self, app: Any, base: str) -> None:
        self.app, self.base = app, base

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Pass on a request under the base path; answer any other."""
        path = environ.get("PATH_INFO", "")
        if path.startswith(self.base + "/"):
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + self.base
            environ["PATH_INFO"] = path[len(self.base) :]
            return self.app(environ, start_response)
        if path == self.base:
            start_response("308 Permanent Redirect", [("Location", self.base + "/")])
            return [b""]
        body = NOT_FOUND + self.base.encode() + b"/\n"
        headers = [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]
        start_response("404 Not Found", headers)
        return [body]
