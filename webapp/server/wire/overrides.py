"""Every reach past a library's documented API, in one place, each pinned to its version.

Everything else uses the libraries' documented hooks: gunicorn's settings and worker
class, WSGI middleware (wire/websocket.py), python-socketio's ``json`` and
``serializer`` parameters and its handlers. What is here, and what the websocket guard
(wire/websocket.py) relies on of gunicorn and simple-websocket, was written against the
versions in ``PINNED``; a test fails when an installed version differs, so an upgrade of
one of these libraries is a deliberate change that re-reads this module and the guard.
Every other dependency is upgraded by regenerating the lock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Distribution name -> the version every override below, or the guard, was written against.
PINNED: dict[str, str] = {
    "python-socketio": "5.18.1",
    "flask-socketio": "5.7.0",
    # The guard's socket: gunicorn's gevent worker (AsyncWorker.handle_request, through
    # gunicorn.http.wsgi.create) puts the connection's socket in the WSGI environ as
    # ``gunicorn.socket``, where the guard puts its FrameGuard; a StopIteration out of
    # the app ends the connection with nothing written. process/serve.py's Worker takes
    # ``timeout_ctx`` as the keep-alive wait for a connection's next request (its only
    # use in AsyncWorker.handle), which a stop ends by raising its Timeout.
    "gunicorn": "27.0.1",
    # Its reader: simple_websocket.Server takes ``gunicorn.socket``, builds its handshake
    # from the environ's HTTP_ keys (so the guard takes out the compression offer), reads
    # only through ``sock.recv`` (``b""`` ends the connection) and writes only through
    # ``sock.send``; wsproto under it refuses a control frame over 125 bytes or in
    # fragments (close 1002), which the guard lets through.
    "simple-websocket": "1.1.0",
}

EioHandler = Callable[..., Any]


def front_engineio_handlers(
    server: Any,
    wrap: Callable[[EioHandler, EioHandler, EioHandler], tuple[EioHandler, ...]],
) -> None:
    """Put ``wrap``'s three handlers in front of python-socketio's own Engine.IO handlers.

    Written for python-socketio 5.18.1 and Flask-SocketIO 5.7.0. python-socketio hands
    every Engine.IO message to ``Server._handle_eio_message`` (registered with
    ``eio.on`` in socketio/base_server.py), which parses it at once. The flood limits
    must count a packet before anything parses it: ``bench/attack.py``'s flooders
    (1,000 events a second from one connection, or spread over 16 from one address)
    leave the other players' p99 within 2x of a quiet one only because a refused packet
    costs a bucket's check and no parsing. ``wrap(connect, message, disconnect)``
    receives the originals and returns their replacements, which are registered with
    Engine.IO (its documented ``on``) and set on the instance too, where Flask-SocketIO's
    test client calls them (flask_socketio/test_client.py calls ``_handle_eio_connect``
    and ``_handle_eio_message`` directly).
    """
    connect, message, disconnect = wrap(
        server._handle_eio_connect, server._handle_eio_message, server._handle_eio_disconnect
    )
    server._handle_eio_connect = connect
    server._handle_eio_message = message
    server._handle_eio_disconnect = disconnect
    server.eio.on("connect", connect)
    server.eio.on("message", message)
    server.eio.on("disconnect", disconnect)


def send_packet(server: Any, eio_sid: str, packet: Any) -> None:
    """Send a Socket.IO ``packet`` (an ack a handler never ran for) to one connection.

    Written for python-socketio 5.18.1 and Flask-SocketIO 5.7.0. python-socketio sends
    an ack only as a handler's return value; a refused event reaches no handler, yet is
    answered ``rate_limited`` through its ack (docs/protocol.md). ``Server._send_packet``
    is what python-socketio sends every packet through, and what Flask-SocketIO's test
    client replaces to hear them: Engine.IO's documented ``send`` would bypass it.
    """
    server._send_packet(eio_sid, packet)
