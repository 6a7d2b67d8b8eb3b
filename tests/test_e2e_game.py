"""End-to-end: the real server and Chromium, asserting what the player sees."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser import (
    EMPTY,
    HINT,
    PAGE_BUDGET_BYTES,
    RESULT,
    board,
    cell,
    cell_name,
    expect_one_tab_stop,
    first_empty,
    focused_cell,
    marks,
    open_game,
    play,
    play_game,
    settle,
    start_match,
    walk_to,
)
from playwright.sync_api import BrowserContext, Page, expect
from support.testing import ServerProcess, free_port

pytestmark = pytest.mark.shared_server  # one server process, each test a new player


def test_impossible_mode_never_loses(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Impossible")
    expect(page.locator("#mode-chip")).to_have_text("Impossible")
    expect(page.get_by_role("meter", name="Your HP")).to_be_hidden()
    expect(page.get_by_text("Losses", exact=True)).to_be_visible()
    if settle(page) == "human":
        play(page, first_empty(page))
    said = r"^Impossible: the AI played its best move, [abc][123]$"
    expect(page.get_by_text(re.compile(said))).to_be_visible()
    result = play_game(page)
    assert result != "You win!"
    record = {"AI wins": "#losses", "Draw": "#draws"}[result]
    expect(page.locator(record)).to_have_text("1")
    expect(page.get_by_role("button", name="Next game")).to_be_visible()


# How the page explains a fixed mode's move, by the mode's name in the form.
FIXED_MODES = {
    "Easy": r"Easy: the AI moved at random, [abc][123]",
    "Medium": r"Medium: the AI played the move with the best odds, [abc][123]",
    "Hard": r"Hard: the AI looked 2 moves ahead and played [abc][123]",
}


def test_fixed_modes_show_their_name_and_explain_their_moves(page: Page, server: Any) -> None:
    open_game(page, server.url)
    for mode, said in FIXED_MODES.items():
        start_match(page, mode)
        # The chip reads the mode's label from the form, whose options the server renders.
        expect(page.locator("#mode-chip")).to_have_text(mode)
        if settle(page) == "human":
            play(page, first_empty(page))
        explain = page.locator("#explain")
        expect(explain).to_have_text(re.compile(rf"^{said}$"))


def hp_of(page: Page, side: str) -> int:
    """The HP number shown for ``side`` ("human" or "ai")."""
    return int(page.locator(f"#{side}-hp").inner_text())


def expect_bar(page: Page, side: str, hp: int) -> None:
    """The bar of ``side`` is ``hp`` percent wide once its transition has run."""
    width = max(0, min(100, hp))
    fill = page.locator(f"#{side}-fill")
    expect(fill).to_have_attribute("style", f"width: {width}%;")
    page.wait_for_function(
        """([side, width]) => {
            const fill = document.getElementById(side + '-fill');
            const ratio = fill.offsetWidth / fill.parentElement.clientWidth;
            return Math.abs(ratio * 100 - width) < 1.5;
        }""",
        arg=[side, width],
    )


def test_adaptive_game_updates_hp_bars(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=50, ai_hp=1)
    you = page.get_by_role("meter", name="Your HP")
    expect(you).to_have_attribute("aria-valuenow", "50")
    expect(page.locator("#human-hp")).to_have_text("50")
    expect(page.locator("#ai-hp")).to_have_text("1")
    expect(page.locator("#difficulty")).to_have_text("99")
    expect_bar(page, "human", 50)

    if settle(page) == "human":
        play(page, first_empty(page))
    rolled = r"(under 99, so it played its best move|not under 99, so it moved at random)"
    said = rf"^Difficulty 99: the AI rolled \d+, {rolled}, [abc][123]$"
    expect(page.get_by_text(re.compile(said))).to_be_visible()
    play_game(page)

    for side, start in (("human", 50), ("ai", 1)):
        delta = page.locator(f"#{side}-delta")
        expect(delta).to_be_visible()
        change = delta.inner_text()
        assert re.fullmatch(r"[+-]\d+|±0", change), change
        shown = hp_of(page, side)
        # The number is clamped at 0 (a match ends there); the badge keeps the whole change.
        assert shown == max(0, start + (0 if change == "±0" else int(change)))
        expect_bar(page, side, shown)
    assert (hp_of(page, "human"), hp_of(page, "ai")) != (50, 1)


def test_a_whole_game_under_a_base_path(page: Page, tmp_path: Path) -> None:
    port = free_port()
    env = {"TICTACTOE_BASE_PATH": "/tictactoe"}
    server = ServerProcess(tmp_path, env, port=port, url=f"http://127.0.0.1:{port}/tictactoe")
    server.start()
    try:
        open_game(page, server.url + "/")
        play(page, first_empty(page))
        before = marks(page)
        page.reload()  # the cookie, scoped to the base path, finds the match again
        expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
        assert marks(page) == before
        play_game(page)
        cookies = page.context.cookies()
        assert [cookie["path"] for cookie in cookies] == ["/tictactoe"]
    finally:
        server.stop()


def test_refresh_resumes_game(page: Page, server: Any) -> None:
    open_game(page, server.url)
    play(page, first_empty(page))
    before = marks(page)
    assert before.count(".") < 9

    page.reload()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    settle(page)
    assert marks(page) == before


def expect_marks(page: Page, expected: str) -> None:
    """Every cell of ``page`` shows what ``expected`` holds."""
    for index, mark in enumerate(expected):
        name = f"{cell_name(index)}, {'empty' if mark == '.' else mark}"
        expect(cell(page, index)).to_have_accessible_name(name)


def test_two_tabs_stay_in_sync(context: BrowserContext, server: Any) -> None:
    first, second = context.new_page(), context.new_page()
    open_game(first, server.url)
    open_game(second, server.url)
    for _ in range(2):
        if settle(first) != "human":
            break
        play(first, first_empty(first))
        expect_marks(second, marks(first))
    expect(second.locator("#status-text")).to_have_text(first.locator("#status-text").inner_text())


def test_second_browser_gets_its_own_game(
    page: Page, new_context: Callable[..., BrowserContext], server: Any
) -> None:
    open_game(page, server.url)
    play(page, first_empty(page))
    mine = marks(page)

    other = new_context().new_page()
    open_game(other, server.url)
    theirs = marks(other)
    assert theirs != mine
    assert theirs.count(".") >= 8


@pytest.mark.fresh_server  # kills and restarts the server
def test_server_restart_resumes_game(page: Page, server: Any) -> None:
    open_game(page, server.url)
    play(page, first_empty(page))
    before = marks(page)

    server.kill()
    banner = page.get_by_role("status").filter(has_text="Reconnecting")
    expect(banner).to_be_visible()
    server.start()
    expect(banner).to_be_hidden(timeout=20_000)
    expect_marks(page, before)
    if settle(page) == "human":
        play(page, first_empty(page))
        assert marks(page).count(".") < before.count(".")


@pytest.mark.fresh_server  # kills and restarts the server
def test_reconnect_notice_while_server_down(page: Page, server: Any) -> None:
    open_game(page, server.url)
    notice = page.get_by_role("status").filter(has_text="Reconnecting")
    expect(notice).to_be_hidden()

    server.kill()
    expect(notice).to_be_visible()
    for index in range(9):
        expect(cell(page, index)).to_have_attribute("aria-disabled", "true")

    server.start()
    expect(notice).to_be_hidden(timeout=20_000)
    if settle(page) == "human":
        expect(cell(page, first_empty(page))).to_have_attribute("aria-disabled", "false")


def test_keyboard_only_game(page: Page, server: Any) -> None:
    open_game(page, server.url)
    page.keyboard.press("Tab")
    assert focused_cell(page) >= 0, "the board is the first tab stop"
    expect_one_tab_stop(page)

    keys = ["Enter", "Space", "digit"]
    turn = 0
    while settle(page) == "human":
        target = marks(page).index(".")
        key = keys[turn % len(keys)]
        if key == "digit":
            page.keyboard.press(str(target + 1))
        else:
            walk_to(page, target)
            expect(page.locator(":focus-visible")).to_have_attribute("data-cell", str(target))
            page.keyboard.press(key)
        expect(cell(page, target)).not_to_have_accessible_name(f"{cell_name(target)}, empty")
        expect_one_tab_stop(page)
        turn += 1

    expect(page.locator("#status-text")).to_have_text(RESULT)
    next_game = page.get_by_role("button", name="Next game")
    for _ in range(12):
        page.keyboard.press("Tab")
        if next_game.evaluate("b => b === document.activeElement"):
            break
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"^Game 2 · "))).to_be_visible()
    settle(page)
    assert focused_cell(page) >= 0, "the focus returns to the board"


def test_hint_shows_values(page: Page, server: Any) -> None:
    open_game(page, server.url)
    hint = page.get_by_role("button", name="Hint")
    expect(hint).to_have_attribute("aria-pressed", "false")
    hint.click()
    expect(hint).to_have_attribute("aria-pressed", "true")

    # Hints before the first move and again after the AI's reply; the second move is
    # left unplayed, so that the game is still on (and Hint shown) when it is turned off.
    for turn in range(2):
        assert settle(page) == "human"
        empty = page.get_by_role("gridcell", name=EMPTY)
        count = empty.count()
        assert count > 0
        for index in range(count):
            expect(empty.nth(index)).to_have_text(HINT)
            expect(empty.nth(index).get_by_role("button")).to_have_accessible_description(
                re.compile(r"^hint: ")
            )
        if turn == 0:
            play(page, first_empty(page))

    hint.click()
    expect(hint).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_role("gridcell", name=EMPTY).filter(has_text=HINT)).to_have_count(0)


def test_thinking_indicator_during_ai_delay(page: Page, server_factory: Any) -> None:
    slow = server_factory(TICTACTOE_AI_DELAY_MS="600")
    page.goto(slow.url)
    thinking = page.get_by_text("AI is thinking", exact=True)
    expect(board(page)).to_have_attribute("data-turn", re.compile(r"^(human|ai)$"))
    if board(page).get_attribute("data-turn") == "ai":
        expect(thinking).to_be_visible()
    settle(page)
    expect(thinking).to_be_hidden()

    index = first_empty(page)
    page.get_by_role("gridcell", name=f"{cell_name(index)}, empty").click()
    expect(thinking).to_be_visible()
    expect(page.locator("#thinking")).to_be_visible()
    expect(cell(page, index)).to_have_attribute("aria-disabled", "true")
    settle(page)
    expect(thinking).to_be_hidden()


def test_page_is_self_contained_and_small(page: Page, server: Any) -> None:
    origin = urlsplit(server.url).netloc
    requested: list[str] = []
    finished: list[Any] = []
    sockets: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on("requestfinished", lambda request: finished.append(request))
    page.on("websocket", lambda ws: sockets.append(ws.url))

    open_game(page, server.url)
    page.wait_for_load_state("networkidle")

    assert requested
    assert all(urlsplit(url).netloc == origin for url in requested + sockets), requested
    assert all(urlsplit(url).scheme in ("http", "ws") for url in requested + sockets)
    total = 0
    for request in finished:
        sizes = request.sizes()
        total += sizes["responseBodySize"] + sizes["responseHeadersSize"]
    assert total < PAGE_BUDGET_BYTES, f"{total} bytes"


def test_refused_event_is_shown_briefly(page: Page, server_factory: Any) -> None:
    # A burst of 4: the page's own odds request on load, then three of the clicks below.
    strict = server_factory(TICTACTOE_RATE_BURST="4", TICTACTOE_RATE_PER_SECOND="0.2")
    open_game(page, strict.url)
    expect(
        page.get_by_text(re.compile(r"^A perfect player wins this match"))
    ).to_be_attached()  # in the rules dialog, closed
    hint = page.get_by_role("button", name="Hint")
    notice = page.get_by_text("Slow down a little")
    for _ in range(4):
        hint.click()
        hint.click()
    expect(notice).to_be_visible()
    expect(notice).not_to_be_visible(timeout=8_000)


def test_screenshots(page: Page, server: Any, shoot: Callable[[Page, str], None]) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=60, ai_hp=30)
    play(page, first_empty(page))
    if settle(page) == "human":
        page.get_by_role("button", name="Hint").click()
        expect(page.get_by_role("gridcell", name=EMPTY).first).to_have_text(HINT)
    shoot(page, "mid-game")

    play_game(page)
    expect(page.get_by_role("button", name="Next game")).to_be_visible()
    page.wait_for_timeout(1500)  # the HP bars' transition
    shoot(page, "game-over")
