"""End-to-end: "Delete everything" in one tab. Every other open tab of the player, of
any kind and on any process, says so at once, goes inert and offers a fresh start (a tab
whose socket was down at the time, as soon as it reconnects); the page the deletion
lands on says what was deleted, once; links into the deleted games say why they fail."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import Axe, board, expect_no_violations, marks, open_game, play, settle
from browser_history import open_newest_replay, play_with_a_mistake
from browser_rooms import start_room
from playwright.sync_api import Browser, BrowserContext, CDPSession, Locator, Page, expect
from support.live import live_server, server_environment
from support.testing import ServerProcess

from webapp.server.app import create_app

DELETED = "Your data was deleted"
# The game has at least one mistake of the player's (more if the AI's random moves let
# the first-empty-cell play after it slip again): that many training cards.
CONFIRMED = (
    "Deleted: 1 game with your lifetime figures and skill estimate, your match against the"
    " AI, your practice game, your seat in a room with a friend and {cards}."
    " This browser starts afresh as a new player."
)


def told(page: Page) -> Locator:
    """The dialog saying the player's data was deleted."""
    return page.get_by_role("dialog", name=DELETED)


def delete_everything(page: Page, url: str) -> None:
    """From History on ``url``, "Delete everything", confirmed; it lands on the home page."""
    page.goto(url + "/history")
    page.get_by_role("button", name="Delete everything").click()
    page.get_by_role("dialog", name="Delete everything?").get_by_role(
        "button", name="Delete everything"
    ).click()
    expect(page).to_have_url(url + "/")


def mark_unloaded(*pages: Page) -> None:
    """Mark each page, so that a reload would show (the mark goes with it)."""
    for page in pages:
        page.evaluate("window.beforeTheDeletion = true")


def expect_told_in_place(page: Page) -> None:
    """The tab says its player's data was deleted, in place (not reloaded), with a fresh
    start offered and focused; every other part of the page is inert: nothing answers."""
    dialog = told(page)
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("“Delete everything” was used in this browser")
    expect(dialog.get_by_role("link", name="Start afresh")).to_be_focused()
    assert page.evaluate("window.beforeTheDeletion") is True, f"{page.url} reloaded"
    parts = "[...document.body.children].filter((part) => part.id !== 'deleted')"
    assert page.evaluate(f"{parts}.every((part) => part.inert)"), f"{page.url} still answers"
    expect(page).to_have_title(DELETED)
    headline = page.locator("#status-text")  # behind the dialog, not "Not connected"
    if headline.count():
        expect(headline).to_have_text(DELETED)


def expect_board_inert(page: Page) -> None:
    """The page's board is under an inert part: no cell can be clicked or focused."""
    assert board(page).evaluate("(grid) => grid.closest('[inert]') !== null")


def cut_off(context: BrowserContext, page: Page) -> Callable[[], None]:
    """Cut ``page`` alone off the network until the function returned is called; its
    banner shows the socket down."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", {"offline": True, **conditions})
    expect(page.locator("#connection")).to_be_visible()
    return lambda: network_back(cdp, conditions)


def network_back(cdp: CDPSession, conditions: dict[str, int]) -> None:
    """The page of ``cdp`` on the network again."""
    cdp.send("Network.emulateNetworkConditions", {"offline": False, **conditions})


def test_every_open_tab_says_the_data_was_deleted_and_the_landing_page_what(
    browser: Browser, server: ServerProcess, axe: Axe, shoot: Callable[[Any, str], None]
) -> None:
    context = browser.new_context()
    game, replay, practice, lab, room = (context.new_page() for _ in range(5))
    open_game(game, server.url)
    play_with_a_mistake(game)
    open_newest_replay(replay, server.url)
    shared = replay.locator("#share-link").input_value()
    open_newest_replay(practice, server.url)
    practice.get_by_role("button", name="Retry from your first mistake").click()
    expect(practice).to_have_url(server.url + "/practice")
    settle(practice)
    lab.goto(server.url + "/lab")
    start_room(room, server.url)
    mark_unloaded(game, replay, practice, lab, room)

    cards = game.request.get(server.url + "/train/state.json").json()["cards"]
    assert cards >= 1
    confirmed = CONFIRMED.format(
        cards="1 training card" if cards == 1 else f"{cards} training cards"
    )
    landing = context.new_page()
    delete_everything(landing, server.url)

    # The page it lands on says what was deleted.
    confirmation = told(landing)
    expect(confirmation).to_be_visible()
    expect(confirmation.locator("#deleted-text")).to_have_text(confirmed)
    expect(confirmation.get_by_role("button", name="OK")).to_be_focused()
    expect_no_violations(axe, landing, "the page after the deletion")
    shoot(landing, "deleted-confirmation")
    confirmation.get_by_role("button", name="OK").click()
    expect(confirmation).to_be_hidden()
    landing.reload()  # said once: a reload does not say it again
    settle(landing)
    expect(told(landing)).to_be_hidden()

    # Every tab opened before it says so, at once and in place; its board answers no more.
    for page in (game, replay, practice, lab, room):
        expect_told_in_place(page)
    for page in (game, practice, room):
        expect_board_inert(page)
    expect_no_violations(axe, game, "a tab whose player was deleted")
    shoot(game, "deleted-tab")

    # A link into a deleted game says it is gone, styled, with a way back.
    gone = context.new_page()
    assert (gone.goto(shared) or pytest.fail("no answer")).status == 404
    expect(gone.get_by_role("heading", name="Game not available")).to_be_visible()
    expect(gone.locator(".missing-reason")).to_contain_text("deleted")
    expect(gone.get_by_role("link", name="Play the AI")).to_be_visible()

    # "Start afresh": the home page, as the new player this browser now is.
    told(game).get_by_role("link", name="Start afresh").click()
    expect(game).to_have_url(server.url + "/")
    expect(board(game)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(told(game)).to_be_hidden()
    settle(game)
    assert marks(game).count("X") + marks(game).count("O") <= 1  # a fresh match
    play(game, marks(game).index("."))
    context.close()


def test_a_tab_offline_at_the_deletion_is_told_as_it_reconnects(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context()
    game = context.new_page()
    open_game(game, server.url)
    play(game, marks(game).index("."))
    mark_unloaded(game)
    back = cut_off(context, game)  # its socket is down

    delete_everything(context.new_page(), server.url)  # the browser now holds a new player
    back()
    # Its socket comes back with the new player's cookie, and is refused all the same.
    expect_told_in_place(game)
    expect_board_inert(game)
    context.close()


def test_a_retry_from_a_deleted_game_answers_a_styled_page_saying_why(
    browser: Browser, server: ServerProcess, axe: Axe, shoot: Callable[[Any, str], None]
) -> None:
    context = browser.new_context()
    game, replay = context.new_page(), context.new_page()
    open_game(game, server.url)
    play_with_a_mistake(game)
    open_newest_replay(replay, server.url)
    expect(replay.get_by_role("button", name="Retry from your first mistake")).to_be_visible()
    back = cut_off(context, replay)  # not told: its socket is down
    delete_everything(game, server.url)
    back()
    # Its form, sent as a tab not yet told would send it.
    with replay.expect_navigation():
        replay.evaluate("document.getElementById('retry').requestSubmit()")
    expect(replay.get_by_role("heading", name="Game not available")).to_be_visible()
    expect(replay.locator(".missing-reason")).to_have_text(
        "Your data was deleted, this game with it: “Delete everything” was used in this browser."
    )
    expect(replay.get_by_role("link", name="Play the AI")).to_be_visible()
    expect_no_violations(axe, replay, "a retry from a deleted game")
    shoot(replay, "deleted-game-missing")
    context.close()


def test_tabs_on_another_process_are_told_on_redis(
    browser: Browser,
    tmp_path: Path,
    server_factory: Callable[..., ServerProcess],
    redis_url: str,
) -> None:
    settings = {"DATA_DIR": str(tmp_path), "AI_DELAY_MS": 0, "RATE_BURST": 10_000}
    key, signing = secrets.token_hex(16), secrets.token_hex(32)
    keys = {"SECRET_KEY": key, "SIGNING_KEY": signing}
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, **keys, **settings})
    first = live_server(app)
    second = server_factory(**server_environment(app), TICTACTOE_SECRET_KEY=key)
    context = browser.new_context()  # one browser: both servers are on 127.0.0.1
    game, down = context.new_page(), context.new_page()
    open_game(game, second.url)
    play(game, marks(game).index("."))
    open_game(down, second.url)
    mark_unloaded(game, down)
    back = cut_off(context, down)

    delete_everything(context.new_page(), first.url)
    expect_told_in_place(game)  # the push, through Redis to the other process
    back()
    expect_told_in_place(down)  # refused as it reconnects there: the list is in Redis
    context.close()
