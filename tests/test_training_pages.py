"""The Train page's protocol: the state, answers to cards and puzzles, bad input refused
with nothing changed, and "Your data" exporting and deleting training with the rest."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from support.training import games_with_mistakes, variant_game_with_mistake

from webapp.game.board import cell_name
from webapp.game.training import puzzle_named, puzzles_on
from webapp.game.variant import variant_named

ORIGIN = {"Origin": "http://localhost"}
NOW = 1_800_000_000.0


def with_mistakes(app: Flask, client: FlaskClient, count: int = 10) -> str:
    """The client's player, with ``count`` mistakes in their history and the clock set."""
    with client.session_transaction() as session:
        player = str(session["player"])
    for entry in games_with_mistakes(count):
        assert app.extensions["history"].add(player, f"room:r:{entry['id']}", entry)
    app.extensions["training"].clock = lambda: NOW
    return player


def state(client: FlaskClient) -> dict[str, Any]:
    reply = client.get("/train/state.json")
    assert reply.status_code == 200
    return dict(reply.get_json())


def test_the_page_and_its_state_show_the_cards_due_and_a_puzzle(
    app: Flask, client: FlaskClient
) -> None:
    assert b'id="train-main"' in client.get("/train").data
    assert state(client)["due"] == []
    with_mistakes(app, client)
    shown = state(client)
    assert (len(shown["due"]), shown["cards"], shown["streak"], shown["rating"]) == (
        10,
        10,
        0,
        1500,
    )
    assert puzzle_named(shown["puzzle"]["key"]) is not None and "answer" not in shown["puzzle"]


def test_an_answer_by_cell_name_is_judged_and_bad_ones_change_nothing(
    app: Flask, client: FlaskClient
) -> None:
    player = with_mistakes(app, client, 1)
    card = state(client)["due"][0]
    refused = [
        client.post("/train/answer", json={"card": card["key"], "cell": "b2"}),  # no Origin
        client.post("/train/answer", data="[", headers=ORIGIN, content_type="application/json"),
        client.post("/train/answer", json={"card": "nope", "cell": "b2"}, headers=ORIGIN),
        client.post("/train/answer", json={"card": card["key"], "cell": "d9"}, headers=ORIGIN),
    ]
    assert [reply.status_code for reply in refused] == [403, 400, 400, 400]
    assert refused[3].get_json()["error"] == "cell_out_of_range"
    assert app.extensions["training"].store.answers(player) == []
    best = app.extensions["training"].store.cards(player)[card["key"]]["card"]["best"]
    reply = client.post(
        "/train/answer", json={"card": card["key"], "cell": cell_name(best[0])}, headers=ORIGIN
    )
    assert reply.get_json()["passed"] and reply.get_json()["scheduled"]
    assert state(client)["due"] == []


def test_a_puzzle_solved_moves_the_rating(app: Flask, client: FlaskClient) -> None:
    with_mistakes(app, client, 1)
    puzzle = puzzle_named(state(client)["puzzle"]["key"])
    assert puzzle is not None
    body = {"puzzle": puzzle.key, "cell": cell_name(puzzle.answer[0]), "first_try": True}
    solved = client.post("/train/solve", json=body, headers=ORIGIN).get_json()
    assert solved["solved"] and solved["rating"] > 1500
    assert state(client)["rating"] == solved["rating"]
    bad = client.post("/train/solve", json={**body, "first_try": "yes"}, headers=ORIGIN)
    assert bad.status_code == 400 and state(client)["rating"] == solved["rating"]


def test_your_data_exports_training_and_deletes_it_everywhere(
    app: Flask, client: FlaskClient
) -> None:
    player = with_mistakes(app, client)
    card = state(client)["due"][0]
    client.post("/train/answer", json={"card": card["key"], "cell": card["played"]}, headers=ORIGIN)
    exported = json.loads(client.get("/history/games.json").data)["training"]
    assert len(exported["cards"]) == 10 and exported["answers"][0]["passed"] is False
    assert client.post("/history/forget", headers=ORIGIN).status_code == 204
    training = app.extensions["training"]
    assert training.export(player) == {"cards": [], "answers": [], "rating": None}
    html = client.get("/").get_data(as_text=True)
    assert "&#34;cards&#34;: 10" in html or '"cards": 10' in html


def test_the_history_is_read_whole_only_once_another_game_was_stored(
    app: Flask, client: FlaskClient, monkeypatch: Any
) -> None:
    with_mistakes(app, client, 3)
    training, reads = app.extensions["training"], []
    games = training.games
    monkeypatch.setattr(training, "games", lambda player: reads.append(player) or games(player))
    assert [len(state(client)["due"]) for _ in range(3)] == [3, 3, 3]
    assert len(reads) == 1
    player, entry = str(reads[0]), games_with_mistakes(4)[3]  # a new game: read again, once
    assert app.extensions["history"].add(player, f"room:r:{entry['id']}", entry)
    assert [state(client)["cards"] for _ in range(2)] == [4, 4]
    assert reads == [player, player]


def test_train_requests_past_a_players_count_are_refused_before_any_work(
    app: Flask, client: FlaskClient
) -> None:
    app.extensions["train_costly"].per_player = 2
    with_mistakes(app, client, 1)
    assert [client.get("/train/state.json").status_code for _ in range(2)] == [200, 200]
    asked = {"card": "nope", "cell": "b2"}
    for refused in (
        client.get("/train/state.json"),
        client.post("/train/answer", json=asked, headers=ORIGIN),
        client.post("/train/solve", json={"puzzle": "nope", "cell": "b2"}, headers=ORIGIN),
    ):
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert refused.get_json()["error"]["code"] == "rate_limited"
    assert app.test_client().get("/train").status_code == 200  # the page itself is not counted


def test_cards_of_4x4_and_notakto_games_are_shown_and_answered_by_their_cell_names(
    app: Flask, client: FlaskClient
) -> None:
    player = with_mistakes(app, client, 0)
    for name in ("4x4k3", "notakto2"):
        entry = variant_game_with_mistake(name, f"v-{name}")
        assert app.extensions["history"].add(player, f"room:r:{entry['id']}", entry)
    four, notakto = sorted(state(client)["due"], key=lambda card: card["variant"])
    assert (four["board"], four["rows"], four["columns"], four["boards"]) == (
        "XO..............",
        4,
        4,
        1,
    )
    assert (notakto["board"], notakto["boards"], notakto["dead"]) == ("XX......./.........", 2, [])

    def answer(card: dict[str, Any], cell: object) -> Any:
        body = {"card": card["key"], "cell": cell}
        return client.post("/train/answer", json=body, headers=ORIGIN)

    refused = [answer(four, "a1"), answer(four, "e1"), answer(notakto, "b2"), answer(four, 16)]
    assert [reply.get_json()["error"] for reply in refused] == [
        "cell_taken",
        "cell_out_of_range",
        "cell_out_of_range",
        "cell_out_of_range",
    ]
    assert "such as 2:b2" in refused[2].get_json()["message"]
    assert app.extensions["training"].store.answers(player) == []
    assert answer(four, "d4").get_json()["passed"] is False
    passed = answer(four, "c3").get_json()
    assert passed["passed"] and passed["best"] == [4, 5, 8, 10]
    assert answer(notakto, "1:a2").get_json()["passed"]
    assert [card["key"] for card in state(client)["due"]] == []


def test_puzzles_of_the_variant_asked_for_are_served_and_solved_by_their_cell_names(
    app: Flask, client: FlaskClient
) -> None:
    with_mistakes(app, client, 0)
    shown = client.get("/train/state.json?variant=notakto2").get_json()["puzzle"]
    puzzle = puzzle_named(shown["key"])
    assert puzzle is not None and puzzle.variant == "notakto2" and "answer" not in shown
    assert (shown["boards"], shown["board"].count("/")) == (2, 1)
    refused = client.get("/train/state.json?variant=5x5")
    assert refused.status_code == 400 and refused.get_json()["error"] == "bad_payload"
    named = variant_named("notakto2").cell_name(puzzle.answer[0])
    body = {"puzzle": puzzle.key, "cell": named, "first_try": True}
    solved = client.post("/train/solve", json=body, headers=ORIGIN).get_json()
    assert solved["solved"] and solved["rating"] > 1500
    assert b'<option value="4x4k4"' in client.get("/train").data


def test_a_cell_on_a_dead_notakto_board_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    player = with_mistakes(app, client, 0)
    notakto = variant_named("notakto2")
    puzzle = next(
        p for p in puzzles_on("notakto2") if p.to_dict()["dead"] == [0] and p.board[0] == "."
    )
    body = {"puzzle": puzzle.key, "cell": "1:a1", "first_try": True}
    refused = client.post("/train/solve", json=body, headers=ORIGIN)
    assert refused.status_code == 400 and refused.get_json()["error"] == "dead_board"
    assert "1:a1 is on a dead board" in refused.get_json()["message"]
    assert app.extensions["training"].store.rating(f"player:{player}") is None
    assert notakto.cell_name(puzzle.answer[0]).startswith("2:")
