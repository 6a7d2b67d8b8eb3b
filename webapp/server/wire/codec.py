"""The JSON of Socket.IO's packets, and the packet class the server reads them with.

Both go through python-socketio's documented parameters: ``json`` (a module with
``dumps`` and ``loads``) and ``serializer`` (a subclass of its ``Packet``, as its own
msgpack serializer is).
"""

from __future__ import annotations

import json

import orjson
from socketio.packet import BINARY_EVENT, EVENT, Packet


class Json:
    """orjson out (ten times faster), the standard library in.

    Incoming packets keep the standard parser, which takes what clients may send and
    orjson refuses (integers over 64 bits, NaN); outgoing text that orjson cannot write
    (a lone surrogate echoed in an error message) falls back to it as well.
    """

    @staticmethod
    def dumps(data: object, **_: object) -> str:
        """``data`` as compact JSON text."""
        try:
            return orjson.dumps(data).decode()
        except TypeError:
            return json.dumps(data, separators=(",", ":"))

    loads = staticmethod(json.loads)


RESERVED_EVENTS = (["connect"], ["disconnect"], ["connect_error"], ["*"])


class JsonPacket(Packet):  # type: ignore[misc]
    """Socket.IO packets that are only ever JSON, with reserved event names renamed.

    ``uses_binary_events = False``, as python-socketio's msgpack serializer sets it: the
    server never sends binary attachments, so outgoing packets are not searched for them
    (clients' binary packets are refused before they are parsed, by wire/packets.py).
    """

    uses_binary_events = False
    json = Json

    def decode(self, encoded_packet: str | bytes) -> int:
        """Decode, renaming an event called "connect", "*"... so that the catch-all refuses it."""
        attachments = int(super().decode(encoded_packet) or 0)
        # python-socketio dispatches an event by its name, so a client event named
        # "connect" would run the connect handler again and one named "*" cannot be
        # dispatched at all; renamed, they reach the catch-all as unknown events.
        is_event = self.packet_type in (EVENT, BINARY_EVENT)
        if is_event and isinstance(self.data, list) and self.data[:1] in RESERVED_EVENTS:
            self.data[0] = f"({self.data[0]})"
        return attachments
