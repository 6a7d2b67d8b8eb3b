"""What the browser tests share: finding the board and playing it as a player would,
and axe-core's verdict on a page."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, WebSocketRoute, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

Axe = Callable[[Page], list[dict[str, Any]]]

EMPTY = re.compile(r"^[abc][123], empty$")
SETTLED = re.compile(r"^(human|none)$")
# A hint on a cell counts the player's own moves: "win now", "win · 2 moves", "draw", "loses".
HINT = re.compile(r"^(win now|win · \d moves|draw|loses)$")
RESULT = re.compile(r"You win|AI wins|Draw|won the match")
PAGE_BUDGET_BYTES = 100 * 1024  # on the wire: the static files go out gzipped
SHOT_TRIES = 3
SHOT_MS = 15_000


def cell_name(cell: int) -> str:
    """a1..c3: column letter, then row number from the top."""
    return f"{'abc'[cell % 3]}{cell // 3 + 1}"


def board(page: Page) -> Locator:
    """The game board, an ARIA grid."""
    return page.get_by_role("grid", name="Board")


def cell(page: Page, index: int) -> Locator:
    """The button of one cell, whatever it holds."""
    return page.get_by_role("button", name=re.compile(f"^{cell_name(index)}, "))


def marks(page: Page) -> str:
    """The board as nine characters (X, O, .), read from the cells' accessible names."""
    labels = page.locator("[data-cell]").evaluate_all(
        "cells => cells.map(c => c.getAttribute('aria-label'))"
    )
    return "".join("." if label.endswith("empty") else label[-1] for label in labels)


def settle(page: Page) -> str:
    """Wait until the human is to move or the game is over; return data-turn."""
    expect(board(page)).to_have_attribute("data-turn", SETTLED)
    return board(page).get_attribute("data-turn") or ""


def open_game(page: Page, url: str) -> None:
    """Load the page and wait for the first snapshot and the human's turn (or game over)."""
    page.goto(url)
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    settle(page)


def play(page: Page, index: int) -> None:
    """Click an empty cell and wait for the AI's answer (or the end of the game)."""
    name = cell_name(index)
    page.get_by_role("gridcell", name=f"{name}, empty", exact=True).click()
    expect(cell(page, index)).not_to_have_accessible_name(f"{name}, empty")
    settle(page)


def first_empty(page: Page) -> int:
    """The first empty cell in reading order."""
    return marks(page).index(".")


def play_game(page: Page, choose: Callable[[Page], int] = first_empty) -> str:
    """Play the current game out by clicks; return the status line."""
    while settle(page) == "human":
        play(page, choose(page))
    status = page.locator("#status-text")
    expect(status).to_have_text(RESULT)
    return status.inner_text()


def version(page: Page) -> int:
    """The version of the snapshot the page shows."""
    return int(board(page).get_attribute("data-version") or 0)


def wait_past(page: Page, seen: int) -> None:
    """Wait until the page shows a snapshot newer than version ``seen``."""
    page.wait_for_function(
        "v => Number(document.getElementById('board').dataset.version) > v", arg=seen
    )


def confirmation(page: Page) -> Locator:
    """The dialog that asks before a match with something to lose is abandoned."""
    return page.get_by_role("dialog", name="Abandon this match?")


def rules_dialog(page: Page) -> Locator:
    """The dialog of a new match's rules."""
    return page.get_by_role("dialog", name="New match")


def open_rules(page: Page) -> Locator:
    """Open the rules dialog (unless it is open already) and return it."""
    dialog = rules_dialog(page)
    if not dialog.is_visible():
        page.get_by_role("button", name="Choose the rules…").click()
    expect(dialog).to_be_visible()
    return dialog


# The page has answered Start match: it asks to abandon, it started, or it refused.
ANSWERED = """() => document.getElementById('confirm').open
  || !document.getElementById('rules-dialog').open
  || !document.getElementById('settings-error').hidden"""


def press_start(page: Page) -> None:
    """Press Start match in the rules dialog, and say yes if the page asks first."""
    open_rules(page).get_by_role("button", name="Start match").click()
    page.wait_for_function(ANSWERED)
    if confirmation(page).is_visible():
        confirmation(page).get_by_role("button", name="Start new match").click()
    expect(confirmation(page)).to_be_hidden()


def start_match(
    page: Page, mode: str, human_hp: int = 100, ai_hp: int = 100, first: str = "Coin toss"
) -> None:
    """Start a new match from the rules dialog and wait for its first position;
    ``first`` is who starts a fixed mode's first game, as the form names the choice."""
    before = version(page)
    open_rules(page)
    page.get_by_role("radio", name=mode, exact=True).check()
    rules = page.get_by_role("group", name="Rules")
    if mode == "Adaptive":
        rules.get_by_role("spinbutton", name="Your starting HP").fill(str(human_hp))
        rules.get_by_role("spinbutton", name="The AI's starting HP").fill(str(ai_hp))
    else:
        expect(rules).to_be_hidden()
        who = page.get_by_role("group", name="Who goes first")
        who.get_by_role("radio", name=first, exact=True).check()
    press_start(page)
    expect(board(page)).to_have_attribute("data-mode", mode.lower())
    wait_past(page, before)
    expect(page.get_by_text(re.compile(r"^Game 1 · You play [XO]"))).to_be_visible()
    settle(page)


# A percentage as words.js's percent() writes it: "84.7%", "less than 0.1%".
PERCENT = r"(?:(?:less|more) than )?\d+(?:\.\d+)?%"
ODDS = re.compile(
    rf"^A perfect player wins this match {PERCENT} of the time, in about \d+ games?;"
    rf" a random player {PERCENT} \(exact odds\)$"
)
CHANCES = re.compile(
    rf"^For reference, from here a perfect player wins {PERCENT} of this match;"
    rf" a random one {PERCENT}$"
)


def focused_cell(page: Page) -> int:
    """The data-cell of the focused element (-1 outside the board)."""
    return int(page.evaluate("document.activeElement?.dataset?.cell ?? -1"))


def walk_to(page: Page, target: int) -> None:
    """Move the focus to ``target`` with the arrow keys."""
    here = focused_cell(page)
    rows, cols = target // 3 - here // 3, target % 3 - here % 3
    for key, steps in (("ArrowDown", rows), ("ArrowUp", -rows)):
        for _ in range(max(steps, 0)):
            page.keyboard.press(key)
    for key, steps in (("ArrowRight", cols), ("ArrowLeft", -cols)):
        for _ in range(max(steps, 0)):
            page.keyboard.press(key)
    assert focused_cell(page) == target


def expect_one_tab_stop(page: Page) -> None:
    """Roving tabindex: exactly one cell is in the tab order."""
    expect(page.locator('[data-cell][tabindex="0"]')).to_have_count(1)
    expect(page.locator('[data-cell][tabindex="-1"]')).to_have_count(8)


def expect_no_violations(axe: Axe, page: Page, where: str = "the page") -> None:
    """axe-core finds nothing on the page as it is now."""
    violations = axe(page)
    assert not violations, f"{where}:\n" + "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in violations
    )


def expect_accessible(axe: Axe, page: Page) -> None:
    """axe-core finds no WCAG 2 A or AA violation on the page, its motion at rest."""
    page.emulate_media(reduced_motion="reduce")
    page.wait_for_timeout(100)
    expect_no_violations(axe, page)


def hints(page: Page) -> dict[int, str]:
    """The hint shown on each empty cell, once every empty cell shows one."""
    empty = page.get_by_role("gridcell", name=EMPTY)
    expect(empty.filter(has_text=HINT)).to_have_count(empty.count())
    cells = page.get_by_role("gridcell")
    return {
        index: cells.nth(index).inner_text().strip()
        for index, mark in enumerate(marks(page))
        if mark == "."
    }


def value(hint: str) -> int:
    """A hint as a number: a quick win highest, a loss lowest."""
    if hint == "win now":
        return 100
    moves = re.fullmatch(r"win · (\d) moves", hint)
    return 100 - int(moves[1]) if moves else {"draw": 0, "loses": -100}[hint]


def best(page: Page) -> int:
    """The cell with the best perfect-play value (the hints must be on)."""
    shown = hints(page)
    return max(shown, key=lambda index: value(shown[index]))


def worst(page: Page) -> int:
    """The cell with the worst perfect-play value (the hints must be on)."""
    shown = hints(page)
    return min(shown, key=lambda index: value(shown[index]))


def next_game(page: Page) -> None:
    """Start the next game of the match and wait for its first position."""
    page.get_by_role("button", name="Next game").click()
    expect(page.get_by_text(re.compile(r"^Game \d+ · "))).to_be_visible()
    expect(page.locator("#status-text")).not_to_have_text(RESULT)
    settle(page)


def play_until(
    page: Page,
    result: str,
    choose: Callable[[Page], int],
    games: int = 8,
    again: Callable[[Page], None] | None = None,
) -> None:
    """Play games with ``choose`` until one ends in ``result``.

    An HP match may end on another result first (the AI's dice are the AI's): ``again``
    then starts a new match like it, if given; without it the test fails there.
    """
    for _ in range(games):
        if play_game(page, choose) == result:
            return
        if again is not None and page.locator("#new-match").is_visible():
            again(page)  # the hints stay as they were: the page remembers them
        else:
            next_game(page)
    pytest.fail(f"no {result!r} in {games} games")


def screenshot(target: Page | Locator, path: Path, *, full_page: bool = False) -> None:
    """Save ``target`` (a page or a part of one) to ``path`` with CSS animations stopped.

    Late in a long run Chromium now and then never answers a capture: nothing on the page
    is at fault, and the same capture asked again, after a pause, is answered. A capture
    that fails every time still fails the test.
    """
    options: dict[str, Any] = {"path": str(path), "animations": "disabled", "timeout": SHOT_MS}
    if full_page:
        options["full_page"] = True
    page = target if isinstance(target, Page) else target.page
    for attempt in range(1, SHOT_TRIES + 1):
        try:
            target.screenshot(**options)
            break
        except PlaywrightTimeout:
            if attempt == SHOT_TRIES:
                raise
            page.wait_for_timeout(500)
    assert path.stat().st_size > 0, f"{path.name} is empty"


def marks_of(page: Page, board_id: str) -> list[str]:
    """The marks of one of the page's boards, read from its cells' accessible names."""
    cells = page.locator(f"{board_id} button[data-cell]")
    labels = [cells.nth(i).get_attribute("aria-label") or "" for i in range(cells.count())]
    return [label.split(", ")[1].replace("empty", ".") for label in labels]


# Socket.IO's text frames: the page's move event (42<id>["move",...] or "room_move"), and
# the server's ack of the event of that id (43<id>[...]).
MOVE_EVENT = re.compile(r'^42(\d+)\["(?:room_)?move"')
ACK = re.compile(r"^43(\d+)\[")


class HeldAcks:
    """Holds back the server's acks of the page's moves while every other frame passes
    (the snapshots among them): the answer to a move comes as a position first, its ack
    later, as it may on a busy machine. With ``everything``, every frame from the first
    move on is held: the page hears nothing of its move. Routed before the page opens
    its socket."""

    def __init__(self, page: Page, everything: bool = False) -> None:
        self.moves: set[str] = set()
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []
        self.holding = True
        self.everything = everything
        page.route_web_socket(re.compile(r"/socket\.io/"), self._route)

    def _route(self, page_side: WebSocketRoute) -> None:
        server = page_side.connect_to_server()

        def up(message: str | bytes) -> None:
            found = MOVE_EVENT.match(message) if isinstance(message, str) else None
            if found:
                self.moves.add(found[1])
            server.send(message)

        def down(message: str | bytes) -> None:
            found = ACK.match(message) if isinstance(message, str) else None
            ours = found and found[1] in self.moves
            if self.holding and (ours or (self.everything and self.moves)):
                self.held.append((page_side, message))
                return
            page_side.send(message)

        page_side.on_message(up)
        server.on_message(down)

    def release(self) -> int:
        """Send the acks held back, in order, and hold no more; how many there were."""
        self.holding = False
        held, self.held = self.held, []
        for page_side, message in held:
            page_side.send(message)
        return len(held)
