"""Costly pages are paid too: a player's whole history is limited per player and per
client address, and built from what is stored, each game signed once.

``GET /history/games.json`` of a 500-game player once signed 500 records a request; four
threads asking for it took a process's whole core. Now each game's signed record is
stored when the game ends (a game stored before is signed on its first request and the
signature kept) and served as stored; the whole history is refused past
``COSTLY_PER_PLAYER_MINUTE`` a player and ``COSTLY_PER_ADDRESS_MINUTE`` an address.
Bounded in size and time, loopback only; nothing here is timed against a baseline.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import segno
from flask import Flask
from flask.testing import FlaskClient
from support.live import Actions, connect
from support.stocked import player_of, stock
from support.testing import (
    HOST,
    Player,
    ServerProcess,
    early_in_a_clock_minute,
    session_cookie,
)

from webapp.game.history import friend_game
from webapp.game.signed import opened
from webapp.server.app import create_app
from webapp.server.limits.costly_pages import CostlyAnswers
from webapp.server.limits.shared_counts import LocalTally
from webapp.server.store.redis.history import RedisHistory
from webapp.server.store.signing import Signer, check_signature, published_keys
from webapp.server.store.sqlite.history import SQLiteHistory

pytestmark = pytest.mark.attack  # real servers under hostile clients

KEYS_URL = "/.well-known/tictactoe-keys.json"
KEY_ONE, KEY_TWO = "11" * 32, "22" * 32
FIXTURES = Path(__file__).parent / "fixtures"
# The games table as 0.5.0.dev0 (and 0.4.0) made it: no signed record beside a game.
SCHEMA_BEFORE = (
    "CREATE TABLE games ("
    " player TEXT NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL UNIQUE,"
    " ended REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (player, key))",
    "CREATE INDEX games_by_player ON games (player, ended)",
    "CREATE TABLE game_totals (player TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL)",
)
RELEASES_BEFORE = ("history-0.4.0", "history-0.5.0.dev0", "history-0.5.0.dev0-hints")


def limited_app(tmp_path: Path, per_player: int = 3, per_address: int = 100, **more: Any) -> Flask:
    early_in_a_clock_minute()  # a test's asks in one minute's count
    settings = {"COSTLY_PER_PLAYER_MINUTE": per_player, "COSTLY_PER_ADDRESS_MINUTE": per_address}
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), **settings, **more})


def as_player(app: Flask, player: str) -> FlaskClient:
    client = app.test_client()
    with client.session_transaction() as session:
        session["player"] = player
    return client


def download(client: FlaskClient, address: str = "10.0.0.1", **headers: str) -> Any:
    return client.get("/history/games.json", environ_base={"REMOTE_ADDR": address}, headers=headers)


class Signings:
    """Counts the signatures ``signer`` makes from now on."""

    def __init__(self, signer: Signer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count, sign = 0, signer.sign

        def counted(record: dict[str, Any]) -> dict[str, Any]:
            self.count += 1
            return sign(record)

        monkeypatch.setattr(signer, "sign", counted)


def stored_signatures(data_dir: Path) -> dict[str, str | None]:
    """Each stored game's signed record, as its column holds it, by game id."""
    with sqlite3.connect(data_dir / "matches.sqlite3") as db:
        return dict(db.execute("SELECT id, signed FROM games").fetchall())


def verified_by_published_keys(client: FlaskClient, signed: dict[str, Any]) -> str:
    """The id of the published key that ``signed``'s signature verifies with."""
    return check_signature(published_keys(client.get(KEYS_URL).get_json()), opened(signed))


# --- the limits -------------------------------------------------------------------------


def test_games_json_past_a_players_limit_is_refused_while_another_player_is_served(
    tmp_path: Path,
) -> None:
    app = limited_app(tmp_path, per_player=3)
    stock(app.extensions["history"], app.extensions["signing"], "collector", 20)
    collector = as_player(app, "collector")
    assert [download(collector).status_code for _ in range(3)] == [200] * 3
    refused = download(collector)
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    error = refused.get_json()["error"]
    assert error["code"] == "rate_limited" and error["retry_after"] >= 1
    assert "ask again in" in error["message"]
    assert download(as_player(app, "bystander")).status_code == 200  # same address
    page = download(collector, Accept="text/html,application/xhtml+xml,*/*;q=0.8")
    assert page.status_code == 429 and page.mimetype == "text/html"
    assert "ask again in" in page.get_data(as_text=True)


def test_games_json_past_an_addresses_limit_is_refused_while_another_address_is_served(
    tmp_path: Path,
) -> None:
    app = limited_app(tmp_path, per_player=100, per_address=4)
    answers = [download(as_player(app, f"player-{n}")).status_code for n in range(6)]
    assert answers == [200] * 4 + [429] * 2  # new players do not step around it
    assert download(as_player(app, "player-9"), "10.0.0.2").status_code == 200


def test_zero_means_no_limit_on_whole_histories(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_player=0, per_address=0)
    collector = as_player(app, "collector")
    assert {download(collector).status_code for _ in range(30)} == {200}


def test_the_history_event_is_limited_per_player(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_player=3, RATE_BURST=10_000)
    play = Actions(connect(app, as_player(app, "reader")))
    answers = [play.emit("history") for _ in range(5)]
    assert [answer["ok"] for answer in answers] == [True] * 3 + [False] * 2
    assert answers[-1]["error"]["code"] == "rate_limited"
    assert play.emit("hint")["ok"] is True  # other events go on


def test_the_count_starts_again_each_minute() -> None:
    now = [120.0]
    costly = CostlyAnswers(2, 3, LocalTally(clock=lambda: now[0]))
    assert [costly.retry_after("a", "10.0.0.1") for _ in range(3)] == [0.0, 0.0, 60.0]
    assert costly.retry_after("b", "10.0.0.1") == 60.0  # the address's third, and a fourth
    assert costly.retry_after("b", "10.0.0.2") == 0.0
    now[0] = 150.0
    assert costly.retry_after("a", "10.0.0.3") == 30.0
    now[0] = 180.0
    assert costly.retry_after("a", "10.0.0.1") == 0.0


# --- the attack, on a real server -------------------------------------------------------


@pytest.fixture
def collector_server(tmp_path: Path) -> Iterator[tuple[ServerProcess, str]]:
    """A real server with a player of 200 stored games, unsigned as stored before
    signatures were kept (the first request signs them): (the server, their cookie)."""
    env = {"TICTACTOE_COSTLY_PER_PLAYER_MINUTE": "5", "TICTACTOE_HISTORY_PER_PLAYER": "500"}
    server = ServerProcess(tmp_path, env)
    server.start()
    try:
        cookie = session_cookie(server.url)
        app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "HISTORY_PER_PLAYER": 500})
        stock(app.extensions["history"], None, player_of(cookie), 200)
        app.extensions["history"].close()
        early_in_a_clock_minute()  # a test's asks in one minute's count
        yield server, cookie
    finally:
        server.stop()


def get_games(url: str, cookie: str, source: str = HOST) -> tuple[int, int, str]:
    """GET games.json as ``cookie``'s player from ``source``: status, body bytes, code."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", "/history/games.json", headers={"Cookie": cookie})
        reply = conn.getresponse()
        body = reply.read()
    finally:
        conn.close()
    code = json.loads(body)["error"]["code"] if reply.status == 429 else ""
    assert reply.status != 429 or int(reply.headers["Retry-After"]) >= 1
    return reply.status, len(body), code


def test_four_threads_asking_for_a_big_history_are_refused_and_a_bystander_plays_on(
    collector_server: tuple[ServerProcess, str],
) -> None:
    server, cookie = collector_server
    bystander = Player(server.url, session_cookie(server.url))
    answers: Counter[tuple[int, str]] = Counter()
    sizes: list[int] = []
    lock = threading.Lock()

    def attacker() -> None:
        for _ in range(10):  # 40 requests in all, over 5 a minute for the player
            status, size, code = get_games(server.url, cookie)
            with lock:
                answers[status, code] += 1
                sizes.extend([size] if status == 200 else [])

    threads = [threading.Thread(target=attacker) for _ in range(4)]
    for thread in threads:
        thread.start()
    moves = bystander_moves(bystander, lambda: any(t.is_alive() for t in threads))
    for thread in threads:
        thread.join(60)
    bystander.close()
    assert answers[429, "rate_limited"] >= 30  # at most two windows' worth served
    assert answers[200, ""] + answers[429, "rate_limited"] == 40
    assert min(sizes) > 200 * 1000  # the history was served whole when it was served
    assert moves and all(ack == {"ok": True} for ack in moves)
    other = session_cookie(server.url)
    assert get_games(server.url, other)[0] == 200  # another player of the address
    assert get_games(server.url, cookie, "127.0.0.2")[0] == 429  # the player anywhere


def bystander_moves(player: Player, running: Callable[[], bool]) -> list[dict[str, Any]]:
    """A bystander's moves while ``running()`` (at least one), a new game when one ends:
    each answered within the call's timeout, or the call raises."""
    acks = []
    deadline = time.monotonic() + 60
    while (running() or not acks) and time.monotonic() < deadline:
        state = player.wait_for(lambda s: s["turn"] != "ai")
        if state["turn"] is None:
            assert player.call("next_game") == {"ok": True}
            continue
        version = int(state["version"])
        acks.append(player.move(state["board"].index(".")))
        player.wait_for(lambda s, seen=version: int(s["version"]) > seen and s["turn"] != "ai")
    return acks


# --- signed once, stored, served as stored ----------------------------------------------


def test_a_finished_games_signature_is_stored_when_it_ends_and_never_made_again(
    app: Flask, client: FlaskClient, play: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert play.new_match(mode="easy")["ok"]
    state = play.play_out()
    (game_id, stored), *_ = stored_signatures(Path(app.config["DATA_DIR"])).items()
    assert stored is not None and json.loads(stored) == state["signed_record"]
    signings = Signings(app.extensions["signing"], monkeypatch)
    first, second = (client.get("/history/games.json").get_data() for _ in range(2))
    assert first == second
    assert json.loads(first)["games"][0]["signed_record"] == state["signed_record"]
    shared = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert state["signed_record"]["signature"] in shared
    assert signings.count == 0


def old_release_database(data_dir: Path, player: str) -> list[dict[str, Any]]:
    """A data dir whose games table a release before stored: the fixtures' games, unsigned."""
    entries = [
        json.loads(line)
        for name in RELEASES_BEFORE
        for line in (FIXTURES / f"{name}.jsonl").read_text().splitlines()
    ]
    with sqlite3.connect(data_dir / "matches.sqlite3") as db:
        for statement in SCHEMA_BEFORE:
            db.execute(statement)
        for index, entry in enumerate(entries):
            entry = {**entry, "id": f"old-{index:018d}"}
            row = (player, f"game:{index}", entry["id"], 1.7e9 + index, json.dumps(entry))
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?)", row)
            entries[index] = entry
        totals = json.dumps({"games": len(entries)})
        db.execute("INSERT INTO game_totals VALUES (?, ?, ?)", (player, totals, time.time()))
    return entries


def test_games_stored_before_are_signed_on_their_first_request_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = old_release_database(tmp_path, "veteran")
    app = limited_app(tmp_path, per_player=0)  # opening it adds the column
    assert set(stored_signatures(tmp_path).values()) == {None}
    signings = Signings(app.extensions["signing"], monkeypatch)
    client = as_player(app, "veteran")
    first = download(client).get_json()["games"]
    assert signings.count == len(entries)  # each signed once, on this first request
    assert None not in stored_signatures(tmp_path).values()
    second = download(client).get_json()["games"]
    assert signings.count == len(entries) and second == first
    for game in first:
        record = opened(game["signed_record"]).record
        assert record == next(e["record"] for e in entries if e["id"] == game["id"])
        assert verified_by_published_keys(client, game["signed_record"])
    whole = history_game(app, client, first[-1]["id"])
    assert whole["signed_record"] == first[-1]["signed_record"]
    assert signings.count == len(entries)


def history_game(app: Flask, client: FlaskClient, game_id: str) -> dict[str, Any]:
    ack = Actions(connect(app, client)).emit("history_game", {"id": game_id})
    assert ack["ok"], ack
    return ack


def test_redis_games_stored_before_are_signed_on_their_first_request_and_kept(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = redis.Redis.from_url(redis_url)
    entry = {**json.loads((FIXTURES / "history-0.5.0.dev0.jsonl").read_text().splitlines()[0])}
    stored_before = json.dumps({"player": "veteran", "entry": entry})  # as 0.5.0.dev0 wrote it
    store.set(f"tictactoe:game:{entry['id']}", stored_before, ex=86400)
    store.rpush("tictactoe:history:veteran:list", entry["id"])
    app = limited_app(tmp_path, per_player=0, REDIS_URL=redis_url)
    signings = Signings(app.extensions["signing"], monkeypatch)
    client = as_player(app, "veteran")
    (game,) = download(client).get_json()["games"]
    assert opened(game["signed_record"]).record == entry["record"]
    kept = json.loads(store.get(f"tictactoe:game:{entry['id']}") or b"{}")
    assert kept["signed"] == game["signed_record"] and kept["entry"] == entry
    assert 86000 < int(store.ttl(f"tictactoe:game:{entry['id']}")) <= 86400  # its expiry kept
    assert download(client).get_json()["games"] == [game]
    assert signings.count == 1


def test_after_a_key_rotation_old_records_stay_and_verify_through_the_published_keys(
    tmp_path: Path,
) -> None:
    before = limited_app(tmp_path, per_player=0, SIGNING_KEY=KEY_ONE)
    old_key = before.extensions["signing"]
    stock(before.extensions["history"], old_key, "veteran", 2)
    signed_before = download(as_player(before, "veteran")).get_json()["games"]
    before.extensions["history"].close()

    rotated = limited_app(
        tmp_path, per_player=0, SIGNING_KEY=KEY_TWO, SIGNING_KEY_FALLBACKS=old_key.public.hex()
    )
    client = as_player(rotated, "veteran")
    served = download(client).get_json()["games"]
    assert served == signed_before  # the old signatures, byte for byte
    assert {verified_by_published_keys(client, g["signed_record"]) for g in served} == {old_key.key}
    assert rotated.extensions["signing"].key != old_key.key


def test_a_record_signed_by_a_key_no_longer_published_is_signed_again_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = limited_app(tmp_path, per_player=0, SIGNING_KEY=KEY_ONE)
    stock(before.extensions["history"], before.extensions["signing"], "veteran", 1)
    before.extensions["history"].close()
    rotated = limited_app(tmp_path, per_player=0, SIGNING_KEY=KEY_TWO)  # no fallback listed
    signings = Signings(rotated.extensions["signing"], monkeypatch)
    client = as_player(rotated, "veteran")
    (game,) = download(client).get_json()["games"]
    assert verified_by_published_keys(client, game["signed_record"]) == (
        rotated.extensions["signing"].key
    )
    assert download(client).get_json()["games"] == [game] and signings.count == 1


def test_games_with_a_friend_are_never_signed(tmp_path: Path) -> None:
    app = limited_app(tmp_path, per_player=0)
    friend = friend_game(
        (0, 3, 1, 4, 2), mine="X", result="win", resigned=None, game=1, game_id="f" * 22, ended=2e9
    )
    app.extensions["history"].add("p", "room:r:1", friend)
    (game,) = download(as_player(app, "p")).get_json()["games"]
    assert game["signed_record"] is None
    assert set(stored_signatures(tmp_path).values()) == {None}


@pytest.fixture(params=["sqlite", "redis"])
def history(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Both history stores, with a cap of two games a player."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        found: Any = RedisHistory(url, per_player=2, idle_seconds=3600)
    else:
        found = SQLiteHistory(tmp_path, per_player=2, idle_seconds=3600)
    yield found
    found.close()


def test_a_store_keeps_a_signature_beside_its_game_and_never_brings_a_dropped_one_back(
    history: Any,
) -> None:
    keys = Signer(bytes.fromhex(KEY_ONE))
    first, second = stock(history, None, "p", 2)
    assert [signed for _, signed in history.signed_games("p")] == [None, None]
    signed = keys.sign(history.signed_game(first)[1][0]["record"])
    assert history.keep_signed(first, signed)
    assert history.signed_game(first)[1][1] == signed
    assert history.signed_games("p")[1] == (history.game(first)[1], signed)
    stock(history, keys, "p", 1, ended=3e9, first=2)  # the cap drops the oldest: `first`
    assert history.signed_game(first) is None
    assert not history.keep_signed(first, signed)  # dropped, and it stays so
    assert history.signed_game(first) is None and len(history.games("p")) == 2
    assert history.signed_game(second)[1][1] is None


def test_a_rooms_qr_code_is_drawn_once_however_often_its_page_is_asked_for(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn, make = [], segno.make
    monkeypatch.setattr(segno, "make", lambda *args, **kw: drawn.append(args) or make(*args, **kw))
    created = client.post("/r", headers={"Origin": "http://localhost"})
    assert created.status_code == 303
    pages = [client.get(created.headers["Location"]) for _ in range(3)]
    assert [page.status_code for page in pages] == [200] * 3
    assert len({page.get_data() for page in pages}) == 1 and len(drawn) == 1
