"""End-to-end: the screen-reader mode in rooms. A game by link is played through the command
boxes alone, both players typing and a spectator following, every command and bad input
answered in the one assertive live region; two players on one device type a 4x4 game to
its end; the switch is remembered; axe finds nothing and the board, the turn and the
next action stay on the first screen with the mode on."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import HeldAcks, board, cell, expect_no_violations, marks
from browser_reader import command as typed_into
from browser_reader import reader_on, said
from browser_rooms import in_step, mark_of, open_room, start_room
from browser_variants import choose_and_open
from playwright.sync_api import BrowserContext, Locator, Page, Route, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

ROW = re.compile(r"row (\d): ((?:X|O|empty)(?:, (?:X|O|empty))*)")
DASH = "\N{EN DASH}"
SIZES = ({"width": 390, "height": 844}, {"width": 1280, "height": 800})


def command(page: Page, typed: str) -> None:
    """Type ``typed`` into the page's command box and send it with Enter."""
    typed_into(page, page.get_by_role("textbox", name="Command"), typed)


def answer(page: Page, typed: str, words: str | re.Pattern[str]) -> None:
    """Type a command; the live region says ``words`` (the whole of it)."""
    command(page, typed)
    expect(said(page)).to_have_text(words)


def read_board(page: Page) -> str:
    """The position as `board` reads it, one character a cell (X, O, .)."""
    command(page, "board")
    expect(said(page)).to_have_text(re.compile(r"^row 1: .*row 3: "))
    words = {"X": "X", "O": "O", "empty": "."}
    return "".join(
        words[w] for _, row in ROW.findall(said(page).inner_text()) for w in row.split(", ")
    )


def name_seat(page: Page, name: str) -> None:
    page.get_by_label("Your name in this room").fill(name)
    page.get_by_role("button", name="Save name").click()
    expect(page.locator("#name-said")).to_have_text("Name saved")


def on_screen(page: Page, *parts: Locator) -> None:
    """Each part lies wholly inside the viewport, the page not scrolled."""
    page.evaluate("window.scrollTo(0, 0)")
    view = page.viewport_size or {}
    for part in parts:
        box = part.bounding_box()
        assert box, part
        assert box["y"] >= 0 and box["y"] + box["height"] <= view["height"], f"{part} at {box}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"], f"{part} at {box}"


def test_a_game_by_link_is_typed_by_both_players_and_said_to_the_spectator(
    new_context: Callable[..., BrowserContext], server: Any, axe: Any
) -> None:
    host = new_context().new_page()
    link = start_room(host, server.url)
    reader_on(host)
    name_seat(host, "Alice")
    guest = new_context().new_page()
    open_room(guest, link)
    reader_on(guest)
    name_seat(guest, "Bob")
    watcher = new_context().new_page()
    open_room(watcher, link)
    reader_on(watcher)
    in_step(host, guest, watcher)
    x, o = (host, guest) if mark_of(host) == "X" else (guest, host)
    xname, oname = ("Alice", "Bob") if x is host else ("Bob", "Alice")
    expect_no_violations(axe, x, "a room, the mode on")

    # The help lists this page's commands only: no AI to ask why, no hint, no take back.
    command(x, "help")
    expect(said(x)).to_contain_text("Type a cell such as b2 to play it.")
    for name in ("board", "last", "status", "next", "help"):
        expect(said(x)).to_contain_text(name)
    for name in ("why", "hint", "undo"):
        expect(said(x)).not_to_contain_text(name)
        answer(x, name, f"{name} does nothing on this page.")
    answer(
        x,
        "status",
        f"Your turn (you play X). Game 1 · You play X. "
        f"Score: You 0 {DASH} 0 {oname}, 0 draws. 1 watching.",
    )
    answer(
        o,
        "status",
        f"{xname}'s turn. Game 1 · You play O. Score: You 0 {DASH} 0 {xname}, 0 draws. 1 watching.",
    )
    answer(
        watcher,
        "status",
        f"{xname} (X) to move. Game 1 · You are watching: {xname} plays X, {oname} plays O. "
        f"Score: Alice 0 {DASH} 0 Bob, 0 draws. 1 watching.",
    )
    answer(x, "last", "No move yet.")
    answer(x, "dance", "“dance” is not a command or a cell. Type help for the commands.")
    answer(x, "d4", "d4 is not on this board: cells a1 to c3.")
    answer(o, "next", "Nothing to start now: the game is under way.")

    # X takes the first row; every move is said to the other player and the spectator.
    moves = [(x, "a1"), (o, "a2"), (x, "b1"), (o, "b2"), (x, "c1")]
    for turn, (mover, name) in enumerate(moves):
        other = o if mover is x else x
        mark, them = ("X", xname) if mover is x else ("O", oname)
        mine = marks(mover)
        assert read_board(mover) == mine, "board reads what the grid shows"
        answer(other, "c3", "c3 was not played: It is your friend's turn")
        answer(
            watcher, "c3", "c3 was not played: You are watching this room: only its players move"
        )
        if turn:
            taken = mine.index(next(m for m in mine if m != "."))
            answer(
                mover,
                "abc"[taken % 3] + str(taken // 3 + 1),
                re.compile(r" is taken by [XO]\. Nothing was played\.$"),
            )
        assert marks(mover) == mine, "refusals change nothing"
        command(mover, name)
        in_step(x, o, watcher)
        if turn < len(moves) - 1:
            expect(said(mover)).to_have_text(
                f"You played {name}. {oname if mover is x else xname}'s turn."
            )
            other_mark = "O" if mark == "X" else "X"
            expect(said(other)).to_have_text(
                f"{them} played {name}. Your turn (you play {other_mark})."
            )
            next_one = oname if mover is x else xname
            watched = f"{them} ({mark}) played {name}. {next_one} ({other_mark}) to move."
            expect(said(watcher)).to_have_text(watched)
    expect(cell(watcher, 2)).to_have_accessible_name("c1, X")
    expect(said(x)).to_have_text(f"You played c1. You win! Score: You 1 {DASH} 0 {oname}, 0 draws.")
    expect(said(o)).to_have_text(
        f"{xname} played c1. {xname} wins. Score: You 0 {DASH} 1 {xname}, 0 draws."
    )
    score = f"Alice 1 {DASH} 0 Bob" if x is host else f"Alice 0 {DASH} 1 Bob"
    expect(said(watcher)).to_have_text(
        f"{xname} (X) played c1. {xname} (X) wins. Score: {score}, 0 draws."
    )
    answer(watcher, "last", f"{xname} (X) played c1.")
    answer(o, "last", f"{xname} played c1.")
    answer(x, "a3", "a3 was not played: This game is over: press Rematch for another")
    answer(watcher, "next", "You are watching: the players start the next game.")
    expect_no_violations(axe, watcher, "a room's end, the spectator's mode on")

    # `next` asks for the rematch, and the other's `next` starts it.
    command(o, "next")
    expect(said(o)).to_have_text(f"{xname} wins. Waiting for {xname} to accept the rematch.")
    expect(said(x)).to_have_text(f"You win! {oname} wants a rematch.")
    answer(o, "next", f"Waiting for {xname} to accept the rematch.")
    command(x, "next")
    in_step(x, o, watcher)
    expect(said(x)).to_have_text("Game 2 · You play O. " + f"{oname}'s turn.")
    expect(said(o)).to_have_text("Game 2 · You play X. Your turn (you play X).")
    expect(said(watcher)).to_contain_text(
        f"Game 2 · You are watching: {oname} plays X, {xname} plays O."
    )
    expect_no_violations(axe, x, "a rematch, the mode on")

    # The switch is remembered by the browser.
    host.reload()
    expect(host.get_by_role("switch", name="Screen-reader mode")).to_be_checked()
    expect(host.get_by_role("textbox", name="Command")).to_be_visible()
    expect(said(host)).to_contain_text("Game 2 · You play")


def test_a_seat_left_and_taken_is_said_to_everyone(
    new_context: Callable[..., BrowserContext], server: Any, axe: Any
) -> None:
    host = new_context().new_page()
    link = start_room(host, server.url)
    guest = new_context().new_page()
    open_room(guest, link)
    name_seat(guest, "Bob")
    watcher = new_context().new_page()
    open_room(watcher, link)
    for page in (host, watcher):
        reader_on(page)
    in_step(host, guest, watcher)

    guest.get_by_role("link", name="Leave room").click()
    guest.get_by_role("button", name="Yes, leave").click()
    expect(said(host)).to_have_text("Bob left the room.")
    expect(said(watcher)).to_have_text("Bob left the room.")
    answer(host, "next", "Bob left the room.")

    watcher.get_by_role("button", name="Take the free seat").click()
    taken = "took Bob's seat: a new series begins."
    expect(said(host)).to_contain_text(f"A new player {taken}")
    expect(said(watcher)).to_contain_text(f"You {taken}")
    expect(said(watcher)).to_contain_text("Game 1 · You play")
    expect_no_violations(axe, watcher, "a seat taken, said to the newcomer in the mode")


def test_two_players_on_one_device_type_a_4x4_game_to_its_end(
    page: Page, server: Any, axe: Any
) -> None:
    open_room(page, server.url + "/local?variant=4x4k3")
    reader_on(page)
    command(page, "help")
    expect(said(page)).to_contain_text("Type a cell such as a2 to play it.")
    for name in ("board", "last", "status", "hint", "undo", "next", "help"):
        expect(said(page)).to_contain_text(name)
    expect(said(page)).not_to_contain_text("why")
    answer(page, "why", "why does nothing on this page.")
    answer(
        page,
        "status",
        re.compile(r"^X to move\. Game 1 · Player 1 is X, Player 2 is O\. .*Rules: 4x4k3 · "),
    )
    answer(page, "e5", "e5 is not on this board: cells a1 to d4.")
    answer(page, "undo", "There is no move to take back")
    answer(page, "hint", re.compile(r"^[a-d][1-4].* (wins?|keeps?|loses?) "))

    answer(page, "a1", "Player 1 (X) played a1. O to move.")
    answer(page, "a1", "a1 is taken by X. Nothing was played.")
    answer(page, "undo", "a1 taken back. X to move.")
    expect(cell(page, 0)).to_have_accessible_name(re.compile("^a1, empty"))
    for name, heard in (
        ("a1", "Player 1 (X)"),
        ("a4", "Player 2 (O)"),
        ("b1", "Player 1 (X)"),
        ("b4", "Player 2 (O)"),
    ):
        answer(page, name, re.compile(f"^{re.escape(heard)} played {name}\\. [XO] to move\\.$"))
    answer(page, "last", "Player 2 (O) played b4.")
    command(page, "board")
    expect(said(page)).to_have_text(
        "row 1: X, X, empty, empty. row 2: empty, empty, empty, empty. "
        "row 3: empty, empty, empty, empty. row 4: O, O, empty, empty."
    )
    answer(page, "hint", re.compile(r"^c1 wins now\."))
    answer(
        page,
        "c1",
        f"Player 1 (X) played c1. Player 1 (X) wins. Score: Player 1 1 {DASH} 0 Player 2, 0 draws.",
    )
    expect(board(page)).to_have_attribute("data-status", "over")
    answer(page, "hint", "No hint now: no game is under way.")
    expect_no_violations(axe, page, "one device, a game's end, the mode on")
    answer(page, "next", "Game 2 · Player 2 is X, Player 1 is O. X to move.")
    assert marks(page) == "." * 16


def test_a_notakto_board_is_named_and_read_by_board(page: Page, server: Any) -> None:
    choose_and_open(page, server.url, "notakto2", "Two players, this device")
    reader_on(page)
    answer(page, "1:a1", "Player 1 (first) played 1:a1. Player 2 to move.")
    for name in ("1:b1", "1:c1"):  # the third in a row kills board 1
        command(page, name)
    expect(said(page)).to_contain_text("played 1:c1")
    expect(said(page)).to_contain_text("Board 1")
    answer(page, "1:b2", "1:b2 is on board 1, which is dead. Nothing was played.")
    command(page, "board")
    expect(said(page)).to_have_text(
        re.compile(r"^Board 1, dead: row 1: X, X, X; .*Board 2: row 1: empty")
    )


def test_cells_typed_before_the_last_is_answered_are_played_in_turn(
    page: Page, server: Any
) -> None:
    # A typist does not wait: the second cell is typed while the page has heard nothing of
    # the first. It is sent once the first is answered, on the position that one made.
    held = HeldAcks(page, everything=True)
    open_room(page, server.url + "/local")
    reader_on(page)
    command(page, "a1")
    command(page, "b1")
    page.wait_for_timeout(500)  # time enough for a second frame, were it sent at once
    assert len(held.moves) == 1, "the second move waits for the first's answer"
    assert held.release() >= 2  # the first move's snapshot and ack
    expect(said(page)).to_have_text("Player 2 (O) played b1. X to move.")
    expect(cell(page, 0)).to_have_accessible_name(re.compile("^a1, X"))
    expect(cell(page, 1)).to_have_accessible_name(re.compile("^b1, O"))
    assert len(held.moves) == 2


def test_the_mode_is_off_until_turned_on(page: Page, server: Any) -> None:
    open_room(page, server.url + "/local")
    expect(page.get_by_role("switch", name="Screen-reader mode")).not_to_be_checked()
    expect(page.get_by_role("textbox", name="Command")).to_be_hidden()
    page.get_by_role("gridcell", name="b2, empty").click()
    expect(cell(page, 4)).to_have_accessible_name(re.compile("^b2, X"))
    expect(said(page)).to_have_text("")


def test_a_page_opened_with_the_mode_on_says_where_the_game_stands(
    page: Page, server: Any, axe: Any
) -> None:
    # The mode's module may arrive after the room's first snapshot (a busy machine): the
    # page opened with the mode remembered still says the game it shows.
    open_room(page, server.url + "/local")
    reader_on(page)
    command(page, "b2")
    expect(cell(page, 4)).to_have_accessible_name(re.compile("^b2, X"))
    held: list[Route] = []
    page.route(re.compile(r"/room_reader[^/]*\.js"), lambda route: held.append(route))
    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^[1-9]"))
    expect(cell(page, 4)).to_have_accessible_name(re.compile("^b2, X"))
    for _ in range(200):  # the request reaches the route as the page's loop turns
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1, "the mode's module was asked for once, and held"
    expect(said(page)).to_have_text("")
    held[0].continue_()
    expect(said(page)).to_have_text("Game 1 · Player 1 is X, Player 2 is O. O to move.")
    expect_no_violations(axe, page, "a room opened with the mode on, its game said")


@pytest.mark.parametrize("size", SIZES, ids=("phone", "laptop"))
def test_with_the_mode_on_the_board_turn_and_next_game_stay_on_the_first_screen(
    page: Page, server: Any, size: dict[str, int]
) -> None:
    page.set_viewport_size(size)
    open_room(page, server.url + "/local")
    reader_on(page)
    for name in ("a1", "a2", "b1", "b2", "c1"):
        command(page, name)
        expect(
            cell(page, "abc".index(name[0]) + 3 * (int(name[1]) - 1))
        ).not_to_have_accessible_name(re.compile("empty"))
    expect(said(page)).to_contain_text("wins")
    next_game = page.get_by_role("button", name="Next game", exact=True)
    on_screen(page, board(page), page.locator("#status"), next_game)


def test_screens_of_the_mode_in_rooms(
    new_context: Callable[..., BrowserContext], server: Any, shoot: Callable[[Any, str], None]
) -> None:
    host = new_context().new_page()
    link = start_room(host, server.url)
    reader_on(host)
    guest = new_context().new_page()
    open_room(guest, link)
    in_step(host, guest)
    command(host, "status")
    expect(said(host)).to_contain_text("Game 1")
    shoot(host, "reader-room")
    local = new_context().new_page()
    choose_and_open(local, server.url, "notakto2", "Two players, this device")
    reader_on(local)
    command(local, "1:b2")
    expect(said(local)).to_contain_text("played 1:b2")
    shoot(local, "reader-room-local")
