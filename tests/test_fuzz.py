"""Arbitrary events and payloads through the protocol never break the server."""

from __future__ import annotations

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from support.live import connect, player_of, states

from webapp.server.app import create_app
from webapp.server.protocol.vocabulary import ErrorCode, Event

# One in-process client cannot race itself, so "busy" never applies here; "internal"
# would be a server fault, which is what this test looks for.
# Each test opens sockets on a production server, shared by the module's tests.
pytestmark = [pytest.mark.server, pytest.mark.shared_server]

KNOWN_CODES = {str(code) for code in ErrorCode} - {"busy", "internal"}
PROTOCOL_EVENTS = {str(event) for event in Event}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
fields = st.sampled_from(["cell", "mode", "human_hp", "ai_hp", "x"])
near_valid = st.dictionaries(
    fields,
    st.integers(-2, 102) | st.sampled_from(["adaptive", "hard", "nope", "4"]) | json_values,
    max_size=3,
)
events = st.sampled_from(sorted(PROTOCOL_EVENTS)) | st.text(min_size=1, max_size=10)


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    """One app for all examples, with no rate limit in the way (nor one on new players)."""
    data_dir = str(tmp_path_factory.mktemp("fuzz"))
    unlimited = {"RATE_BURST": 100_000, "RATE_PER_ADDRESS": 0, "NEW_PLAYERS_PER_MINUTE": 0}
    unlimited["NEW_ROOMS_PER_HOUR"] = 0
    return create_app(
        {"TESTING": True, "DATA_DIR": data_dir, "AI_DELAY_MS": 0, "SEED": 3, **unlimited}
    )


@settings(max_examples=300, deadline=None)
@given(event=events, payload=near_valid | json_values)
def test_any_event_answers_ok_or_a_known_error(
    fuzz_app: Flask, event: str, payload: object
) -> None:
    app = fuzz_app
    client = app.test_client()
    client.get("/")
    sock = connect(app, client)
    before = states(sock)[-1]
    if event in {"connect", "disconnect", "message", "json"}:
        return  # reserved by Socket.IO itself, not part of the protocol
    ack = sock.emit(event, payload, callback=True)
    assert isinstance(ack, dict)
    after = states(sock)
    if ack.get("ok") is True:
        assert event in PROTOCOL_EVENTS
    else:
        assert ack["error"]["code"] in KNOWN_CODES, ack
        assert after == []  # a refused event emits no new state
        # The match shown, stored or not yet, is the one before the event.
        stored = app.extensions["tictactoe"].store.load(player_of(client))
        assert stored is not None and stored.version == before["version"]
    assert sock.is_connected()
    sock.disconnect()
