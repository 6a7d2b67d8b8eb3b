"""End-to-end: practice and review read as a learner reads them. A game the Impossible AI
wins because the player left its threat open: the review says so in short, plain words
(the replay and the share page alike), and practice from that mistake takes the losing
move back, keeps no record, and after a lost game offers the same position again."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser import board, expect_no_violations, marks, play, settle
from browser_history import (
    BEFORE_SLIP,
    LESSON,
    SLIP,
    VERDICT,
    lose_by_leaving_the_threat,
    open_newest_replay,
)
from playwright.sync_api import Browser, Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player


def replay_at(page: Page, ply: int) -> None:
    """Step the open replay to ``ply`` from the empty board, by its buttons."""
    page.get_by_role("button", name="First", exact=True).click()
    for _ in range(ply):
        page.get_by_role("button", name="Next", exact=True).click()
    expect(page.locator("#replay-at")).to_have_text(re.compile(rf"^{ply} of "))


@pytest.fixture
def lost(page: Page, server: Any) -> Page:
    """The player's page after the lost game."""
    lose_by_leaving_the_threat(page, server.url)
    return page


def test_the_review_says_a_mistake_short_and_plain_in_the_replay_and_the_share_page(
    lost: Page, browser: Browser, server: Any, axe: Any, shoot: Any
) -> None:
    page = lost
    open_newest_replay(page, server.url)
    replay_at(page, 5)
    expect(page.locator("#replay-verdict")).to_have_text(VERDICT)
    replay_at(page, 2)  # the AI's forced answer: its best, said the same way
    expect(page.locator("#replay-verdict")).to_have_text("Best move: b2 keeps the draw.")
    replay_at(page, 5)
    expect_no_violations(axe, page, "a replay at a mistake, in plain words")
    shoot(page, "review-plain-words")

    link = page.get_by_role("textbox", name="Share link").input_value()
    fresh = browser.new_context()
    shared = fresh.new_page()
    shared.goto(link)
    expect(shared.get_by_role("list", name="Moves").get_by_role("listitem")).to_have_count(6)
    replay_at(shared, 5)
    expect(shared.locator("#replay-verdict")).to_have_text(VERDICT)
    fresh.close()


@pytest.fixture
def practising(lost: Page, server: Any) -> Page:
    """The practice page from the lost game's mistake, the player to move."""
    open_newest_replay(lost, server.url)
    lost.get_by_role("button", name="Retry from your first mistake").click()
    expect(lost).to_have_url(server.url + "/practice")
    expect(board(lost)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    assert settle(lost) == "human" and marks(lost) == BEFORE_SLIP
    return lost


def lesson(page: Page) -> Locator:
    return page.locator("#practice-lesson")


def said(page: Page) -> Locator:
    return page.locator("#practice-feedback")


def losses(page: Page) -> Locator:
    """The match record's "Losses", which practice does not show."""
    return page.get_by_role("term").filter(has_text="Losses")


def test_practice_says_each_move_in_the_reviews_words(practising: Page, axe: Any) -> None:
    page = practising
    expect(lesson(page)).to_have_text(LESSON)
    play(page, SLIP)
    expect(said(page)).to_have_text("That's your move again: c3 loses in 1.")
    page.get_by_role("button", name=re.compile("^(Next game|Try this position again)$")).click()
    expect(board(page)).to_have_attribute("data-status", "playing")  # the new game, not the end
    assert settle(page) == "human" and marks(page) == BEFORE_SLIP
    play(page, 3)
    expect(said(page)).to_have_text("Mistake: a2 loses in 1; a3 keeps the draw.")


def test_practice_keeps_no_record_and_says_so(practising: Page, axe: Any) -> None:
    page = practising
    expect(page.get_by_role("heading", name="Practice game")).to_be_visible()
    expect(page.get_by_text("Nothing at stake: practice keeps no record")).to_be_visible()
    play(page, SLIP)
    expect(board(page)).to_have_attribute("data-status", "ai_won")
    expect(page.locator("#status-text")).to_have_text(re.compile("AI"))
    expect(losses(page)).to_be_hidden()
    expect_no_violations(axe, page, "a practice game lost")


def test_a_move_that_loses_at_once_in_practice_can_be_taken_back(
    practising: Page, axe: Any, shoot: Any
) -> None:
    page = practising
    words = lesson(page).inner_text()
    play(page, SLIP)
    expect(board(page)).to_have_attribute("data-status", "ai_won")
    take_back = page.get_by_role("button", name="Take back")
    expect(take_back).to_be_visible()
    expect_no_violations(axe, page, "a practice game lost at once")
    shoot(page, "practice-lost-at-once")
    take_back.click()
    expect(page.get_by_role("gridcell", name=re.compile(r", [XO]$"))).to_have_count(4)
    assert settle(page) == "human" and marks(page) == BEFORE_SLIP
    expect(said(page)).to_have_text("")
    expect(lesson(page)).to_have_text(words)
    play(page, 6)  # the block: the game goes on
    expect(board(page)).to_have_attribute("data-status", "playing")


def test_after_a_lost_practice_game_the_same_position_comes_again_with_its_lesson(
    practising: Page, axe: Any, shoot: Any
) -> None:
    page = practising
    words = lesson(page).inner_text()
    assert words
    play(page, 3)
    expect(board(page)).to_have_attribute("data-status", "ai_won")
    again = page.get_by_role("button", name="Try this position again")
    expect(again).to_be_visible()
    again.click()
    expect(board(page)).to_have_attribute("data-status", "playing")
    assert settle(page) == "human" and marks(page) == BEFORE_SLIP
    expect(lesson(page)).to_have_text(words)
    expect(said(page)).to_have_text("")
    expect(page.get_by_text(re.compile(r"^Game \d+ · You play X"))).to_be_visible()
    expect_no_violations(axe, page, "a practice position played again")
    shoot(page, "practice-again")
