"""Every incoming Socket.IO packet counted against the flood limits before it is parsed.

The limits (limits/rates.py) come before python-socketio's own handling of each Engine.IO
message (overrides.front_engineio_handlers puts them there). A refused event is answered
``rate_limited`` through its ack, its id read without parsing the packet; a packet that
cannot be read gets the ``problem`` event; a connection that keeps it up is cut off.
Binary packets are never accepted: they would hold their attachments in memory. A
connection that has not joined the default namespace in time is closed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from socketio.packet import ACK, EVENT

from webapp.server.limits.rates import QuietLog, RateLimits, Verdict
from webapp.server.wire.codec import JsonPacket
from webapp.server.wire.overrides import EioHandler, front_engineio_handlers, send_packet

_EVENT_ACK_ID = re.compile(r"2(\d{1,15})\[")  # an event on "/" asking for an ack


def call_later(server: Any, seconds: float, callback: Callable[..., Any], *args: Any) -> None:
    """Call ``callback(*args)`` in ``seconds``, in ``server``'s (Socket.IO's or Engine.IO's) mode.

    Under gevent a loop timer holds the call (no greenlet waits meanwhile), and the
    callback runs in the loop itself: it must not block, and spawns a greenlet for
    anything that may. In any other mode a background task sleeps first.
    """
    if server.async_mode == "gevent":
        import gevent

        gevent.get_hub().loop.timer(seconds).start(callback, *args)
        return

    def later() -> None:
        server.sleep(seconds)
        callback(*args)

    server.start_background_task(later)


def guard_messages(
    server: Any,
    limits: RateLimits,
    log: QuietLog,
    *,
    refusal: object,
    bad_packet: object,
    handshake_seconds: float,
) -> None:
    """Route every Engine.IO message of ``server`` (a socketio.Server) through ``limits``.

    Buckets are dropped on Engine.IO's disconnect, which no client packet can trigger.
    A websocket's transport is told when its connection joins the game, which ends the
    small allowance of packets it has until then.
    """
    unjoined: dict[str, Callable[[], None]] = {}  # eio sid -> its transport's ``joined``

    def wrap(
        connected: EioHandler, handle: EioHandler, disconnected: EioHandler
    ) -> tuple[EioHandler, ...]:
        def on_connect(eio_sid: str, environ: dict[str, Any], *args: Any) -> Any:
            limits.open(eio_sid, environ.get("REMOTE_ADDR"))
            mark = getattr(environ.get("gunicorn.socket"), "joined", None)
            if callable(mark):  # a websocket's FrameGuard (wire/websocket.py)
                unjoined[eio_sid] = mark
            call_later(server, handshake_seconds, close_unless_joined, eio_sid)
            return connected(eio_sid, environ, *args)

        def on_message(eio_sid: str, data: object) -> None:
            verdict = limits.check(eio_sid)
            if verdict is Verdict.WAIT:
                # This connection's own reader sleeps: its later packets wait in its socket.
                server.sleep(limits.wait(eio_sid))
                verdict = Verdict.PASS
            if verdict is Verdict.PASS:
                problem = _unreadable(data) or _unjoined(server, eio_sid, data)
                problem = problem or _handled(handle, eio_sid, data)
                if problem is None:
                    if eio_sid in unjoined and server.manager.sid_from_eio_sid(eio_sid, "/"):
                        unjoined.pop(eio_sid)()  # its transport's allowance ends
                    return
                verdict = limits.malformed(eio_sid)
                log.warning("unreadable packets", problem)
                if verdict is Verdict.REFUSE:
                    send(eio_sid, EVENT, bad_packet)
            elif verdict is Verdict.REFUSE:
                found = _EVENT_ACK_ID.match(data[:18]) if isinstance(data, str) else None
                if found:
                    send(eio_sid, ACK, [refusal], int(found[1]))
            if verdict is Verdict.CUT:
                log.warning("connections cut off", f"{eio_sid} stayed over its limit")
                server.start_background_task(server.eio.disconnect, eio_sid)

        def on_disconnect(eio_sid: str, *args: Any) -> None:
            unjoined.pop(eio_sid, None)
            try:
                disconnected(eio_sid, *args)
            finally:
                limits.forget(eio_sid)

        return on_connect, on_message, on_disconnect

    def close_unless_joined(eio_sid: str) -> None:  # in the loop: only looks, then spawns
        if eio_sid in server.eio.sockets and not server.manager.sid_from_eio_sid(eio_sid, "/"):
            server.start_background_task(close_unjoined, eio_sid)

    def close_unjoined(eio_sid: str) -> None:
        log.warning("handshakes not finished", f"{eio_sid} joined no game in time")
        server.eio.disconnect(eio_sid)

    def send(eio_sid: str, packet_type: int, data: object, ack: int | None = None) -> None:
        send_packet(server, eio_sid, JsonPacket(packet_type, data=data, namespace="/", id=ack))

    front_engineio_handlers(server, wrap)


def _unreadable(data: object) -> str | None:
    if not isinstance(data, str):
        return "a binary message"
    if data[:1] in ("5", "6"):
        return "a binary Socket.IO packet"
    return None


def _unjoined(server: Any, eio_sid: str, data: object) -> str | None:
    # python-socketio drops events of a connection that has not joined the namespace, but
    # only after parsing them: count them as unreadable instead.
    is_event = isinstance(data, str) and data[:1] == "2"
    if is_event and not server.manager.sid_from_eio_sid(eio_sid, "/"):
        return "an event before joining"
    return None


def _handled(handle: EioHandler, eio_sid: str, data: object) -> str | None:
    try:
        handle(eio_sid, data)
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return None
