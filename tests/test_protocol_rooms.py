"""Rooms over the protocol: seats, turns, spectators, bad ids, caps and floods."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support.live import LiveSocket, connect, post

from webapp.game.room import Room, open_room
from webapp.server.app import create_app
from webapp.server.store.rooms import RedisRooms, SQLiteRooms

# Each test opens sockets on a production server, shared by the module's tests.
pytestmark = [pytest.mark.server, pytest.mark.shared_server]

ORIGIN = {"Origin": "http://localhost"}


class Person:
    """One browser: its cookies and one socket."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.web: FlaskClient = app.test_client()
        assert self.web.get("/").status_code == 200
        self.sock: LiveSocket = connect(app, self.web)
        self.you: str | None = None

    def create(self) -> str:
        """Press "Play a friend"; the new room's id."""
        reply = self.web.post("/r", headers=ORIGIN)
        assert reply.status_code == 303, reply.status_code
        return str(reply.headers["Location"]).rsplit("/", 1)[1]

    def send(self, event: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Emit and return the ack."""
        ack: dict[str, Any] = self.sock.emit(event, payload or {}, callback=True)
        return ack

    def join(self, room: str) -> dict[str, Any]:
        """Open the room; keep the seat token."""
        ack = self.send("room_join", {"room": room})
        assert ack["ok"], ack
        self.you = ack["you"]
        return ack

    def rooms(self) -> list[dict[str, Any]]:
        """The room snapshots received since the last call."""
        return [p["args"][0] for p in self.sock.get_received() if p["name"] == "room"]

    def latest(self) -> dict[str, Any]:
        """The newest room snapshot received."""
        found = self.rooms()
        assert found, "no room snapshot"
        return found[-1]


def code(ack: dict[str, Any]) -> str | None:
    """The error code of an ack, or None when it was accepted."""
    return None if ack.get("ok") else ack["error"]["code"]


@pytest.fixture
def people(app: Flask) -> list[Person]:
    """Host, friend and a third browser; the host's room is joined by the first two."""
    return [Person(app) for _ in range(3)]


def seated_room(people: list[Person]) -> tuple[str, Person, Person, dict[str, Any]]:
    """A room with its game begun: (id, the X player, the O player, the snapshot)."""
    host, friend = people[0], people[1]
    room = host.create()
    host.join(room)
    friend.join(room)
    snapshot = host.latest()
    seat_of = {snapshot["seats"][0]["token"]: 0, snapshot["seats"][1]["token"]: 1}
    by_seat = {seat_of[host.you or ""]: host, seat_of[friend.you or ""]: friend}
    friend.rooms()
    return room, by_seat[snapshot["x_seat"]], by_seat[1 - snapshot["x_seat"]], snapshot


def test_host_and_friend_take_the_two_seats(people: list[Person]) -> None:
    room, x, o, snapshot = seated_room(people)
    assert snapshot["status"] == "playing" and snapshot["game"] == 1
    assert {x.you, o.you} == {seat["token"] for seat in snapshot["seats"]}
    assert all(seat["connected"] for seat in snapshot["seats"])
    assert code(x.send("room_move", {"room": room, "cell": 4})) is None
    assert x.latest()["board"] == o.latest()["board"] == "....X...."


def test_a_taken_seat_cannot_be_had_and_a_spectator_cannot_move(people: list[Person]) -> None:
    room, x, _, before = seated_room(people)
    third = people[2]
    assert third.join(room)["you"] is None
    watched = third.latest()
    assert watched["watching"] == 1
    assert [seat["token"] for seat in watched["seats"]] == [s["token"] for s in before["seats"]]
    for event, payload in (
        ("room_move", {"cell": 4}),
        ("room_resign", {}),
        ("room_rematch", {}),
        ("room_leave", {}),
    ):
        assert code(third.send(event, {"room": room, **payload})) == "not_seated", event
    assert x.latest()["version"] == watched["version"]  # nothing changed


def test_a_move_out_of_turn_or_on_a_taken_cell_is_refused(people: list[Person]) -> None:
    room, x, o, _ = seated_room(people)
    assert code(o.send("room_move", {"room": room, "cell": 4})) == "not_your_turn"
    x.send("room_move", {"room": room, "cell": 4})
    assert code(x.send("room_move", {"room": room, "cell": 0})) == "not_your_turn"
    assert code(o.send("room_move", {"room": room, "cell": 4})) == "cell_taken"
    assert code(o.send("room_move", {"room": room, "cell": 9})) == "cell_out_of_range"
    stale = o.send("room_move", {"room": room, "cell": 0, "version": 1})
    assert code(stale) == "stale_version"
    assert o.latest()["board"] == "....X...."


def test_a_moves_ack_names_the_version_it_made_and_a_move_on_it_is_taken(
    people: list[Person],
) -> None:
    room, x, o, snapshot = seated_room(people)
    before = snapshot["version"]
    made = x.send("room_move", {"room": room, "cell": 4, "version": before})
    assert made["ok"] and made["version"] > before
    assert x.latest()["version"] == made["version"]
    # The version the ack names is the room's: a move named on it is not stale.
    assert code(o.send("room_move", {"room": room, "cell": 0, "version": made["version"]})) is None
    assert o.latest()["board"] == "O...X...."


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"room": "nope"}, "room_not_found"),
        ({"room": "A" * 22}, "room_not_found"),
        ({"room": 7}, "bad_payload"),
        ({"room": ["x"]}, "bad_payload"),
        ({}, "bad_payload"),
        ({"room": "local", "extra": 1}, "bad_payload"),
    ],
)
def test_a_bad_room_id_is_refused(people: list[Person], payload: Any, expected: str) -> None:
    for event, extra in (("room_join", {}), ("room_move", {"cell": 4}), ("room_leave", {})):
        assert code(people[0].send(event, {**payload, **extra})) == expected, event


def test_an_unknown_link_is_a_clear_404_page(people: list[Person]) -> None:
    page = people[0].web.get("/r/" + "B" * 22)
    assert page.status_code == 404
    assert b"unknown" in page.data and b"Play a friend" in page.data
    assert people[0].web.get("/r/short").status_code == 404


def test_creating_a_room_needs_our_own_page(people: list[Person]) -> None:
    refused = people[0].web.post("/r", headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403
    assert people[0].web.post("/r").status_code == 403


def test_rematch_and_resign_over_the_protocol(people: list[Person]) -> None:
    room, x, o, _ = seated_room(people)
    assert code(x.send("room_rematch", {"room": room})) == "game_not_over"
    x.send("room_move", {"room": room, "cell": 4})
    assert code(x.send("room_resign", {"room": room})) is None
    over = o.latest()
    assert (over["status"], over["winner"], over["resigned"]) == (
        "over",
        1 - over["x_seat"],
        over["x_seat"],
    )
    assert code(x.send("room_rematch", {"room": room})) is None
    assert o.latest()["rematch"] == [over["x_seat"]]
    assert code(o.send("room_rematch", {"room": room})) is None
    second = x.latest()
    assert (second["game"], second["x_seat"], second["score"]["seat_wins"][1 - over["x_seat"]]) == (
        2,
        1 - over["x_seat"],
        1,
    )


def test_leaving_frees_the_seat_and_an_empty_room_is_gone(people: list[Person]) -> None:
    room, x, o, _ = seated_room(people)
    assert code(o.send("room_leave", {"room": room})) is None
    left = x.latest()
    assert left["status"] == "waiting" and None in [s["token"] for s in left["seats"]]
    third = people[2]
    assert third.join(room)["you"] is None  # opening the link after a leave only watches
    assert third.send("room_sit", {"room": room})["you"] is not None
    assert code(third.send("room_leave", {"room": room})) is None
    assert code(x.send("room_leave", {"room": room})) is None
    assert code(x.send("room_join", {"room": room})) == "room_not_found"
    assert people[0].web.get(f"/r/{room}").status_code == 404


def win_for_x(room: str, x: Person, o: Person) -> None:
    """X wins the game under way along the top row."""
    for mover, cell in ((x, 0), (o, 3), (x, 1), (o, 4), (x, 2)):
        assert code(mover.send("room_move", {"room": room, "cell": cell})) is None


def test_everyone_is_told_when_a_player_leaves_and_the_score_stays(
    people: list[Person],
) -> None:
    room, x, o, first = seated_room(people)
    watcher = people[2]
    watcher.join(room)
    win_for_x(room, x, o)
    x_seat = first["x_seat"]
    for person in (x, o, watcher):
        person.rooms()
    assert code(x.send("room_leave", {"room": room})) is None
    for person in (o, watcher):
        told = person.latest()
        assert (told["left"], told["status"]) == (x_seat, "waiting")
        assert told["score"]["seat_wins"][x_seat] == 1  # the last series, not 0-0
        assert told["seats"][x_seat]["token"] is None


def test_a_watcher_who_reloads_stays_a_watcher_until_they_take_the_seat(
    app: Flask, people: list[Person]
) -> None:
    room, x, o, _ = seated_room(people)
    watcher = people[2]
    assert watcher.join(room)["you"] is None
    assert code(watcher.send("room_sit", {"room": room})) == "no_free_seat"
    assert code(o.send("room_leave", {"room": room})) is None
    watcher.sock.disconnect()  # a reload: a new socket, the same cookie
    watcher.sock = connect(app, watcher.web)
    assert watcher.join(room)["you"] is None
    assert (
        watcher.latest()["seats"][[s["token"] for s in x.latest()["seats"]].index(None)]["token"]
        is None
    )  # nobody was seated silently
    sat = watcher.send("room_sit", {"room": room})
    assert code(sat) is None and sat["you"] is not None
    after = x.latest()
    assert (after["status"], after["game"], after["left"], after["watching"]) == (
        "playing",
        1,
        None,
        0,
    )
    assert sorted(s["token"] for s in after["seats"]) == sorted([x.you, sat["you"]])
    assert after["score"]["seat_wins"] == [0, 0]  # a new series with a new friend


def test_names_are_seen_by_everyone_and_checked(app: Flask, people: list[Person]) -> None:
    room, x, o, _ = seated_room(people)
    watcher = people[2]
    watcher.join(room)
    assert code(x.send("room_name", {"room": room, "name": " Ann "})) is None
    named = watcher.latest()
    mine = [s["token"] for s in named["seats"]].index(x.you)
    assert named["seats"][mine]["name"] == "Ann"
    version = named["version"]
    for bad in ("A" * 21, "Ann\u202e", "tab\there", "\u2067x"):
        assert code(x.send("room_name", {"room": room, "name": bad})) == "bad_name", bad
    assert code(x.send("room_name", {"room": room, "name": 5})) == "bad_payload"
    assert code(x.send("room_name", {"room": room})) == "bad_payload"
    assert code(watcher.send("room_name", {"room": room, "name": "Cy"})) == "not_seated"
    assert x.latest()["version"] == version  # nothing changed
    assert post(x.app, x.web, "/history/forget") == 204
    erased = o.latest()
    assert all(seat["name"] is None for seat in erased["seats"])
    assert erased["left"] is not None and erased["former"] is None  # no name kept either


def test_a_friend_who_disconnects_shows_as_away(people: list[Person]) -> None:
    _, x, o, _ = seated_room(people)
    o.sock.disconnect()
    away = x.latest()
    assert [seat["token"] == o.you and not seat["connected"] for seat in away["seats"]].count(
        True
    ) == 1


def test_one_device_room_is_apart_from_the_match(app: Flask, people: list[Person]) -> None:
    one = people[0]
    match_before = [p for p in one.sock.get_received() if p["name"] == "state"][-1]["args"][0]
    one.join("local")
    for cell in (4, 0):
        assert code(one.send("room_move", {"room": "local", "cell": cell})) is None
    assert code(one.send("room_undo", {"room": "local"})) is None
    assert one.latest()["board"] == "....X...."
    assert code(one.send("room_hint", {"room": "local"})) is None
    assert one.send("room_hint", {"room": "local"})["analysis"]
    again = connect(app, one.web)
    match_after = [p for p in again.get_received() if p["name"] == "state"][-1]["args"][0]
    assert match_after["version"] == match_before["version"]
    assert match_after["board"] == match_before["board"]
    assert people[1].web.get("/local").status_code == 200
    people[1].join("local")
    assert people[1].latest()["board"] == "........."  # everyone's own device room


def test_too_many_rooms_per_player(tmp_path: Path) -> None:
    app = create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "MAX_ROOMS_PER_PLAYER": 2, "SEED": 1}
    )
    host = Person(app)
    host.create(), host.create()
    refused = host.web.post("/r", headers=ORIGIN)
    assert refused.status_code == 429 and b"leave one first" in refused.data


def test_too_many_watchers(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "MAX_SPECTATORS": 1})
    host, friend, first, second = (Person(app) for _ in range(4))
    room = host.create()
    host.join(room), friend.join(room), first.join(room)
    assert code(second.send("room_join", {"room": room})) == "too_many_watchers"


def test_a_flood_into_a_room_is_cut_short_and_changes_nothing(tmp_path: Path) -> None:
    # Six events at once: enough for a seat, while twenty at once are over three times
    # that (and within the frames that the server reads at once at this rate).
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_PER_SECOND": 5.0}
    app = create_app({"TESTING": True, **settings, "RATE_BURST": 6})
    people = [Person(app) for _ in range(2)]
    room, x, o, _ = seated_room(people)
    flooder = connect(app, o.web)
    assert flooder.connected, flooder.refusal
    acks = flooder.flood("room_move", {"room": room, "cell": 0}, times=20)
    # Answers on their way when it is cut may be lost with the socket (test_rate_limit
    # holds the refusals themselves): none is anything but a refusal.
    answered = [code(ack) for ack in acks if ack]
    assert set(answered) <= {"not_your_turn", "rate_limited"}
    assert acks[-1] is None  # it stayed over its limit: cut off, nothing more is answered
    assert not flooder.is_connected()
    assert code(x.send("room_move", {"room": room, "cell": 4})) is None
    assert x.latest()["board"] == "....X...."


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_room_store_compare_and_set_and_expiry(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    idle = 3600.0
    if kind == "redis":
        store: Any = RedisRooms(request.getfixturevalue("redis_url"), idle_seconds=idle)
    else:
        store = SQLiteRooms(tmp_path, idle_seconds=idle)
    room = open_room("R" * 22, "a", kind="online", now=time.time())
    assert store.save(room.id, room, expected=None)
    assert not store.save(room.id, room, expected=None)  # a second creation loses
    assert store.load(room.id) == room
    moved = Room(**{**room.__dict__, "version": 2, "seats": ("a", "b")})
    assert store.save(room.id, moved, expected=1)
    assert not store.save(room.id, moved, expected=1)  # a stale writer loses
    assert store.online_rooms_of("b") == [room.id] and store.online_rooms_of("c") == []
    taken = Room(**{**moved.__dict__, "version": 3, "former": "Bob", "taken": 1})
    assert store.save(room.id, taken, expected=2)
    assert store.load(room.id) == taken  # whose seat was taken survives the store
    store.delete(room.id)
    assert store.load(room.id) is None
    store.close()


def test_sqlite_rooms_expire_when_idle(tmp_path: Path) -> None:
    store = SQLiteRooms(tmp_path, idle_seconds=0.05)
    room = open_room("S" * 22, "a", kind="online", now=time.time())
    store.save(room.id, room, expected=None)
    assert store.load(room.id) == room
    time.sleep(0.1)
    assert store.load(room.id) is None and store.online_rooms_of("a") == []
    assert store.prune() == 1


def test_a_finished_room_game_stays_in_both_players_history(
    app: Flask, people: list[Person]
) -> None:
    room, x, o, _ = seated_room(people)
    win_for_x(room, x, o)
    assert code(x.send("room_leave", {"room": room})) is None  # leaving keeps it
    for person, result in ((x, "win"), (o, "loss")):
        history = person.send("history")
        assert [(g["kind"], g["mode"], g["result"], g["moves"]) for g in history["games"]] == [
            ("friend", "friend", result, 5)
        ]
        totals = history["totals"]
        assert totals["with_friends"][result] == 1 and totals["by_mode"] == {}
        assert totals["longest_unbeaten"] == 0  # the run is against the AI
        game = person.send("history_game", {"id": history["games"][0]["id"]})
        assert game["signed_record"] is None
        bys = [move["by"] for move in game["review"]["moves"]]
        assert (
            bys == (["human", "friend"] * 3)[:5] if person is x else (["friend", "human"] * 3)[:5]
        )
        assert all("gift" not in move for move in game["review"]["moves"])
        shared = person.web.get(f"/g/{history['games'][0]['id']}")
        assert shared.status_code == 404  # another person's game too: not shared


def test_a_game_left_under_way_is_a_forfeit_in_both_players_history(
    people: list[Person],
) -> None:
    room, x, o, first = seated_room(people)
    assert code(x.send("room_name", {"room": room, "name": "Bob"})) is None
    for mover, cell in ((x, 4), (o, 0)):
        assert code(mover.send("room_move", {"room": room, "cell": cell})) is None
    assert code(x.send("room_leave", {"room": room})) is None
    told = o.latest()
    assert (told["left"], told["former"], told["taken"]) == (first["x_seat"], "Bob", None)
    for person, result, forfeit in ((x, "loss", "human"), (o, "win", "friend")):
        (listed,) = person.send("history")["games"]
        assert (listed["kind"], listed["result"], listed["moves"]) == ("friend", result, 2)
        assert (listed["forfeit"], listed["resigned"]) == (forfeit, None)
        game = person.send("history_game", {"id": listed["id"]})
        assert [move["cell"] for move in game["review"]["moves"]] == ["b2", "a1"]
        assert game["signed_record"] is None  # a game with a friend is never signed
    watcher = people[2]
    watcher.join(room)
    assert watcher.send("room_sit", {"room": room})["you"]
    taken = o.latest()
    assert (taken["taken"], taken["former"], taken["left"]) == (first["x_seat"], "Bob", None)


def test_friend_games_fall_under_the_cap_and_are_forgotten(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "HISTORY_PER_PLAYER": 2})
    people = [Person(app) for _ in range(2)]
    room, x, o, snapshot = seated_room(people)
    for _ in range(3):
        first, second = (
            (x, o) if x.you == snapshot["seats"][snapshot["x_seat"]]["token"] else (o, x)
        )
        win_for_x(room, first, second)
        for person in (x, o):
            assert code(person.send("room_rematch", {"room": room})) is None
        snapshot = x.latest()
    assert len(x.send("history")["games"]) == 2  # the newest two of three
    assert sum(x.send("history")["totals"]["with_friends"].values()) == 3
    with x.web.session_transaction() as session:
        player = str(session["player"])
    history = app.extensions["history"]
    assert len(history.games(player)) == 2
    assert x.web.post("/history/forget", headers=ORIGIN).status_code == 204
    assert history.games(player) == [] and history.counters(player) == {}
    assert len(o.send("history")["games"]) == 2  # the friend keeps their own


# --- rooms on other rule sets ------------------------------------------------------


def test_a_room_made_on_notakto_says_so_and_plays_by_its_rules(people: list[Person]) -> None:
    host, friend = people[0], people[1]
    made = host.web.post("/r", data={"variant": "notakto2"}, headers=ORIGIN)
    assert made.status_code == 303
    room = str(made.headers["Location"]).rsplit("/", 1)[1]
    page = host.web.get(f"/r/{room}")
    assert b'data-variant="notakto2"' in page.data and b'data-boards="2"' in page.data
    host.join(room)
    friend.join(room)
    snapshot = host.latest()
    assert (snapshot["variant"], snapshot["board"], snapshot["dead"]) == ("notakto2", "." * 18, [])
    first, second = (host, friend) if snapshot["x_seat"] == 0 else (friend, host)
    for mover, cell in ((first, 0), (second, 1), (first, 2)):
        assert code(mover.send("room_move", {"room": room, "cell": cell})) is None
    snapshot = host.latest()
    assert (snapshot["dead"], snapshot["board"][:3], snapshot["status"]) == ([0], "XXX", "playing")
    assert code(second.send("room_move", {"room": room, "cell": 4})) == "dead_board"
    hint = second.send("room_hint", {"room": room})
    assert set(hint["analysis"]) == {str(cell) for cell in range(9, 18)}


def test_rules_that_do_not_exist_are_refused_and_change_nothing(people: list[Person]) -> None:
    host = people[0]
    made = host.web.post("/r", data={"variant": "5x5"}, headers=ORIGIN)
    assert made.status_code == 400 and b"no variant is called" in made.data
    assert host.web.get("/local?variant=5x5").status_code == 400
    ack = host.send("room_join", {"room": "local", "variant": "5x5"})
    assert code(ack) == "bad_payload" and "5x5" in ack["error"]["message"]
    host.join("local")
    assert host.latest()["variant"] == "classic"


def test_one_device_plays_the_rules_asked_for_and_keeps_them(people: list[Person]) -> None:
    host = people[0]
    assert code(host.send("room_join", {"room": "local", "variant": "4x4k4"})) is None
    assert host.latest()["variant"] == "4x4k4"
    assert code(host.send("room_move", {"room": "local", "cell": 15})) is None
    host.join("local")  # no rules asked: the room's own, its game kept
    snapshot = host.latest()
    assert (snapshot["variant"], snapshot["moves"]) == ("4x4k4", [15])
    assert b'data-variant="4x4k4"' in host.web.get("/local").data
