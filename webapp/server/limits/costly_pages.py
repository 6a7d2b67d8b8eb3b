"""Answers that cost much to build, limited per player and per client address.

A player's whole history (``GET /history/games.json``, the ``history`` event) is read
and built from every stored game: each asks far more of the process than an event
does. The Train page's JSON requests (``/train/state.json``, ``/train/answer``,
``/train/solve``) are counted the same way, under counts of their own (a player training
asks for them at each card).

Each is counted against the player (the session cookie's) and against the client
address (an IPv6 address by its /64), in clock minutes, by all processes together when
they share Redis (limits/shared_counts.py). Past either count the answer is refused before any work:
an HTTP ``429`` with ``Retry-After`` and the reason (JSON, or a page for a browser that
asks for HTML), or the event's ``rate_limited``.
"""

from __future__ import annotations

import math

import orjson
from flask import Request, Response, render_template_string

from webapp.server.limits.rates import address_key
from webapp.server.limits.shared_counts import Tally
from webapp.server.protocol.vocabulary import ErrorCode

MINUTE = 60.0
TOO_MANY = """<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Asked too often</title>
<h1>Asked too often</h1>
<p>{{ message }}</p>
</html>
"""


class CostlyAnswers:
    """Costly answers built for each player and each client address in this minute."""

    def __init__(
        self, per_player: int, per_address: int, tally: Tally, kind: str = "costly"
    ) -> None:
        self.per_player, self.per_address, self.tally = per_player, per_address, tally
        self.kind = kind  # the counts' names: each kind of answer is counted on its own

    def retry_after(self, player: str | None, address: str | None) -> float:
        """0 if one more costly answer may be built now (counted), else seconds until it may."""
        waits = [0.0]
        for limit, key in (
            (self.per_player, None if player is None else f"{self.kind}-player:{player}"),
            (self.per_address, f"{self.kind}-address:{address_key(address)}"),
        ):
            if limit and key is not None:
                count, left = self.tally.bump(key, MINUTE)
                waits.append(left if count > limit else 0.0)
        return max(waits)


def seconds(wait: float) -> int:
    """A wait as the whole seconds ``Retry-After`` and the message name (at least 1)."""
    return max(1, math.ceil(wait))


def message(what: str, wait: float) -> str:
    """Why an answer was refused, and when to ask again."""
    return (
        f"{what}: asked for too often from this player or address; ask again in {seconds(wait)} s"
    )


def refused(request: Request, what: str, wait: float) -> Response:
    """The ``429`` of a refused costly answer: a page for a browser that asks for HTML,
    else JSON naming the error's code as events do; both with ``Retry-After``."""
    headers = {"Retry-After": str(seconds(wait)), "Cache-Control": "no-store"}
    text = message(what, wait)
    accepted = request.accept_mimetypes
    if accepted.best_match(["application/json", "text/html"]) == "text/html":
        page = render_template_string(TOO_MANY, message=text)
        return Response(page, 429, headers, mimetype="text/html")
    error = {"code": str(ErrorCode.RATE_LIMITED), "message": text, "retry_after": seconds(wait)}
    body = orjson.dumps({"ok": False, "error": error})
    return Response(body, 429, headers, mimetype="application/json")
