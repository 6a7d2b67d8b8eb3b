"""End-to-end rooms: two people through an invite link, spectators, one device, and
what survives a refresh, a restart and a second server process."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser import (
    EMPTY,
    HINT,
    board,
    cell,
    cell_name,
    expect_no_violations,
    expect_one_tab_stop,
    marks,
)
from browser_rooms import (
    click_cell,
    expect_same_ending,
    in_step,
    invite_link,
    key_cell,
    mark_of,
    open_room,
    play_out,
    score,
    start_room,
    status,
)
from playwright.sync_api import BrowserContext, Page, expect
from support.testing import ServerProcess

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

NewContext = Callable[..., BrowserContext]
Shoot = Callable[[Page, str], None]
# Removes the Clipboard API, as on a page served over plain HTTP.
NO_CLIPBOARD = "Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});"
# X takes a1, b2, c3 by these moves (O answers b1, c1): a win on the diagonal.
X_WINS = [0, 1, 4, 2, 8]
# A draw: X a1 c1 a2 c3 b3, O b1 b2 c2 a3.
DRAW = [0, 1, 2, 4, 3, 5, 7, 6, 8]


def friends(new_context: NewContext, base: str, **options: Any) -> tuple[Page, Page, str]:
    """A opens a room from the home page; B opens its invite link. Both see game 1."""
    host = new_context(**options).new_page()
    link = start_room(host, base)
    guest = new_context().new_page()
    open_room(guest, link)
    for page in (host, guest):
        expect(page.locator("#game-meta")).to_have_text(re.compile(r"^Game 1 · You play [XO]$"))
    in_step(host, guest)
    return host, guest, link


def x_first(host: Page, guest: Page) -> tuple[Page, Page]:
    """The two players, the one playing X first."""
    return (host, guest) if mark_of(host) == "X" else (guest, host)


def test_two_friends_play_a_whole_game_through_the_invite_link(
    new_context: NewContext, server: ServerProcess
) -> None:
    host = new_context(permissions=["clipboard-read", "clipboard-write"]).new_page()
    link = start_room(host, server.url)
    assert link == host.url and urlsplit(link).path.startswith("/r/")
    expect(invite_link(host)).to_have_attribute("readonly", "")
    expect(host.get_by_role("img", name="QR code of the invite link")).to_be_visible()
    host.get_by_role("button", name="Copy").click()
    expect(host.get_by_text("Link copied")).to_be_visible()
    assert host.evaluate("navigator.clipboard.readText()") == link

    guest = new_context().new_page()
    open_room(guest, link)
    in_step(host, guest)
    # The game is on: the invite folds away, still there to invite spectators.
    expect(invite_link(host)).to_be_hidden()
    expect(host.get_by_text("Link and QR code")).to_be_visible()
    x, o = x_first(host, guest)
    expect(status(x)).to_have_text("Your turn (you play X)")
    expect(status(o)).to_have_text("Your friend's turn")
    # Not O's turn: its cells are inert, and a click changes nothing.
    expect(cell(o, 4)).to_have_attribute("aria-disabled", "true")
    expect(cell(x, 4)).to_have_attribute("aria-disabled", "false")

    # The guest plays by the keyboard alone, the host by clicks.
    play_out({host: click_cell, guest: key_cell}, X_WINS)
    said = expect_same_ending(x, o)
    assert said == "You win!"
    assert marks(x) == "XOO.X...X"
    expect(x.locator("#score")).to_have_text(score(1, 0, 0))
    expect(o.locator("#score")).to_have_text(score(0, 1, 0))
    for page in (x, o):
        expect(page.get_by_role("button", name="Rematch", exact=True)).to_be_visible()
        expect(page.get_by_role("button", name="Resign")).to_be_hidden()
        expect(cell(page, 3)).to_have_attribute("aria-disabled", "true")


def test_a_third_person_watches_live(new_context: NewContext, server: ServerProcess) -> None:
    host, guest, link = friends(new_context, server.url)
    watcher = new_context().new_page()
    watcher.add_init_script(NO_CLIPBOARD)
    open_room(watcher, link)
    in_step(host, watcher)

    meta = re.compile(r"^Game 1 · You are watching: Player ([12]) plays X, Player [12] plays O$")
    expect(watcher.locator("#game-meta")).to_have_text(meta)
    x_name = "Player " + (meta.search(watcher.locator("#game-meta").inner_text()) or [""])[1]
    o_name = "Player 2" if x_name == "Player 1" else "Player 1"
    expect(status(watcher)).to_have_text(f"{x_name} (X) to move")
    # The header says they watch; it does not ask them to share the link.
    expect(watcher.get_by_role("heading", level=1)).to_have_text("Watching a game")
    expect(watcher.get_by_text("share the link below")).to_have_count(0)
    expect(watcher.locator("[data-cell][aria-disabled='true']")).to_have_count(9)
    for page in (host, guest, watcher):
        expect(page.get_by_text("1 watching", exact=True)).to_be_visible()
    for name in ("Rematch", "Resign"):
        expect(watcher.get_by_role("button", name=name)).to_be_hidden()

    # A click of a spectator's cell is nothing: the board stays as it was.
    before = watcher.get_by_role("grid", name="Board").get_attribute("data-version")
    watcher.get_by_role("gridcell", name="b2, empty", exact=True).click()
    watcher.wait_for_timeout(300)
    expect(board(watcher)).to_have_attribute("data-version", before or "")
    expect(cell(watcher, 4)).to_have_accessible_name("b2, empty")

    # Moves appear live, and the status follows them.
    x, _ = x_first(host, guest)
    click_cell(x, 4)
    expect(cell(watcher, 4)).to_have_accessible_name("b2, X")
    expect(status(watcher)).to_have_text(f"{o_name} (O) to move")
    expect(watcher.locator("[data-cell][aria-disabled='true']")).to_have_count(9)

    # A player who gives a name is shown by it, to the spectator too.
    o_page = guest if x is host else host
    o_page.get_by_label("Your name in this room").fill("Bea <b>")
    o_page.get_by_role("button", name="Save name").click()
    expect(status(watcher)).to_have_text("Bea <b> (O) to move")  # as text, not markup
    expect(x.locator("#substatus")).to_have_text("")
    players = watcher.get_by_role("list").filter(has_text="Bea <b>")
    expect(players).to_contain_text("Bea <b> · O · here")

    # No Clipboard API: Copy selects the link instead, and says so.
    invite = watcher.get_by_role("region", name="Invite someone to watch")
    expect(invite_link(watcher)).to_be_hidden()  # folded while a game is on
    invite.get_by_text("Link and QR code").click()
    watcher.get_by_role("button", name="Copy").click()
    expect(watcher.get_by_text("Link selected")).to_be_visible()
    selected = watcher.evaluate(
        "(() => { const f = document.activeElement;"
        " return f.value.slice(f.selectionStart, f.selectionEnd); })()"
    )
    assert selected == link

    # The spectator is told when a player is away.
    o_page.close()
    expect(watcher.locator("#substatus")).to_have_text("Bea <b> is away", timeout=15_000)
    expect(players).to_contain_text("Bea <b> · O · away")

    watcher.close()
    expect(x.get_by_text("1 watching", exact=True)).to_be_hidden(timeout=15_000)


def test_refresh_keeps_the_board_and_the_seat(
    new_context: NewContext, server: ServerProcess
) -> None:
    host, guest, _ = friends(new_context, server.url)
    x, o = x_first(host, guest)
    click_cell(x, 0)
    in_step(x, o)
    click_cell(o, 4)
    in_step(x, o)
    before = marks(o)

    o.reload()
    expect(board(o)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    in_step(x, o)
    assert marks(o) == before == "X...O...."
    expect(o.locator("#game-meta")).to_have_text("Game 1 · You play O")
    expect(status(o)).to_have_text("Your friend's turn")
    click_cell(x, 8)
    in_step(x, o)
    expect(status(o)).to_have_text("Your turn (you play O)")
    click_cell(o, 2)
    expect(cell(x, 2)).to_have_accessible_name("c1, O")


@pytest.mark.fresh_server  # kills and restarts the server
def test_the_game_goes_on_after_a_server_restart(
    new_context: NewContext, server: ServerProcess
) -> None:
    host, guest, _ = friends(new_context, server.url)
    x, o = x_first(host, guest)
    click_cell(x, 0)
    in_step(x, o)
    before = marks(x)

    server.kill()
    for page in (x, o):
        expect(page.get_by_text("Reconnecting…")).to_be_visible()
        expect(page.locator("[data-cell][aria-disabled='true']")).to_have_count(9)
    server.start()
    for page in (x, o):
        expect(page.get_by_text("Reconnecting…")).to_be_hidden(timeout=20_000)
    in_step(x, o)
    assert marks(o) == before
    expect(status(o)).to_have_text("Your turn (you play O)")

    play_out({x: click_cell, o: click_cell}, X_WINS[1:])
    assert expect_same_ending(x, o) == "You win!"


def test_rematch_swaps_x_and_counts_the_first_game(
    new_context: NewContext, server: ServerProcess, shoot: Any
) -> None:
    host, guest, _ = friends(new_context, server.url)
    x, o = x_first(host, guest)
    play_out({x: click_cell, o: click_cell}, X_WINS)
    expect_same_ending(x, o)

    x.get_by_role("button", name="Rematch", exact=True).click()
    expect(x.get_by_text("Waiting for your friend to accept the rematch")).to_be_visible()
    expect(o.get_by_text("Your friend wants a rematch")).to_be_visible()
    o.get_by_role("button", name="Rematch", exact=True).click()

    for page, mark in ((x, "O"), (o, "X")):
        expect(page.locator("#game-meta")).to_have_text(f"Game 2 · You play {mark}")
        expect(page.locator("#game-number")).to_have_text("Game 2")
        assert marks(page) == "........."
    expect(status(o)).to_have_text("Your turn (you play X)")
    expect(x.locator("#score")).to_have_text(score(1, 0, 0))
    expect(o.locator("#score")).to_have_text(score(0, 1, 0))

    # Resigning asks first: Escape keeps the game going, "Yes, resign" ends it.
    click_cell(o, 4)
    in_step(x, o)
    x.get_by_role("button", name="Resign").click()
    dialog = x.get_by_role("dialog", name="Resign this game?")
    expect(dialog).to_be_visible()
    shoot(x, "resign-confirmation")
    x.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(status(x)).to_have_text("Your turn (you play O)")
    x.get_by_role("button", name="Resign").click()
    x.get_by_role("button", name="Yes, resign").click()
    expect(status(x)).to_have_text("You resigned")
    expect(status(o)).to_have_text("Your friend resigned")
    expect(x.locator("#score")).to_have_text(score(1, 1, 0))
    expect(x.get_by_role("button", name="Rematch", exact=True)).to_be_focused()


def test_leaving_frees_the_seat_and_goes_home(
    new_context: NewContext, server: ServerProcess
) -> None:
    host, guest, link = friends(new_context, server.url)
    x, o = x_first(host, guest)
    click_cell(x, 0)
    in_step(x, o)

    guest.get_by_role("link", name="Leave room").click()
    guest.get_by_role("button", name="Yes, leave").click()
    expect(guest).to_have_url(server.url + "/")
    expect(status(host)).to_have_text("Your friend left the room")
    expect(host.locator("#score")).to_have_text(score(1, 0, 0))  # the game left is lost
    expect(host.locator("details#invite")).to_have_attribute("open", "")

    # Someone new opens the link: they watch, and take the free seat by its button.
    newcomer = new_context().new_page()
    open_room(newcomer, link)
    expect(status(newcomer)).to_have_text(re.compile(r"^Player [12] left the room$"))
    newcomer.get_by_role("button", name="Take the free seat").click()
    expect(newcomer.locator("#game-meta")).to_have_text(re.compile(r"^Game 1 · You play [XO]$"))
    expect(host.locator("#score")).to_have_text(score(0, 0, 0))  # a new series


# O wins by the middle row, X answering a1, b1, c3 (the cells in the order played).
O_WINS = [0, 3, 1, 4, 8, 5]


def test_a_leave_is_told_and_a_watcher_takes_the_seat_by_its_button(
    new_context: NewContext, server: ServerProcess, axe: Any, shoot: Shoot
) -> None:
    a, b, link = friends(new_context, server.url)
    c = new_context().new_page()
    open_room(c, link)
    in_step(a, b, c)
    b.get_by_label("Your name in this room").fill("Bea")
    b.get_by_role("button", name="Save name").click()
    expect(c.get_by_role("list")).to_contain_text("Bea")

    # B wins the first game: 1-0.
    play_out({a: click_cell, b: click_cell}, X_WINS if mark_of(b) == "X" else O_WINS)
    expect(status(b)).to_have_text("You win!")
    expect(b.locator("#score")).to_have_text(score(1, 0, 0))

    # A leaves: B and C are told in words, and B keeps the score of the series.
    a.get_by_role("link", name="Leave room").click()
    expect(a).to_have_url(server.url + "/")
    expect(status(b)).to_have_text("Your friend left the room")
    expect(b.locator("#score")).to_have_text(score(1, 0, 0))
    expect(b.locator("#substatus")).to_contain_text("your last series")
    expect(status(c)).to_have_text(re.compile(r"^Player [12] left the room$"))
    take = c.get_by_role("button", name="Take the free seat")
    expect(take).to_be_visible()
    expect_no_violations(axe, b, "a player whose friend left")
    shoot(b, "room-friend-left")
    expect_no_violations(axe, c, "a spectator offered the free seat")
    shoot(c, "room-free-seat")

    # A reload leaves C watching: no seat is taken without the button.
    c.reload()
    expect(board(c)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(status(c)).to_have_text(re.compile(r"^Player [12] left the room$"))
    expect(status(b)).to_have_text("Your friend left the room")
    take.click()
    expect(c.locator("#game-meta")).to_have_text(re.compile(r"^Game 1 · You play [XO]$"))
    expect(b.locator("#game-meta")).to_have_text(re.compile(r"^Game 1 · You play [XO]$"))
    expect(b.locator("#score")).to_have_text(score(0, 0, 0))  # a new series, with C
    expect(c.get_by_role("list")).to_contain_text("Bea · ")

    # Both A's and B's histories hold the 1-0 game, as a game with a friend.
    for page, result in ((a, "Loss"), (b, "Win")):
        page.goto(server.url + "/history")
        row = page.get_by_role("row").filter(has_text="With a friend")
        expect(row).to_have_count(1)
        expect(row).to_contain_text(result)
        expect(page.get_by_role("heading", name="With friends")).to_be_visible()
    b.get_by_role("row").filter(has_text="With a friend").get_by_role("button").click()
    expect(
        b.get_by_role("heading", name=re.compile(r"^Replay: With a friend, .*, Win$"))
    ).to_be_visible()
    expect(b.locator("#replay-move")).to_have_text(
        re.compile(r"^Move \d of \d: You \([XO]\) played")
    )
    expect(b.locator("#share")).to_be_hidden()
    expect_no_violations(axe, b, "the replay of a game with a friend")
    shoot(b, "history-friend")


def expect_no_violations_in_both_themes(axe: Any, page: Page, where: str) -> None:
    """axe-core finds nothing on the page as it is now, in the light and the dark theme."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        expect_no_violations(axe, page, f"{where} ({scheme})")


# Keeps every text the notice area is given (it fades after a while): what was announced.
KEEP_NOTICES = """() => {
  const notice = document.getElementById("notice");
  window.announced = [];
  new MutationObserver(() => window.announced.push(notice.textContent)).observe(notice, {
    childList: true, characterData: true, subtree: true,
  });
}"""


def expect_announced(page: Page, text: str) -> None:
    """The page's notice area (a status region: read out) was given ``text``."""
    page.wait_for_function("(text) => window.announced.includes(text)", arg=text)


def name_yourself(page: Page, name: str) -> None:
    """Save the name a player is shown by in this room."""
    page.get_by_label("Your name in this room").fill(name)
    page.get_by_role("button", name="Save name").click()
    expect(page.get_by_text("Name saved")).to_be_visible()


def test_a_seat_that_changes_hands_says_who_took_whose_and_a_forfeit_reaches_history(
    new_context: NewContext, server: ServerProcess, axe: Any, shoot: Shoot
) -> None:
    alice, bob, link = friends(new_context, server.url)
    carol, dan = new_context().new_page(), new_context().new_page()
    for watcher in (carol, dan):
        open_room(watcher, link)
    in_step(alice, bob, carol, dan)
    name_yourself(alice, "Alice")
    name_yourself(bob, "Bob")
    expect(dan.get_by_role("list")).to_contain_text("Bob")

    # Alice wins game 1; in game 2 Bob leaves after its first move: a forfeit, 2-0.
    play_out({alice: click_cell, bob: click_cell}, X_WINS if mark_of(alice) == "X" else O_WINS)
    expect(status(alice)).to_have_text("You win!")
    for page in (alice, bob):
        page.get_by_role("button", name="Rematch", exact=True).click()
    expect(alice.locator("#game-meta")).to_have_text(re.compile(r"^Game 2 · "))
    x, _ = x_first(alice, bob)
    click_cell(x, 4)
    in_step(alice, bob, carol, dan)

    # The question says what really happens: the seat waits for its button.
    bob.get_by_role("link", name="Leave room").click()
    question = bob.get_by_role("dialog", name="Leave this room?")
    expect(question).to_contain_text(
        "Your seat stays free until someone watching, or opening the link, presses"
        " \N{LEFT DOUBLE QUOTATION MARK}Take the free seat\N{RIGHT DOUBLE QUOTATION MARK}:"
        " then a new series begins."
    )
    expect_no_violations_in_both_themes(axe, bob, "the leave question")
    shoot(bob, "room-leave-question")
    bob.get_by_role("button", name="Yes, leave").click()
    expect(bob).to_have_url(server.url + "/")

    # Bob keeps his name in the notice and in the score of the series he played.
    expect(status(alice)).to_have_text("Bob left the room")
    expect(alice.locator("#score")).to_have_text("You 2 \N{EN DASH} 0 Bob, 0 draws")
    for watcher in (carol, dan):
        expect(status(watcher)).to_have_text("Bob left the room")
        expect(watcher.locator("#score")).to_have_text("Alice 2 \N{EN DASH} 0 Bob, 0 draws")
    expect_no_violations_in_both_themes(axe, carol, "a spectator told who left")
    shoot(carol, "room-left-by-name")

    # Carol takes the seat: everyone is told whose seat, and why the score is 0-0.
    for page in (alice, carol, dan):
        page.evaluate(KEEP_NOTICES)
    carol.get_by_role("button", name="Take the free seat").click()
    taken = "took Bob's seat: a new series begins"
    for page, who in ((alice, "A new player"), (carol, "You"), (dan, "A new player")):
        expect(page.locator("#series-note")).to_have_text(f"{who} {taken}")
        expect_announced(page, f"{who} {taken}")
    expect(alice.locator("#score")).to_have_text("You 0 \N{EN DASH} 0 Friend, 0 draws")
    expect(dan.locator("#score")).to_have_text("Alice 0 \N{EN DASH} 0 Player 2, 0 draws")
    name_yourself(carol, "Carol")
    for page in (alice, dan):
        expect(page.locator("#series-note")).to_have_text(f"Carol {taken}")
    expect(alice.locator("#score")).to_have_text("You 0 \N{EN DASH} 0 Carol, 0 draws")
    expect_no_violations_in_both_themes(axe, alice, "a seat taken, said to the player who stayed")
    shoot(alice, "room-seat-taken")
    expect_no_violations_in_both_themes(axe, carol, "a seat taken, said to the newcomer")
    shoot(carol, "room-seat-taken-newcomer")

    # The forfeit is in both histories, cut short, with who won it; its replay works.
    for page, result in (
        (alice, "Win by forfeit (your friend left)"),
        (bob, "Loss by forfeit (you left)"),
    ):
        page.goto(server.url + "/history")
        rows = page.get_by_role("row").filter(has_text="With a friend")
        expect(rows).to_have_count(2)
        expect(rows.first).to_contain_text(result)
    alice.get_by_role("row").filter(has_text="by forfeit").get_by_role("button").click()
    expect(
        alice.get_by_role(
            "heading",
            name=re.compile(r"^Replay: With a friend, .*, Win by forfeit \(your friend left\)$"),
        )
    ).to_be_visible()
    expect(alice.locator("#replay-summary")).to_contain_text(
        "Cut short after 1 move: your friend left the room, and the game went to you."
    )
    expect(alice.locator("#replay-move")).to_have_text(re.compile(r"^Move 1 of 1: .* played b2"))
    alice.get_by_role("button", name="First", exact=True).click()
    expect(alice.locator("#replay-move")).to_have_text(re.compile(r"^The empty board"))
    alice.get_by_role("button", name="Last", exact=True).click()  # where it was cut short
    expect(alice.locator("#replay-at")).to_have_text("1 of 1")
    expect_no_violations_in_both_themes(axe, alice, "the replay of a game cut short")
    shoot(alice, "history-cut-short")


def test_two_players_on_one_device(page: Page, server: ServerProcess) -> None:
    page.goto(server.url + "/")
    ai_board = page.get_by_role("grid", name="Board")
    # The first snapshot first: before it the board says data-turn="none" too.
    expect(ai_board).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(ai_board).to_have_attribute("data-turn", re.compile(r"^(human|none)$"))
    ai_version, ai_marks = ai_board.get_attribute("data-version"), marks(page)

    page.get_by_role("link", name="Two players, this device").click()
    expect(page).to_have_url(server.url + "/people")  # the rules first: classic unless chosen
    page.get_by_role("button", name="Two players, this device").click()
    expect(page).to_have_url(server.url + "/local?variant=classic")
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(page.locator("#game-meta")).to_have_text("Game 1 · Player 1 is X, Player 2 is O")
    expect(status(page)).to_have_text("X to move")
    undo = page.get_by_role("button", name="Take back")
    expect(undo).to_have_attribute("aria-disabled", "true")

    click_cell(page, 4)
    expect(status(page)).to_have_text("O to move")
    click_cell(page, 0)
    expect(status(page)).to_have_text("X to move")
    undo.click()
    expect(cell(page, 0)).to_have_accessible_name("a1, empty")
    expect(status(page)).to_have_text("O to move")
    assert marks(page) == "....X...."

    # Hints are for the side to move, on every empty cell.
    page.get_by_role("button", name="Hint").click()
    empty = page.get_by_role("gridcell", name=EMPTY)
    expect(empty.filter(has_text=HINT)).to_have_count(8)
    expect(cell(page, 0)).to_have_accessible_description(re.compile(r"^hint: "))
    page.get_by_role("button", name="Hint").click()
    expect(empty.filter(has_text=HINT)).to_have_count(0)

    # O blunders; X wins by the keyboard alone (digits too).
    for target in (1, 0, 2):
        click_cell(page, target)
    page.get_by_role("gridcell", name="a1, X").click()  # the focus, in the board
    # The page judges no move: the server refuses the taken cell, and says so.
    expect(page.locator("#notice")).to_have_text("a1 is already taken")
    page.keyboard.press("9")
    expect(cell(page, 8)).to_have_accessible_name("c3, X")
    expect(status(page)).to_have_text("Player 1 (X) wins")
    tally = page.get_by_label("Tally")
    expect(tally).to_have_text(re.compile(r"Player 1 wins\s*1\s*Player 2 wins\s*0\s*Draws\s*0"))

    page.get_by_role("button", name="Next game").click()
    expect(page.locator("#game-meta")).to_have_text("Game 2 · Player 2 is X, Player 1 is O")
    expect(status(page)).to_have_text("X to move")
    assert marks(page) == "........."
    for target in X_WINS:  # X again, but Player 2 this time: one win each
        click_cell(page, target)
    expect(status(page)).to_have_text("Player 2 (X) wins")
    expect(tally).to_have_text(re.compile(r"Player 1 wins\s*1\s*Player 2 wins\s*1\s*Draws\s*0"))

    page.get_by_role("button", name="Next game").click()
    for target in DRAW:
        click_cell(page, target)
    expect(status(page)).to_have_text("Draw")
    expect(page.locator("#draws")).to_have_text("1")

    page.get_by_role("link", name="Play the AI").click()
    assert ai_version is not None
    expect(ai_board).to_have_attribute("data-version", ai_version)
    assert marks(page) == ai_marks


def test_a_refused_move_is_said_and_undone(
    page: Page, server_factory: Callable[..., ServerProcess]
) -> None:
    # A burst of 4 packets: the socket's connect, its room_join, two moves; not a third.
    strict = server_factory(TICTACTOE_RATE_BURST="4", TICTACTOE_RATE_PER_SECOND="0.1")
    open_room(page, strict.url + "/local")
    click_cell(page, 4)
    click_cell(page, 0)
    page.get_by_role("gridcell", name="c3, empty", exact=True).click()
    notice = page.get_by_role("status").filter(has_text="slow down a little")
    expect(notice).to_be_visible()
    expect(cell(page, 8)).to_have_accessible_name("c3, empty")
    expect(cell(page, 8)).to_have_attribute("aria-disabled", "false")
    expect(status(page)).to_have_text("X to move")


def test_an_unknown_link_offers_a_new_room(page: Page, server: ServerProcess) -> None:
    for unknown in ("A" * 22, "not-a-room"):
        reply = page.goto(f"{server.url}/r/{unknown}")
        assert reply is not None and reply.status == 404
        expect(page.get_by_role("heading", name="Room not available")).to_be_visible()
        reason = "This invite link is unknown, or its room has expired."
        expect(page.get_by_text(reason)).to_be_visible()
        expect(page.get_by_role("link", name="Play the AI")).to_have_attribute("href", "/")
    page.get_by_role("button", name="Play a friend").click()
    expect(page).to_have_url(re.compile(r"/people\?$"))  # the rules first
    page.get_by_role("button", name="Play a friend").click()
    expect(page).to_have_url(re.compile(r"/r/[A-Za-z0-9_-]{22}$"))
    expect(status(page)).to_have_text("Waiting for your friend to open the link")
    expect(invite_link(page)).to_have_value(page.url)


def test_friends_on_two_server_processes(
    new_context: NewContext,
    server_factory: Callable[..., ServerProcess],
    redis_url: str,
) -> None:
    shared = {
        "TICTACTOE_REDIS_URL": redis_url,
        "TICTACTOE_SECRET_KEY": secrets.token_hex(16),
        "TICTACTOE_SIGNING_KEY": secrets.token_hex(32),  # hosts on one Redis must agree
    }
    one, two = server_factory(**shared), server_factory(**shared)
    host = new_context().new_page()
    link = start_room(host, one.url)
    guest = new_context().new_page()
    guest.goto(two.url + "/")
    open_room(guest, two.url + urlsplit(link).path)
    in_step(host, guest)
    x, o = x_first(host, guest)
    play_out({x: click_cell, o: click_cell}, DRAW)
    assert expect_same_ending(x, o) == "Draw"
    expect(host.locator("#score")).to_have_text(score(0, 0, 1))


def test_rooms_are_accessible_and_look_right(
    new_context: NewContext, server: ServerProcess, axe: Any, shoot: Shoot
) -> None:
    host = new_context().new_page()
    link = start_room(host, server.url)
    expect(host.get_by_role("img", name="QR code of the invite link")).to_be_visible()
    expect_no_violations(axe, host, "waiting for a friend")
    shoot(host, "room-waiting")

    guest = new_context().new_page()
    open_room(guest, link)
    watcher = new_context().new_page()
    open_room(watcher, link)
    in_step(host, guest, watcher)
    x, o = x_first(host, guest)
    for target, mover in ((4, x), (0, o), (2, x)):
        click_cell(mover, target)
        in_step(x, o, watcher)
    expect_one_tab_stop(o)
    expect_no_violations(axe, o, "mid-game, a player's view")
    shoot(o, "room-mid-game")
    expect_no_violations(axe, watcher, "a spectator's view")
    shoot(watcher, "room-spectator")

    o.get_by_role("button", name="Resign").click()
    expect_no_violations(axe, o, "the resign dialog")
    o.get_by_role("button", name="Keep playing").click()
    play_out({x: click_cell, o: click_cell}, [3, 6])
    expect_same_ending(x, o)
    expect(x.get_by_role("button", name="Rematch", exact=True)).to_be_visible()
    expect_no_violations(axe, x, "game over")
    shoot(x, "room-game-over")

    local = new_context().new_page()
    open_room(local, server.url + "/local")
    for target in (4, 0, 8):
        click_cell(local, target)
    local.get_by_role("button", name="Hint").click()
    expect(local.get_by_role("gridcell", name=EMPTY).filter(has_text=HINT)).to_have_count(6)
    expect_no_violations(axe, local, "one device, mid-game")
    shoot(local, "room-local")

    missing = new_context().new_page()
    missing.goto(server.url + "/r/" + "B" * 22)
    expect_no_violations(axe, missing, "an unknown room")
    shoot(missing, "room-missing")


def test_cells_keep_their_names(new_context: NewContext, server: ServerProcess) -> None:
    host = new_context().new_page()
    start_room(host, server.url)
    for index in range(9):
        expect(cell(host, index)).to_have_accessible_name(f"{cell_name(index)}, empty")
        expect(cell(host, index)).to_have_attribute("aria-disabled", "true")
