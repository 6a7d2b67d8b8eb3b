"""End-to-end: a finished game in History, its replay by keyboard, and its review."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import (
    board,
    expect_no_violations,
    marks,
    open_game,
    play,
    play_game,
    settle,
    start_match,
)
from browser_history import open_newest_replay, play_with_a_mistake
from playwright.sync_api import Browser, Page, expect
from support.testing import early_in_a_clock_minute

from webapp.game import engine
from webapp.game.board import Board, cell_name, parse_cell

pytestmark = pytest.mark.shared_server  # one server process, each test a new player


def expect_better_cells_named_and_marked(page: Page, slipped: int) -> list[str]:
    """At the slip, the verdict names the engine's best cells, and the board marks those
    cells (by a dashed ring, and in their accessible names), and no others."""
    items = page.get_by_role("list", name="Moves").get_by_role("listitem").all_inner_texts()
    position = Board()
    for item in items[: slipped - 1]:  # "X b2: best move"
        position = position.apply_move(parse_cell(item.split()[1].rstrip(":")))
    expected = sorted(cell_name(cell) for cell in engine.best_moves(position))
    text = page.locator("#replay-verdict").inner_text()
    named = re.search(r"; ((?:[a-c][1-3](?:, | or )?)+) (?:keep|win|lose)(s?) ", text)
    assert named, text
    assert sorted(re.findall(r"[a-c][1-3]", named.group(1))) == expected, text
    assert named.group(2) == ("s" if len(expected) == 1 else ""), text  # "a3 keeps", "or c1 keep"
    marked = page.get_by_role("gridcell", name=re.compile(r", empty, the better move$"))
    expect(marked).to_have_count(len(expected))
    ringed = page.locator('#replay-board [data-best="true"]')
    labels = [ringed.nth(i).get_attribute("aria-label") or "" for i in range(ringed.count())]
    names = sorted(label[:2] for label in labels)
    assert names == expected
    return expected


def record_verified(page: Page) -> Any:
    """The replay's record check once it says the signature and the dice are verified."""
    verdict = re.compile("^Dice checked ✓$")
    return page.locator("#replay").get_by_role("status").filter(has_text=verdict)


def test_a_mistake_is_marked_at_its_ply_replayed_by_keyboard_and_shared(
    page: Page,
    browser: Browser,
    server: Any,
    axe: Callable[[Page], list[dict[str, Any]]],
    shoot: Any,
) -> None:
    open_game(page, server.url)
    start_match(page, "Impossible")
    slipped = 0
    for _ in range(4):  # the AI may open so that the first position leaves no slip
        slipped = play_with_a_mistake(page)
        if slipped:
            break
        page.get_by_role("button", name="Next game").click()
        expect(board(page)).to_have_attribute("data-status", "playing")
    assert slipped, "no position offered a mistake"

    open_newest_replay(page, server.url)
    moves = page.get_by_role("list", name="Moves").get_by_role("listitem")
    expect(moves.nth(slipped - 1)).to_have_text(re.compile(r": (mistake|blunder)"))
    expect(page.locator("#replay-summary")).to_contain_text(re.compile(r"\d (mistake|blunder)"))
    total = moves.count()
    expect(page.locator("#replay-move")).to_have_text(re.compile(rf"^Move {total} of {total}: "))

    page.keyboard.press("Home")
    expect(page.locator("#replay-move")).to_have_text(re.compile("^The empty board"))
    expect(page.get_by_role("gridcell", name=re.compile(r", empty$"))).to_have_count(9)
    for _ in range(slipped):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-move")).to_have_text(re.compile(rf"^Move {slipped} of {total}"))
    verdict = re.compile(r"^(Mistake|Blunder): [a-c][1-3] (loses in \d|only draws); ")
    expect(page.locator("#replay-verdict")).to_have_text(verdict)
    expect(page.get_by_role("gridcell", name=re.compile(r", [XO]$"))).to_have_count(slipped)
    better = expect_better_cells_named_and_marked(page, slipped)
    mistake = moves.nth(slipped - 1).inner_text().split()[1].rstrip(":")
    item = moves.nth(slipped - 1).inner_text()
    assert sorted(re.findall(r"[a-c][1-3]", item.split("(best ")[1])) == better, item
    expect_no_violations(axe, page, "a replay marking the better move")
    shoot(page, "history-replay-better-move")
    page.keyboard.press("ArrowLeft")  # the move before: a best move, nothing marked
    expect(page.locator('#replay-board [data-best="true"]')).to_have_count(0)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    expect(page.locator("#replay-at")).to_have_text(f"{total} of {total}")
    page.get_by_role("button", name="First", exact=True).click()
    expect(page.locator("#replay-scrubber")).to_have_value("0")

    # The stored game's record comes signed, and the replay checks it as the game did.
    expect(record_verified(page)).to_be_visible()
    expect(page.get_by_role("link", name="Download game record")).to_be_visible()
    expect(page.locator("#replay-verify")).to_contain_text("--keys http")
    expect_no_violations(axe, page, "history with a replay")
    shoot(page, "history-replay")

    # The share link opens the same replay in a fresh browser, with no cookie.
    link = page.get_by_role("textbox", name="Share link").input_value()
    assert re.fullmatch(rf"{re.escape(server.url)}/g/[A-Za-z0-9_-]{{22}}", link), link
    summary = page.locator("#replay-summary").inner_text()
    fresh = browser.new_context()
    shared = fresh.new_page()
    assert (shared.goto(link) or pytest.fail("no answer")).status == 200
    expect(shared.locator("#replay-summary")).to_have_text(summary)
    expect(shared.get_by_role("list", name="Moves").get_by_role("listitem")).to_have_count(total)
    shared.keyboard.press("Home")  # the replay section has no focus yet: arrows do nothing
    shared.get_by_role("button", name="First", exact=True).click()
    expect(shared.locator("#replay-move")).to_have_text(re.compile("^The empty board"))
    assert fresh.cookies() == []
    expect(record_verified(shared)).to_be_visible()
    expect_no_violations(axe, shared, "a shared game")
    shoot(shared, "shared-game")
    assert shared.goto(server.url + "/g/" + "C" * 22).status == 404  # type: ignore[union-attr]
    expect(shared.get_by_role("heading", name="Game not available")).to_be_visible()
    fresh.close()

    # Retry from the first mistake: its position, the player to move, the match untouched.
    open_game(page, server.url)  # waits for the first snapshot, not the page's placeholder
    match_before = (board(page).get_attribute("data-version"), marks(page))
    open_newest_replay(page, server.url)
    page.get_by_role("button", name="Retry from your first mistake").click()
    expect(page).to_have_url(server.url + "/practice")
    expect(page.get_by_role("heading", name="Practice", exact=True)).to_be_visible()
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    assert settle(page) == "human"
    assert 9 - marks(page).count(".") == slipped - 1
    # It names the mistake, and says what each move there does.
    lesson = page.locator("#practice-lesson")
    expect(lesson).to_have_text(
        re.compile(
            rf"^Here you played a (mistake|blunder): {mistake} (loses in \d|only draws)\."
            r" Try another move\.$"
        )
    )
    said = page.locator("#practice-feedback")
    expect(said).to_have_text("")
    position = marks(page)
    play(page, parse_cell(mistake))
    expect(said).to_have_text(re.compile(rf"^That's your move again: {mistake} (loses|only draws)"))
    expect(said).to_have_attribute("data-feedback", "played")
    shoot(page, "practice-played-again")
    take_back = page.get_by_role("button", name="Take back")
    if take_back.is_visible():  # the game may have ended with that move
        take_back.click()
        # The AI's reply may arrive after the click: wait for the position, not the turn.
        expect(page.get_by_role("gridcell", name=re.compile(r", [XO]$"))).to_have_count(slipped - 1)
        expect(board(page)).to_have_attribute("data-turn", "human")
        expect(said).to_have_text("")
    else:
        open_newest_replay(page, server.url)
        page.get_by_role("button", name="Retry from your first mistake").click()
        expect(said).to_have_text("")  # a fresh practice game: nothing played yet
        expect(board(page)).to_have_attribute("data-turn", "human")
    best = engine.best_moves(Board(position))[0]
    play(page, best)
    expect(said).to_have_text(re.compile(rf"^Best move: {cell_name(best)} (wins|keeps) "))
    expect(said).to_have_attribute("data-feedback", "best")
    expect(page.get_by_role("status").filter(has_text=re.compile("^Best move: "))).to_have_count(1)
    expect_no_violations(axe, page, "a practice game")
    shoot(page, "practice-best-move")
    open_game(page, server.url)
    assert (board(page).get_attribute("data-version"), marks(page)) == match_before


@pytest.mark.fresh_server  # stops and restarts the server
def test_history_survives_a_server_restart(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Easy")
    while settle(page) == "human":
        play(page, marks(page).index("."))
    page.goto(server.url + "/history")
    expect(page.locator("#games-rows tr")).to_have_count(1)
    expect(page.locator("#by-mode-rows")).to_contain_text("Easy")
    server.stop()
    server.start()
    page.reload()
    expect(page.locator("#games-rows tr")).to_have_count(1)
    expect(page.locator("#games-rows tr").first).to_contain_text("Easy")


def test_download_and_delete_everything(page: Page, server: Any, axe: Any, shoot: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Easy")
    while settle(page) == "human":
        play(page, marks(page).index("."))
    page.goto(server.url + "/history")
    expect(page.locator("#games-rows tr")).to_have_count(1)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download all my games").click()
    saved = json.loads(Path(download.value.path()).read_text())
    assert len(saved["games"]) == 1 and saved["games"][0]["record"]["mode"] == "easy"

    page.get_by_role("button", name="Delete everything").click()
    dialog = page.get_by_role("dialog", name="Delete everything?")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    expect_no_violations(axe, page, "the delete confirmation")
    shoot(page, "delete-confirmation")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator("#games-rows tr")).to_have_count(1)  # nothing deleted

    page.get_by_role("button", name="Delete everything").click()
    dialog.get_by_role("button", name="Delete everything").click()
    expect(page).to_have_url(server.url + "/")
    page.goto(server.url + "/history")
    expect(page.get_by_text("No finished games yet")).to_be_visible()
    expect(page.locator("#games-rows tr")).to_have_count(0)


def test_a_download_asked_for_too_often_is_said_on_the_page(
    page: Page, server_factory: Callable[..., Any], axe: Any, shoot: Any
) -> None:
    server = server_factory(TICTACTOE_COSTLY_PER_PLAYER_MINUTE="2")
    early_in_a_clock_minute()  # the three asks in one minute's count
    page.goto(server.url + "/history")  # its `history` event is one whole history
    expect(page.get_by_text("No finished games yet")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download all my games").click()
    assert json.loads(Path(download.value.path()).read_text())["games"] == []
    page.get_by_role("link", name="Download all my games").click()  # the third
    expect(page.locator("#notice")).to_have_text(
        re.compile(r"^Asked for too often: try again in \d+ seconds?$")
    )
    expect(page.locator("#notice")).to_have_css("opacity", "1")  # seen, not only heard
    expect_no_violations(axe, page, "a download asked for too often")
    shoot(page, "history-download-too-often")


def test_each_match_in_a_picture_with_its_numbers(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=1, ai_hp=1)  # one game decides it
    while settle(page) == "human":
        play(page, marks(page).index("."))
    you, ai = (int(page.locator(f"#{side}-hp").inner_text()) for side in ("human", "ai"))
    page.goto(server.url + "/history")
    figure = page.get_by_role("figure", name=re.compile("^Match of "))
    expect(figure).to_be_visible()
    expect(figure.get_by_role("img")).to_have_attribute("aria-label", re.compile("over 1 games"))
    figure.get_by_text("The numbers").click()
    rows = figure.get_by_role("row")
    expect(rows.nth(1)).to_have_text(re.compile(r"^Start\s*1\s*1\s*99$"))
    after = rows.nth(2).get_by_role("cell")
    # The table shows HP as the page does, at 0 once it has run out.
    assert (int(after.nth(1).inner_text()), int(after.nth(2).inner_text())) == (you, ai)
    expect_no_violations(axe, page, "history with a match timeline")
    shoot(page, "history-matches")


def test_take_back_in_a_fixed_mode_and_why_not_in_an_hp_match(page: Page, server: Any) -> None:
    open_game(page, server.url)
    first_empty = marks(page).index(".")
    play(page, first_empty)
    assert settle(page) == "human"  # three plies at most: the game goes on
    expect(page.get_by_role("button", name="Take back")).to_be_hidden()
    expect(page.get_by_text("No take-back in an HP match")).to_be_visible()
    start_match(page, "Easy", first="Me")
    before = marks(page)
    play(page, 4)
    after = marks(page)
    assert after != before
    page.get_by_role("button", name="Take back").click()
    expect(page.get_by_role("gridcell", name="b2, empty", exact=True)).to_be_visible()
    assert marks(page) == before
    play(page, 4)
    assert marks(page) == after  # the same dice: the AI answers as before


def shown_game(page: Page) -> str:
    """The id of the game the replay shows, from its share link."""
    expect(page.get_by_role("grid", name="Replay board")).to_be_visible()
    link = page.get_by_role("textbox", name="Share link")
    expect(link).to_have_value(re.compile(r"/g/[A-Za-z0-9_-]{22}$"))
    return link.input_value().rsplit("/", 1)[1]


def expect_shown(page: Page, game: str) -> None:
    """The replay comes to show ``game``: its share link waits for that game's id."""
    expect(page.get_by_role("grid", name="Replay board")).to_be_visible()
    share = page.get_by_role("textbox", name="Share link")
    expect(share).to_have_value(re.compile(rf"/g/{re.escape(game)}$"))


def test_a_replay_has_its_own_address_for_back_forward_and_bookmarks(
    page: Page, browser: Browser, server: Any, axe: Callable[[Page], list[dict[str, Any]]]
) -> None:
    open_game(page, server.url)
    start_match(page, "Easy")
    for _ in range(2):
        while settle(page) == "human":
            play(page, marks(page).index("."))
        page.get_by_role("button", name="Next game").click()
        expect(board(page)).to_have_attribute("data-status", "playing")
    page.goto(server.url + "/history")
    rows = page.locator("#games-rows tr")
    expect(rows).to_have_count(2)
    replay_buttons = page.get_by_role("button", name=re.compile("^Replay the game of"))
    address = re.compile(rf"^{re.escape(server.url)}/history/([A-Za-z0-9_-]{{22}})$")

    replay_buttons.nth(0).click()
    expect(page).to_have_url(address)
    newest = shown_game(page)
    assert page.url == f"{server.url}/history/{newest}"
    replay_buttons.nth(1).click()
    expect(page).to_have_url(re.compile(r"/history/(?!" + re.escape(newest) + ")"))
    older = shown_game(page)
    assert older != newest and page.url == f"{server.url}/history/{older}"

    page.go_back()  # the newest game's replay again
    expect(page).to_have_url(f"{server.url}/history/{newest}")
    expect_shown(page, newest)
    page.go_back()  # History alone: no replay
    expect(page).to_have_url(f"{server.url}/history")
    expect(page.locator("#replay")).to_be_hidden()
    expect(page.locator("#share")).to_be_hidden()
    page.go_forward()
    expect(page).to_have_url(f"{server.url}/history/{newest}")
    expect_shown(page, newest)
    expect(page).to_have_title(re.compile("^Game of "))

    page.reload()  # a bookmark or a reload opens the same replay
    expect_shown(page, newest)
    expect(page.locator("#replay-move")).to_have_text(re.compile(r"^Move (\d+) of \1: "))
    expect_no_violations(axe, page, "a replay at its own address")
    page.goto(f"{server.url}/history/{older}")
    expect_shown(page, older)

    # Another browser has no such game: it is told so, and nothing is shown.
    stranger = browser.new_context().new_page()
    stranger.goto(f"{server.url}/history/{newest}")
    expect(stranger.locator("#notice")).to_have_text(re.compile("history", re.I))
    expect(stranger.locator("#replay")).to_be_hidden()
    assert stranger.goto(f"{server.url}/history/not-a-game").status == 404  # type: ignore[union-attr]
    stranger.context.close()


def test_an_abandoned_match_is_labelled_abandoned(page: Page, server: Any, axe: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive")
    while settle(page) == "human":
        play(page, marks(page).index("."))
    page.goto(server.url + "/history")
    under_way = page.get_by_role("figure", name=re.compile(r"^This match, under way \(last game "))
    expect(under_way).to_be_visible()

    page.goto(server.url)
    start_match(page, "Adaptive", human_hp=90)  # the first match is left at game 2
    page.goto(server.url + "/history")
    abandoned = page.get_by_role("figure", name=re.compile(r"^Abandoned match \(last game "))
    expect(abandoned).to_be_visible()
    expect(page.get_by_role("figure", name=re.compile("under way"))).to_have_count(0)
    expect_no_violations(axe, page, "history with an abandoned match")


def test_the_share_page_says_who_won(
    page: Page, browser: Browser, server: Any, axe: Any, shoot: Any
) -> None:
    open_game(page, server.url)
    start_match(page, "Impossible")  # the AI never loses: a loss or a draw
    while settle(page) == "human":
        play(page, marks(page).index("."))
    lost = board(page).get_attribute("data-status") == "ai_won"
    open_newest_replay(page, server.url)
    link = page.get_by_role("textbox", name="Share link").input_value()

    fresh = browser.new_context()
    stranger = fresh.new_page()
    stranger.goto(link)
    theirs = "The AI won" if lost else "A draw with the AI"
    heading = stranger.get_by_role("heading", name=re.compile(r"^Replay: Impossible, "))
    expect(heading).to_have_text(re.compile(rf", {theirs}$"))
    expect_no_violations(axe, stranger, "a shared game")
    shoot(stranger, "shared-game")
    fresh.close()

    page.goto(link)  # its own player is told "you"
    mine = "You lost to the AI" if lost else "A draw with the AI"
    expect(page.get_by_role("heading", name=re.compile(rf", {mine}$"))).to_be_visible()


def test_the_share_page_says_who_won_the_match(page: Page, browser: Browser, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=1, ai_hp=1)  # one game decides the match
    while settle(page) == "human":
        play(page, marks(page).index("."))
    open_newest_replay(page, server.url)
    link = page.get_by_role("textbox", name="Share link").input_value()
    fresh = browser.new_context()
    stranger = fresh.new_page()
    stranger.goto(link)
    said = stranger.get_by_role("heading", name=re.compile(r"^Replay: Adaptive, "))
    expect(said).to_have_text(re.compile(r"; the match went to (the player|the AI)$"))
    fresh.close()


def test_replay_buttons_that_go_off_hand_the_focus_to_the_scrubber(page: Page, server: Any) -> None:
    open_game(page, server.url)
    play_game(page)
    open_newest_replay(page, server.url)
    scrubber = page.get_by_role("slider", name=re.compile("^Move"))  # opened at the last move
    total = page.get_by_role("list", name="Moves").get_by_role("listitem").count()
    page.get_by_role("button", name="First", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="First", exact=True)).to_be_disabled()
    expect(scrubber).to_be_focused()  # not the page's top
    page.keyboard.press("End")  # the scrubber's own keys go on from there
    expect(page.locator("#replay-at")).to_have_text(f"{total} of {total}")
    page.get_by_role("button", name="Previous", exact=True).click()
    page.get_by_role("button", name="Next", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Next", exact=True)).to_be_disabled()
    expect(scrubber).to_be_focused()
