"""End-to-end: a mistake played against the AI comes back on the Train page as a card,
answered by a typed cell (wrong, then found: the live region says each), by keys and
screen reader; a puzzle solved by a click moves the rating; the chart and the streak."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import board, expect_no_violations, marks_of, open_game, start_match
from browser_history import play_with_a_mistake
from playwright.sync_api import Page, expect
from support.stocked import player_of
from support.testing import early_in_a_clock_minute
from support.training import variant_game_with_mistake

from webapp.game import engine
from webapp.game.board import Board, cell_name
from webapp.game.training import puzzle_named
from webapp.game.variant import variant_named
from webapp.server.app import create_app

pytestmark = pytest.mark.shared_server  # one server process, each test a new player


def said(page: Page) -> Any:
    return page.locator("#train-said")


def test_a_mistake_comes_back_as_a_card_until_found_and_a_puzzle_moves_the_rating(
    page: Page, server: Any, axe: Callable[[Page], list[dict[str, Any]]], shoot: Any
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

    page.get_by_role("link", name="Train").click()
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^1 card due now, of 1\."))
    grid = page.get_by_role("grid", name="Card board")
    played = grid.get_by_role("gridcell", name=re.compile(r", you played here$"))
    expect(played).to_have_count(1)
    labelled = page.locator("#card-board button[aria-label$='you played here']")
    played_name = (labelled.get_attribute("aria-label") or "")[:2]
    position = "".join(marks_of(page, "#card-board"))
    best = {cell_name(cell) for cell in engine.best_moves(Board(position))}
    expect(page.locator("#card-prompt")).to_contain_text(f"You played {played_name} here")
    expect_no_violations(axe, page, "a card due")
    shoot(page, "train-card-due")

    box = page.get_by_role("textbox", name="Your move on this card, a cell such as b2")
    box.fill("z9")
    box.press("Enter")
    expect(said(page)).to_have_text(re.compile("“z9” is not a cell"))
    wrong = next(
        cell_name(i) for i, mark in enumerate(position) if mark == "." and cell_name(i) not in best
    )
    box.fill(wrong)
    box.press("Enter")
    expect(said(page)).to_have_text(re.compile(f"^{wrong} is not among the best"))
    expect(page.locator("#card-task")).to_be_visible()  # the same card, back in this session
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^1 card due now"))
    page.reload()  # a reload keeps it: due until found
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^1 card due now"))
    box.fill(sorted(best)[0])
    box.press("Enter")
    expect(said(page)).to_have_text(re.compile(r"^Found\. Best here: "))
    expect(page.locator("#card-task")).to_be_hidden()
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^Nothing due now: 1 card"))
    expect(page.locator("#streak")).to_have_text("Streak: 1 day in a row.")
    expect(page.locator("#train-chart-desc")).to_have_text(re.compile(r": 0 passed, 1 failed$"))
    expect(page.locator("#train-chart .bar-failed")).to_have_count(1)

    puzzle = puzzle_named(f"classic:{''.join(marks_of(page, '#puzzle-board'))}")
    assert puzzle is not None
    expect(page.locator("#puzzle-rating")).to_have_text("Your puzzle rating: 1500.")
    pgrid = page.get_by_role("grid", name="Puzzle board")
    answer = cell_name(puzzle.answer[0])
    pgrid.get_by_role("gridcell", name=f"{answer}, empty", exact=True).click()
    expect(said(page)).to_have_text(
        re.compile(r"^Solved: .* Your puzzle rating is now 1[6-9]\d\d\.")
    )
    rating = int(re.findall(r"\d+", page.locator("#puzzle-rating").inner_text())[0])
    assert rating > 1500
    expect(page.get_by_role("button", name="Next puzzle")).to_be_visible()
    expect_no_violations(axe, page, "a card found and a puzzle solved")
    shoot(page, "train-progress")
    page.get_by_role("button", name="Next puzzle").click()
    expect(page.get_by_role("button", name="Next puzzle")).to_be_hidden()
    assert "".join(marks_of(page, "#puzzle-board")) != puzzle.board


def test_a_newcomer_sees_no_cards_yet_and_solves_a_puzzle_by_keys_alone(
    page: Page, server: Any, axe: Callable[[Page], list[dict[str, Any]]], shoot: Any
) -> None:
    page.goto(server.url + "/train")
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^No cards yet"))
    expect(page.locator("#card-task")).to_be_hidden()
    expect(page.locator("#streak")).to_have_text(re.compile(r"^No streak yet"))
    expect(page.locator("#train-chart-desc")).to_have_text(re.compile(r"^No cards answered"))
    expect_no_violations(axe, page, "training with no cards")
    shoot(page, "train-empty")

    puzzle = puzzle_named(f"classic:{''.join(marks_of(page, '#puzzle-board'))}")
    assert puzzle is not None
    wrong = next(i for i, m in enumerate(puzzle.board) if m == "." and i not in puzzle.answer)
    page.locator("#puzzle-board button[tabindex='0']").focus()
    page.keyboard.press(str(wrong + 1))  # keys 1-9 play a cell in reading order
    expect(said(page)).to_have_text(
        re.compile(rf"^{cell_name(wrong)} does not solve it: try again\. .* now 1[0-4]\d\d\.")
    )
    page.keyboard.press(str(puzzle.answer[0] + 1))
    expect(said(page)).to_have_text(re.compile(r"^Solved: "))
    after = page.locator("#puzzle-rating").inner_text()
    assert int(re.findall(r"\d+", after)[0]) < 1500  # the miss counted, the later solve not


def page_player(page: Page) -> str:
    """The player id of the page's session cookie."""
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "session"]
    return player_of(f"session={cookie['value']}")


@pytest.mark.fresh_server  # writes to the server's data dir
def test_cards_from_4x4_and_notakto_games_are_drawn_on_their_own_boards_and_answered(
    page: Page, server: Any, axe: Callable[[Page], list[dict[str, Any]]], shoot: Any
) -> None:
    page.goto(server.url + "/train")
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    app = create_app({"TESTING": True, "DATA_DIR": str(server.data_dir)})
    for name, ended in (("4x4k3", 1000.0), ("notakto2", 2000.0)):
        entry = {**variant_game_with_mistake(name, f"v-{name}"), "ended": ended}
        assert app.extensions["history"].add(page_player(page), f"room:r:{name}", entry)
    app.extensions["history"].close()
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^2 cards due now, of 2\."))
    grid = page.get_by_role("grid", name="Card board")
    expect(grid.get_by_role("gridcell")).to_have_count(16)  # the 4x4 card first: due first
    expect(grid.get_by_role("gridcell", name="c1, empty, you played here")).to_have_count(1)
    expect(page.locator("#card-prompt")).to_have_text(
        "X to move on 4x4k3. You played c1 here, a blunder: find a better move."
    )
    expect_no_violations(axe, page, "a 4x4 card due")
    shoot(page, "train-card-4x4")
    box = page.get_by_role("textbox", name="Your move on this card, a cell such as b2")
    box.fill("d4")
    box.press("Enter")
    expect(said(page)).to_have_text(re.compile(r"^d4 is not among the best"))

    # The failed card goes to the back: the Notakto card is drawn on its two boards.
    expect(page.locator("#card-board button[data-cell]")).to_have_count(18)
    expect(page.get_by_role("group", name="Card boards")).to_have_count(1)
    expect(page.locator("#card-prompt")).to_have_text(
        "First player to move on notakto2. You played 1:c1 here, a blunder: find a better move."
    )
    expect(page.locator("#card-board-help")).to_have_count(1)  # the old board's help gone
    expect_no_violations(axe, page, "a Notakto card due")
    shoot(page, "train-card-notakto")
    box = page.get_by_role("textbox", name="Your move on this card, a cell such as 2:b2")
    box.fill("1:a2")
    box.press("Enter")
    expect(said(page)).to_have_text(re.compile(r"^Found\. Best here: 1:a2\."))

    # The 4x4 card again, until found: its box names b2 again.
    expect(page.locator("#card-cell-example")).to_have_text("b2")
    expect(page.locator("#due-count")).to_have_text(re.compile(r"^1 card due now, of 2\."))
    grid.get_by_role("gridcell", name="c3, empty", exact=True).click()
    expect(said(page)).to_have_text(re.compile(r"^Found\. Best here: a2, b2, a3 or c3\."))
    expect(page.locator("#card-task")).to_be_hidden()


def test_puzzles_on_notakto_are_chosen_drawn_on_their_boards_and_solved(
    page: Page, server: Any, axe: Callable[[Page], list[dict[str, Any]]], shoot: Any
) -> None:
    page.goto(server.url + "/train")
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    page.get_by_label("Puzzles on").select_option("notakto2")
    expect(page.locator("#puzzle-variant-meaning")).to_have_text(re.compile(r"^Two boards"))
    expect(page.locator("#puzzle-board button[data-cell]")).to_have_count(18)
    prompt = re.compile(r"player to move on notakto2\.$")
    expect(page.locator("#puzzle-prompt")).to_have_text(prompt)
    marks = "".join(marks_of(page, "#puzzle-board"))
    puzzle = puzzle_named(f"notakto2:{marks[:9]}/{marks[9:]}")
    assert puzzle is not None
    expect_no_violations(axe, page, "a Notakto puzzle")
    shoot(page, "train-puzzle-notakto")
    box = page.get_by_role("textbox", name="Your move in the puzzle, a cell such as 2:b2")
    box.fill(variant_named("notakto2").cell_name(puzzle.answer[0]))
    box.press("Enter")
    expect(said(page)).to_have_text(re.compile(r"^Solved: .*\d:[a-c]\d"))
    expect(page.locator("#puzzle-rating")).to_have_text(re.compile(r"1[5-9]\d\d\.$"))


def test_past_the_players_count_the_page_says_when_to_ask_again(
    page: Page, server_factory: Any
) -> None:
    server = server_factory(TICTACTOE_TRAIN_PER_PLAYER_MINUTE="2")
    early_in_a_clock_minute()  # every ask in one minute's count
    page.goto(server.url + "/train")
    expect(page.locator("html")).to_have_attribute("data-ready", "true")  # the first
    page.get_by_label("Puzzles on").select_option("misere")  # the second
    expect(page.locator("#puzzle-prompt")).to_have_text(re.compile(r"on misere\.$"))
    page.get_by_label("Puzzles on").select_option("4x4k3")  # one too many
    expect(said(page)).to_have_text(
        re.compile(r"^Training: asked for too often from this player or address; ask again in")
    )
    expect(page.locator("#puzzle-prompt")).to_have_text(re.compile(r"on misere\.$"))
    expect(page.get_by_label("Puzzles on")).to_have_value("misere")
