""" "Why this move?" answers first: the lab opened from the AI's move says at its top, in
one sentence, what the AI played and why, marks that move and the best ones on the board
in words as well as rings, and says who was to move; the link is offered on the AI's
moves only, on the game's page and in a replay. Axe on each state, and screenshots."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from browser import (
    cell_name,
    expect_no_violations,
    next_game,
    open_game,
    play,
    play_game,
    start_match,
)
from browser_history import open_newest_replay
from browser_rooms import click_cell, in_step, open_room, play_out, start_room
from playwright.sync_api import Browser, Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

Axe = Callable[[Page], list[dict[str, Any]]]
SCREENS = ((390, 844), (1280, 800))
DRAWN = "X........"  # O to move: only b2 keeps the draw
AI_MOVE = "AI\N{RIGHT SINGLE QUOTATION MARK}s move"  # the played cell's words


def lab_board(page: Page) -> Locator:
    """The lab's position, an ARIA grid of buttons."""
    return page.get_by_role("grid", name="Position to search")


def answer(page: Page) -> Locator:
    """The answer at the lab's top."""
    return page.get_by_role("region", name="Why this move?").locator("p")


def expect_in_view(page: Page, locator: Locator) -> None:
    """``locator`` is on the first screen, unscrolled, of a phone and of a desktop."""
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        box = locator.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (
            width,
            box,
        )


def query(link: Locator) -> dict[str, list[str]]:
    """The lab address's fields, as the link holds them now."""
    return parse_qs(urlsplit(link.get_attribute("href") or "").query)


def test_a_random_move_is_answered_first_and_marked(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    page.goto(f"{server.url}/lab?board={DRAWN}&played=1&how=random&roll=71&level=40")
    said = answer(page)
    expect(said).to_have_text(
        "The AI played b1 at random (its roll of 71 was not under the difficulty, 40); "
        "the best move was b2, which keeps a draw, and b1 lets you win."
    )
    expect_in_view(page, said)
    # Both moves marked, each in words the cell's name carries, not by colour alone.
    cells = lab_board(page)
    expect(cells.get_by_role("button", name=f"b1, empty, {AI_MOVE}", exact=True)).to_be_visible()
    expect(cells.get_by_role("button", name="b2, empty, best", exact=True)).to_be_visible()
    expect(cells.get_by_text(AI_MOVE, exact=True)).to_be_visible()
    expect(cells.get_by_text("best", exact=True)).to_be_visible()
    to_move = page.locator("#to-move")
    expect(to_move).to_have_text("The AI, playing O, to move: a draw, value 0.")
    expect_no_violations(axe, page, "a random move answered")
    shoot(page, "lab-why-random")

    # A move by hand: the player's side is still known, the game's answer is not its.
    cells.get_by_role("button", name=re.compile(r"^c3, empty")).click()
    expect(to_move).to_have_text(re.compile(r"^You, playing X, to move: "))
    expect(page.get_by_role("region", name="Why this move?")).to_be_hidden()
    expect(cells.get_by_role("button", name=re.compile(f"{AI_MOVE}|best"))).to_have_count(0)
    # Another position altogether: nobody's in that game.
    page.get_by_role("button", name="Empty board").click()
    expect(to_move).to_have_text("X to move: a draw, value 0.")
    for _ in range(2):
        page.get_by_role("button", name="Undo a move").click()
    expect(said).to_contain_text("The AI played b1 at random")
    expect(page).to_have_url(re.compile(r"played=1&how=random&roll=71&level=40$"))


def test_older_addresses_still_open(page: Page, server: Any) -> None:
    # Without the roll: the answer without it.
    page.goto(f"{server.url}/lab?board={DRAWN}&played=1&how=random")
    expect(answer(page)).to_have_text(
        "The AI played b1 at random; the best move was b2, which keeps a draw, and b1 lets you win."
    )
    # A bare position: no game, no answer, and nobody named.
    page.goto(f"{server.url}/lab?board={DRAWN}")
    expect(page.locator("#to-move")).to_have_text("O to move: a draw, value 0.")
    expect(page.get_by_role("region", name="Why this move?")).to_be_hidden()


def test_a_perfect_move_is_answered_first(page: Page, server: Any, axe: Axe, shoot: Any) -> None:
    page.goto(f"{server.url}/lab?board=XX.OO....&played=2&how=perfect&roll=12&level=60")
    said = answer(page)
    expect(said).to_have_text(
        "The AI played c1, its best move (its roll of 12 was under the difficulty, 60): "
        "it wins at once."
    )
    expect_in_view(page, said)
    name = f"c1, empty, {AI_MOVE}, best"
    expect(lab_board(page).get_by_role("button", name=name, exact=True)).to_be_visible()
    expect(page.locator("#to-move")).to_have_text("The AI, playing X, to move: X wins, value 9.")
    expect_no_violations(axe, page, "a perfect move answered")
    shoot(page, "lab-why-perfect")
    # A best move among equals says so.
    page.goto(f"{server.url}/lab?board=.........&played=4&how=perfect")
    expect(said).to_have_text("The AI played b2, its best move, one of 9 as good: it keeps a draw.")


def test_from_the_game_the_roll_and_the_difficulty_reach_the_answer(
    page: Page, server: Any
) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive")
    if page.locator("#explain").inner_text().startswith("The AI explains"):
        play(page, 4)  # the player began: the AI answers
    why = page.get_by_role("link", name="Why this move?")
    expect(why).to_be_visible()
    asked = query(why)
    roll, level = int(asked["roll"][0]), int(asked["level"][0])
    explain = page.locator("#explain").inner_text()
    played = cell_name(int(asked["played"][0]))
    assert explain.endswith(played), (explain, asked)
    if 0 < level < 100:  # where the roll decided, the page and the lab say the same roll
        assert f"rolled {roll}, " in explain, (explain, asked)
    why.click()
    said = answer(page)
    expect(said).to_contain_text(f"The AI played {played}")
    if 0 < level < 100:
        expect(said).to_contain_text(f"(its roll of {roll} was ")
    expect_in_view(page, said)
    expect(page.locator("#to-move")).to_have_text(re.compile(r"^The AI, playing [XO], to move: "))


def test_why_is_offered_on_the_ais_moves_only(page: Page, server: Any, axe: Axe) -> None:
    open_game(page, server.url)
    start_match(page, "Easy", first="Me")
    why = page.get_by_role("link", name="Why this move?")
    expect(why).to_be_hidden()  # nothing played yet
    play(page, 0)
    expect(why).to_be_visible()  # the AI's answer is the latest move
    # A game the player ends: their move is the latest, and the link is not about it.
    for _ in range(8):
        play_game(page)
        if page.locator("#explain").inner_text().startswith("You played"):
            break
        next_game(page)
    expect(page.locator("#explain")).to_contain_text("You played")
    expect(why).to_be_hidden()

    # In the replay, on the AI's moves and no other.
    page.goto(server.url + "/history")
    rows = page.locator("#games-rows tr")
    rows.first.get_by_role("button", name=re.compile("^Replay the game of")).click()
    expect(page.get_by_role("grid", name="Replay board")).to_be_visible()
    page.get_by_role("button", name="First", exact=True).click()
    link = page.get_by_role("link", name="Why this move?")
    expect(link).to_be_hidden()  # the empty board: no move
    move = page.locator("#replay-move")
    seen = set()
    for _ in range(9):
        page.get_by_role("button", name="Next", exact=True).click()
        expect(move).to_have_text(re.compile(r"^Move \d"))
        by_ai = "The AI" in move.inner_text()
        seen.add(by_ai)
        if by_ai:
            expect(link).to_be_visible()
        else:
            expect(link).to_be_hidden()
        if by_ai and len(seen) == 2:
            break
    assert seen == {True, False}, seen
    expect_no_violations(axe, page, "the replay at the AI's move")
    asked = query(link)
    link.click()
    expect(answer(page)).to_contain_text(f"The AI played {cell_name(int(asked['played'][0]))}")


def test_a_game_with_a_friend_offers_no_lab_link(new_context: Any, server: Any) -> None:
    host = new_context().new_page()
    link = start_room(host, server.url)
    guest = new_context().new_page()
    open_room(guest, link)
    in_step(host, guest)
    play_out({host: click_cell, guest: click_cell}, [0, 1, 4, 2, 8])
    host.goto(server.url + "/history")
    host.get_by_role("row").filter(has_text="With a friend").get_by_role("button").click()
    expect(host.get_by_role("grid", name="Replay board")).to_be_visible()
    host.get_by_role("button", name="First", exact=True).click()
    move = host.locator("#replay-move")
    for ply in range(1, 6):  # the player's moves and the friend's: no AI moved
        host.get_by_role("button", name="Next", exact=True).click()
        expect(move).to_have_text(re.compile(rf"^Move {ply} of 5: (You|Your friend) "))
        expect(host.locator("#replay-lab")).to_be_hidden()


def test_someone_elses_shared_game_names_the_player_not_you(
    page: Page, browser: Browser, server: Any
) -> None:
    open_game(page, server.url)
    start_match(page, "Impossible", first="The AI")
    play_game(page)
    open_newest_replay(page, server.url)
    page.get_by_role("button", name="First", exact=True).click()
    page.get_by_role("button", name="Next", exact=True).click()  # the AI's first move
    assert "player" not in query(page.get_by_role("link", name="Why this move?"))
    shared = page.get_by_role("textbox", name="Share link").input_value()

    stranger = browser.new_context().new_page()
    stranger.goto(shared)
    stranger.get_by_role("button", name="First", exact=True).click()
    stranger.get_by_role("button", name="Next", exact=True).click()
    why = stranger.get_by_role("link", name="Why this move?")
    asked = query(why)
    assert asked["player"] == ["them"], asked
    why.click()
    played = cell_name(int(asked["played"][0]))
    expect(answer(stranger)).to_have_text(
        f"The AI played {played}, its best move, one of 9 as good: it keeps a draw."
    )
    to_move = stranger.locator("#to-move")
    expect(to_move).to_have_text("The AI, playing X, to move: a draw, value 0.")
    empty = "a1" if played != "a1" else "b1"
    lab_board(stranger).get_by_role("button", name=f"{empty}, empty").click()
    expect(to_move).to_have_text(re.compile(r"^The player, playing O, to move: "))
    # What the AI's random move there let happen, said of that player.
    stranger.goto(f"{server.url}/lab?board={DRAWN}&played=1&how=random&player=them")
    expect(answer(stranger)).to_have_text(
        "The AI played b1 at random; the best move was b2, which keeps a draw, "
        "and b1 lets the player win."
    )
    stranger.context.close()
