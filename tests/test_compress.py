"""Static files and the pages that are the same for everyone go out gzipped to clients
that take gzip, and plain to the others; pages holding a room or a client's words never."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from flask.testing import FlaskClient

STATIC = Path(__file__).resolve().parent.parent / "static"


@pytest.mark.parametrize("name", ["js/view.js", "css/base.css", "vendor/socket.io.esm.min.js"])
def test_static_files_are_gzipped_for_clients_that_take_it(client: FlaskClient, name: str) -> None:
    reply = client.get(f"/static/{name}", headers={"Accept-Encoding": "gzip, br"})
    assert reply.status_code == 200
    assert reply.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in reply.headers["Vary"]
    assert int(reply.headers["Content-Length"]) == len(reply.data)
    plain = (STATIC / name).read_bytes()
    assert gzip.decompress(reply.data) == plain
    assert len(reply.data) < len(plain) / 2
    again = client.get(f"/static/{name}", headers={"Accept-Encoding": "gzip"})
    assert again.data == reply.data  # the same bytes, from memory


@pytest.mark.parametrize("encoding", [None, "identity", "gzip;q=0", "br"])
def test_others_get_the_plain_file(client: FlaskClient, encoding: str | None) -> None:
    headers = {"Accept-Encoding": encoding} if encoding else {}
    reply = client.get("/static/js/view.js", headers=headers)
    assert "Content-Encoding" not in reply.headers
    assert reply.data == (STATIC / "js" / "view.js").read_bytes()


def test_a_cached_file_is_still_not_modified(client: FlaskClient) -> None:
    first = client.get("/static/js/view.js", headers={"Accept-Encoding": "gzip"})
    etag = first.headers["ETag"]
    again = client.get(
        "/static/js/view.js", headers={"Accept-Encoding": "gzip", "If-None-Match": etag}
    )
    assert again.status_code == 304 and again.data == b""


@pytest.mark.parametrize("path", ["/", "/history"])
def test_a_page_the_same_for_everyone_is_gzipped(client: FlaskClient, path: str) -> None:
    plain = client.get(path)
    reply = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert reply.status_code == 200 and reply.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in reply.headers["Vary"]
    assert gzip.decompress(reply.data) == plain.data
    assert len(reply.data) < len(plain.data) / 3


def test_a_gzipped_page_holds_nothing_secret(client: FlaskClient) -> None:
    # What makes compressing it safe (no BREACH): no secret in the body, only in headers.
    reply = client.get("/", headers={"Accept-Encoding": "gzip"})
    page = gzip.decompress(reply.data).decode()
    cookie = client.get_cookie("session")
    assert cookie is not None and cookie.value not in page
    with client.session_transaction() as session:
        assert session["player"] not in page


@pytest.mark.parametrize("path", ["/local", "/lab?board=XO..X...."])
def test_pages_with_a_room_or_a_clients_board_are_not_compressed(
    client: FlaskClient, path: str
) -> None:
    # A room's page holds its invitation; the lab's, what the client asked for.
    reply = client.get(path, headers={"Accept-Encoding": "gzip"}, follow_redirects=True)
    assert reply.status_code == 200 and "Content-Encoding" not in reply.headers
