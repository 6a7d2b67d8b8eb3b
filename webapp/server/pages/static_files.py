"""gzip for what holds no secret: the static files, and the pages built only from the
release and the settings. Each is compressed once per version, then kept in memory.

Scripts, styles and those pages shrink to about a fourth on the wire. Nothing else is
compressed: a page that mixes a secret with what a client sent could leak the secret
when compressed (BREACH). The game, practice and History pages hold neither (each
player's data comes over the socket; the session cookie is a header, which gzip leaves
alone); a room's page holds its invitation, the lab's the board a client asked for.
"""

from __future__ import annotations

import gzip

from flask import Response, request

COMPRESSIBLE = ("text/css", "text/javascript", "application/javascript", "image/svg+xml")
# The pages whose body is the same for everyone: built from the release and the settings.
PLAIN_PAGES = frozenset({"pages.index", "pages.history_page", "practice.practice_page"})
MIN_BYTES = 1024  # below this gzip's own header and trailer eat most of the gain


class StaticGzip:
    """An ``after_request`` hook: a static file's or a plain page's 200 goes out gzipped
    when the client takes gzip."""

    def __init__(self) -> None:
        self.cache: dict[str, tuple[str | bytes, bytes]] = {}  # path -> (version, gzipped)

    def __call__(self, response: Response) -> Response:
        """The response, gzipped when it should be."""
        if response.status_code != 200 or not self.compressible(response):
            return response
        response.vary.add("Accept-Encoding")
        if not request.accept_encodings["gzip"]:
            return response
        response.direct_passthrough = False
        plain = response.get_data()
        if len(plain) < MIN_BYTES:
            return response
        # A static file's version is its ETag; a page's, its bytes.
        version: str | bytes = (
            (response.get_etag()[0] or plain) if request.endpoint == "static" else plain
        )
        found = self.cache.get(request.path)
        if found is None or found[0] != version:
            found = (version, gzip.compress(plain, compresslevel=9, mtime=0))
            self.cache[request.path] = found
        response.set_data(found[1])
        response.headers["Content-Encoding"] = "gzip"
        return response

    @staticmethod
    def compressible(response: Response) -> bool:
        """A static file of a compressible type, or a plain page."""
        if request.endpoint == "static":
            return response.mimetype in COMPRESSIBLE
        return request.endpoint in PLAIN_PAGES and response.mimetype == "text/html"
