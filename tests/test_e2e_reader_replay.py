"""End-to-end: the screen-reader mode beyond the AI page. A lost game's replay is stepped
to its mistake through the command box alone, on History and on the share page, `why`
naming the better cell; practice from that mistake takes a typed slip back with `undo`
and is told the lesson's words; the Train page's card is answered by a typed cell. Bad
input is answered in words on each page, and the switch is remembered."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser import board, expect_no_violations, marks, marks_of, settle
from browser_history import BEFORE_SLIP, VERDICT, lose_by_leaving_the_threat, open_newest_replay
from browser_reader import command, reader_on, said
from playwright.sync_api import Browser, Locator, Page, expect

from webapp.game.board import cell_name
from webapp.game.training import puzzle_named

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

# The lost game: X a1, O b2, X b1, O c1, X c3 (the mistake), O a3.
AT_THE_MISTAKE = "row 1: X, X, O. row 2: empty, O, empty. row 3: empty, empty, X."
MISTAKE_STEP = f"Move 5 of 6: You (X) played c3. {VERDICT}"


@pytest.fixture
def lost(page: Page, server: Any) -> Page:
    """The player's page after the lost game."""
    lose_by_leaving_the_threat(page, server.url)
    return page


def step_to_the_mistake(page: Page, box: Locator) -> None:
    """From the empty board to the mistake, one `next` at a time, each step said."""
    region = said(page)
    command(page, box, "first")
    expect(region).to_have_text("The empty board: you moved first.")
    command(page, box, "back")
    expect(region).to_have_text("Already at the empty board: type next to step forward.")
    for ply in range(1, 6):
        command(page, box, "next")
        expect(region).to_have_text(re.compile(rf"^Move {ply} of 6: .* played [a-c][1-3][.,] "))
    expect(region).to_have_text(MISTAKE_STEP)
    expect(page.locator("#replay-at")).to_have_text("5 of 6")


def test_a_replay_is_stepped_to_its_mistake_by_typed_commands(
    lost: Page, browser: Browser, server: Any, axe: Any, shoot: Any
) -> None:
    page = lost
    open_newest_replay(page, server.url)
    box = reader_on(page)
    region = said(page)
    command(page, box, "help")
    expect(region).to_have_text(re.compile(r"^This is a replay: cells are not played here\. "))
    for words in ("next, one move forward", "back, one move back", "first, the empty board"):
        expect(region).to_contain_text(words)
    expect(region).not_to_contain_text("undo")
    expect(region).not_to_contain_text("hint")

    step_to_the_mistake(page, box)
    command(page, box, "why")
    expect(region).to_have_text(VERDICT)
    expect(page.locator("#replay-verdict")).to_have_text(VERDICT)
    command(page, box, "board")
    expect(region).to_have_text(AT_THE_MISTAKE)
    command(page, box, "last")
    expect(region).to_have_text("You (X) played c3.")
    command(page, box, "status")
    expect(region).to_have_text("Move 5 of 6. Loss.")

    # Bad input: answered in words, the replay where it was.
    command(page, box, "b2")
    expect(region).to_have_text("b2: a replay, nothing is played here.")
    command(page, box, "dance")
    expect(region).to_have_text("“dance” is not a command or a cell. Type help for the commands.")
    command(page, box, "hint")
    expect(region).to_have_text("hint does nothing on this page.")
    expect(page.locator("#replay-at")).to_have_text("5 of 6")
    expect(page.locator("#replay-verdict")).to_have_text(VERDICT)
    expect_no_violations(axe, page, "a replay read by the screen-reader mode, at its mistake")
    shoot(page, "reader-replay-mistake")

    command(page, box, "end")
    expect(region).to_have_text(re.compile(r"^Move 6 of 6: The AI \(O\) played a3"))
    command(page, box, "next")
    expect(region).to_have_text("Already at the game's end: type back to step back.")
    page.get_by_role("button", name="Previous", exact=True).click()  # a step by its button
    expect(region).to_have_text(MISTAKE_STEP)

    page.reload()  # the switch is remembered: on, with the next replay opened
    open_newest_replay(page, server.url)
    expect(page.get_by_role("switch", name="Screen-reader mode")).to_be_checked()
    expect(page.get_by_role("textbox", name="Command")).to_be_visible()

    link = page.get_by_role("textbox", name="Share link").input_value()
    fresh = browser.new_context()
    shared = fresh.new_page()
    shared.goto(link)
    expect(shared.get_by_role("list", name="Moves").get_by_role("listitem")).to_have_count(6)
    expect(shared.get_by_role("switch", name="Screen-reader mode")).not_to_be_checked()
    shared_box = reader_on(shared)
    command(shared, shared_box, "a3")
    expect(said(shared)).to_have_text("a3: a replay, nothing is played here.")
    expect(shared.locator("#replay-at")).to_have_text("6 of 6")
    command(shared, shared_box, "back")
    expect(said(shared)).to_have_text(MISTAKE_STEP)
    command(shared, shared_box, "why")
    expect(said(shared)).to_have_text(VERDICT)
    command(shared, shared_box, "status")
    expect(said(shared)).to_have_text(re.compile(r"^Move 5 of 6\. \S.*\.$"))
    expect_no_violations(axe, shared, "a shared game read by the screen-reader mode")
    shoot(shared, "reader-shared-mistake")
    fresh.close()


def test_practice_takes_a_typed_slip_back_and_says_the_lesson(
    lost: Page, server: Any, axe: Any, shoot: Any
) -> None:
    page = lost
    open_newest_replay(page, server.url)
    page.get_by_role("button", name="Retry from your first mistake").click()
    expect(page).to_have_url(server.url + "/practice")
    expect(board(page)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    assert settle(page) == "human" and marks(page) == BEFORE_SLIP
    box = reader_on(page)
    region = said(page)
    command(page, box, "help")
    expect(region).to_contain_text("undo takes your move back")
    command(page, box, "b2")
    expect(region).to_have_text("b2 is taken by O. Nothing was played.")
    command(page, box, "castle")
    expect(region).to_have_text("“castle” is not a command or a cell. Type help for the commands.")
    assert marks(page) == BEFORE_SLIP, "bad input changes nothing"

    command(page, box, "c3")  # the mistake again: the lesson's words, the AI's win
    expect(region).to_have_text(
        re.compile(r"^That's your move again: c3 loses in 1\. The AI played a3\. .*AI")
    )
    expect(board(page)).to_have_attribute("data-status", "ai_won")
    expect_no_violations(axe, page, "practice lost by a typed move, the mode on")
    shoot(page, "reader-practice-lost")

    command(page, box, "undo")
    expect(region).to_have_text("Taken back: your turn.")
    assert settle(page) == "human" and marks(page) == BEFORE_SLIP
    command(page, box, "a3")  # the block: the best move, said before the AI's answer
    expect(region).to_have_text(
        re.compile(r"^Best move: a3 keeps the draw\. The AI played [a-c][1-3]\. Your turn\.$")
    )
    expect(board(page)).to_have_attribute("data-status", "playing")


def test_a_card_is_answered_by_typed_commands_on_the_train_page(
    lost: Page, server: Any, axe: Any, shoot: Any
) -> None:
    page = lost
    page.goto(server.url + "/train")
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    box = reader_on(page)
    region = said(page)
    command(page, box, "help")
    expect(region).to_have_text(re.compile(r"^Type a cell such as b2 to answer the card due"))
    expect(region).not_to_contain_text("hint")
    command(page, box, "status")
    expect(region).to_have_text(
        "X to move. You played c3 here, a mistake: find a better move. 1 card due now, of 1."
    )
    command(page, box, "board")
    expect(region).to_have_text(f"{AT_THE_MISTAKE[:39]} row 3: empty, empty, empty.")
    command(page, box, "next")
    expect(region).to_have_text("Nothing next yet: answer this card first, and the next comes.")
    command(page, box, "a1")
    expect(region).to_have_text("a1 is taken by X. Nothing was played.")
    command(page, box, "d9")
    expect(region).to_have_text("d9 is not on this board: cells a1 to c3.")
    command(page, box, "hint")
    expect(region).to_have_text("hint does nothing on this page.")
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^1 card due now"))

    command(page, box, "a2")  # not the block: the card comes back in this session
    expect(region).to_have_text(re.compile(r"^a2 is not among the best"))
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^1 card due now"))
    expect_no_violations(axe, page, "a card answered by a typed command")
    shoot(page, "reader-train-card")
    command(page, box, "a3")
    expect(region).to_have_text(re.compile(r"^Found\. Best here: a3\."))
    expect(page.locator("#card-task")).to_be_hidden()

    # No card left: the puzzle is the one read and answered.
    command(page, box, "status")
    expect(region).to_have_text(re.compile(r"^.+: (X|O) to move\. Your puzzle rating: 1500\.$"))
    command(page, box, "next")
    expect(region).to_have_text("Nothing next yet: solve this puzzle first.")
    puzzle = puzzle_named(f"classic:{''.join(marks_of(page, '#puzzle-board'))}")
    assert puzzle is not None
    command(page, box, cell_name(puzzle.answer[0]))
    expect(region).to_have_text(re.compile(r"^Solved: .* Your puzzle rating is now 1[5-9]\d\d\."))
    command(page, box, cell_name(puzzle.answer[0]))
    expect(region).to_have_text("This puzzle is solved: type next for another.")
    command(page, box, "next")
    expect(region).to_have_text(re.compile(r"^.+: (X|O) to move\.$"))
    expect(page.get_by_role("button", name="Next puzzle")).to_be_hidden()
    assert "".join(marks_of(page, "#puzzle-board")) != puzzle.board
    expect(box).to_be_focused()
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    expect(page.get_by_role("switch", name="Screen-reader mode")).to_be_checked()


def test_the_mode_stays_off_on_the_replay_until_turned_on(lost: Page, server: Any) -> None:
    page = lost
    open_newest_replay(page, server.url)
    expect(page.get_by_role("switch", name="Screen-reader mode")).not_to_be_checked()
    expect(page.get_by_role("textbox", name="Command")).to_be_hidden()
    page.get_by_role("button", name="Previous", exact=True).click()
    expect(page.locator("#replay-at")).to_have_text("5 of 6")
    expect(said(page)).to_have_text("")
