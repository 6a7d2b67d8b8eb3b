"""Long-polling requests paid from their address's packets, their bodies read first.

Served only with ``TICTACTOE_POLLING=1`` (Engine.IO answers 400 otherwise). A GET (a
poll, or a new connection) is one packet; a POST's body is counted, packet by packet,
before Engine.IO decodes it. Engine.IO decodes at most 16 packets of a body and raises
past that, as it does on an empty packet or one that is not UTF-8: a traceback in the
log for each POST. Such a body is answered 400 here instead, unread by Engine.IO.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from engineio.payload import Payload

from webapp.server.limits.rates import AddressPackets, QuietLog
from webapp.server.wire.websocket import LONGEST_WAIT, PACKET_TYPES, Respond, refuse_request


class PollingGuard:
    """WSGI middleware: a long-polling request's packets counted, its body checked.

    More packets than Engine.IO decodes in one body, or a packet that is empty, not
    UTF-8, or not of a type a client sends, is answered 400; while the address is more
    than ``LONGEST_WAIT`` seconds in debt, 429.
    """

    def __init__(
        self,
        app: Any,
        limit: int,
        *,
        path: str = "/socket.io",
        packets: AddressPackets | None = None,
        log: QuietLog | None = None,
    ) -> None:
        self.app, self.limit, self.path, self.packets, self.log = app, limit, path, packets, log

    def __call__(self, environ: dict[str, Any], start_response: Respond) -> Any:
        """Count a long-polling request's packets; refuse it, or pass it on."""
        if (
            "transport=polling" not in environ.get("QUERY_STRING", "")
            or not environ.get("PATH_INFO", "").rstrip("/").endswith(self.path)
            or environ.get("REQUEST_METHOD") not in ("GET", "POST")
        ):
            return self.app(environ, start_response)
        count, problem = 1, ""
        if environ["REQUEST_METHOD"] == "POST":
            count, problem = self._read_body(environ)
        if problem:
            if self.log is not None:
                self.log.warning("long-polling bodies refused", problem)
            return refuse_request(start_response, "400 Bad Request", problem)
        address = environ.get("REMOTE_ADDR")
        shared = self.packets.enter(address) if self.packets else None
        try:
            if shared is not None and shared.debt_seconds() > LONGEST_WAIT:
                if self.log is not None:
                    self.log.warning("long-polling requests refused", f"from {address}")
                return refuse_request(start_response, "429 Too Many Requests", "too many packets")
            if shared is not None:
                shared.spend(count)
        finally:
            if self.packets:
                self.packets.leave(address)
        return self.app(environ, start_response)

    def _read_body(self, environ: dict[str, Any]) -> tuple[int, str]:
        """The body's packets and what is wrong with them ("": nothing); the body is put
        back for Engine.IO to read."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return 0, "a Content-Length that is not a number"
        if length > self.limit or length < 0:
            return 0, ""  # Engine.IO refuses it by its length, unread
        body = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(body)
        packets = body.split(b"\x1e") if body else []
        return len(packets), unreadable(packets)


def unreadable(packets: Iterable[bytes]) -> str:
    """What makes a long-polling body's packets unreadable ("": nothing)."""
    packets = list(packets)
    if len(packets) > Payload.max_decode_packets:
        return f"too many packets: {len(packets)} in one body, over {Payload.max_decode_packets}"
    for packet in packets:
        if not packet or packet[0] not in PACKET_TYPES:
            return "not an Engine.IO packet"
        try:
            packet.decode()
        except UnicodeDecodeError:
            return "not UTF-8"
    return ""
