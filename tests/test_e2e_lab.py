"""The lab in a browser: opened from a replay and from the AI's latest move, its tree by
keyboard, a pruned search stepped through to its first cut, the fatalist's two choices;
axe on each state, and screenshots."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from browser import cell_name, marks, open_game, play_game, start_match
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

Axe = Callable[[Page], list[dict[str, Any]]]
FATALIST = "XO..X...."


def no_violations(axe: Axe, page: Page, moment: str) -> None:
    found = axe(page)
    assert found == [], (moment, found)


def tree_ready(page: Page) -> None:
    expect(page.get_by_role("treeitem").first).to_have_attribute("aria-expanded", "true")


def test_from_a_replay_the_tree_by_keyboard_and_a_cut_in_words(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    open_game(page, server.url)
    play_game(page)
    page.goto(server.url + "/history")
    rows = page.locator("#games-rows tr")
    rows.first.get_by_role("button", name=re.compile("^Replay the game of")).click()
    expect(page.get_by_role("grid", name="Replay board")).to_be_visible()
    page.get_by_role("button", name="First", exact=True).click()
    # Of the first two moves one is the AI's: "Why this move?" is offered on that one.
    link = page.get_by_role("link", name="Why this move?")
    page.get_by_role("button", name="Next", exact=True).click()  # move 1
    if not link.is_visible():
        page.get_by_role("button", name="Next", exact=True).click()  # move 2
    expect(link).to_be_visible()
    asked = parse_qs(urlsplit(link.get_attribute("href") or "").query)
    ply = int(page.locator("#replay-at").inner_text().split()[0])
    assert asked["board"][0].count(".") == 10 - ply, (ply, asked)  # where it was chosen
    link.click()

    expect(page.get_by_role("heading", name="See the AI think")).to_be_visible()
    tree_ready(page)
    played = cell_name(int(asked["played"][0]))
    expect(page.locator("#choice-played")).to_contain_text(f"the AI played {played}, ")
    tree = page.get_by_role("tree")
    root = tree.get_by_role("treeitem").first
    expect(root).to_have_accessible_name(re.compile("^the position itself: "))
    root.focus()
    # Three levels down by keyboard: Down to the first move, Right opens, Right enters.
    page.keyboard.press("ArrowDown")
    for _ in range(2):
        page.keyboard.press("ArrowRight")  # open: its moves are fetched
        expect(page.locator(":focus")).to_have_attribute("aria-expanded", "true")
        page.keyboard.press("ArrowRight")  # into its first move
    focused = page.locator(":focus")
    expect(focused).to_have_accessible_name(
        re.compile(r"^after [XO] [abc][123], [XO] [abc][123], [XO] [abc][123]: ")
    )
    expect(focused).to_have_accessible_name(re.compile(r"(a draw|wins), value -?\d+"))
    page.keyboard.press("ArrowLeft")  # back to its parent
    expect(page.locator(":focus")).to_have_accessible_name(
        re.compile(r"^after [XO] [abc][123], [XO] [abc][123]: ")
    )
    expect(tree.locator(".is-chosen").first).to_be_visible()
    no_violations(axe, page, "the tree three levels open")

    # The empty board's pruned search, step by step from its start to its first cut.
    page.get_by_role("button", name="Empty board").click()
    tree_ready(page)
    expect(page.locator("#step-of")).to_contain_text("of 70,289")
    page.get_by_role("slider", name="Step").focus()
    words = page.locator("#step-words")
    for _ in range(60):
        if "Cut at" in (words.inner_text() or ""):
            break
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(20)
    expect(words).to_contain_text("Cut at node")
    expect(words).to_contain_text(re.compile(r"needs? no search"))
    expect(page.get_by_role("list", name="Pruned moves").get_by_role("listitem")).not_to_have_count(
        0
    )
    expect(page.locator("#beta")).not_to_have_text("+∞")
    no_violations(axe, page, "a cut and its reason")
    expect(page.locator("#counts-note")).to_contain_text("Measured once on")
    expect(page.locator("#chart li")).to_have_count(8)
    expect(page.locator("#chart")).to_contain_text("549,946 nodes")
    shoot(page, "lab-first-cut")


def test_the_fatalist_position_shows_both_choices(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    page.goto(server.url + "/lab")
    tree_ready(page)
    page.get_by_role("button", name="A lost position").click()
    choices = page.locator("#choices")
    expect(choices).to_have_attribute("data-differ", "true")
    expect(page.locator("#choice-result")).to_contain_text("it plays c1")
    expect(page.locator("#choice-result")).to_contain_text("6 moves tie, and the first is taken")
    expect(page.locator("#choice-depth")).to_contain_text("it plays c3")
    expect(page.locator("#choice-note")).to_contain_text("block")
    tree = page.get_by_role("tree")
    chosen = tree.locator(".is-chosen")
    expect(chosen).to_have_count(1)
    expect(chosen).to_have_accessible_name(re.compile(r"^after O c3: X wins, value -6, the chosen"))
    page.get_by_label("Scoring").select_option("result")
    expect(tree.locator(".is-chosen")).to_have_accessible_name(
        re.compile(r"^after O c1: X wins, value -1, the chosen")
    )
    expect(page).to_have_url(re.compile(r"board=XO\.\.X\.\.\.\.$"))
    no_violations(axe, page, "the fatalist")
    shoot(page, "lab-fatalist")


def test_why_this_move_opens_the_lab_where_the_ai_chose(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Impossible", first="The AI")
    why = page.get_by_role("link", name="Why this move?")
    expect(why).to_be_visible()
    asked = parse_qs(urlsplit(why.get_attribute("href") or "").query)
    played, before = int(asked["played"][0]), asked["board"][0]
    assert asked["how"] == ["perfect"] and before == "." * 9
    assert marks(page)[played] != "."
    why.click()
    expect(page.get_by_role("heading", name="See the AI think")).to_be_visible()
    assert page.locator("#lab").get_attribute("data-board") == before
    tree_ready(page)
    # Beside the search's choice, the move the game's AI made there and how it chose it.
    said = page.locator("#choice-played")
    expect(said).to_have_text(
        re.compile(
            rf"^In the game the AI played {cell_name(played)}, its best move \(a draw, value 0\): "
            r"(the move this search plays too|worth as much as this search"
            "\N{RIGHT SINGLE QUOTATION MARK}"
            r"s a1)\.$"
        )
    )
    # It goes with another position, and comes back with the game's.
    position = page.get_by_role("grid", name="Position to search")
    position.get_by_role("gridcell", name=re.compile(r"^a1, ")).click()
    expect(said).to_be_hidden()
    page.get_by_role("button", name="Undo a move").click()
    expect(said).to_be_visible()
    expect(page).to_have_url(re.compile(rf"played={played}&how=perfect$"))


def test_a_random_move_in_the_lab_is_set_against_the_search(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    # O played c1 at random in a lost position, where fighting on means blocking at c3.
    page.goto(f"{server.url}/lab?board={FATALIST}&played=2&how=random")
    tree_ready(page)
    expect(page.locator("#choice-played")).to_have_text(
        "In the game the AI played c1, a random move (X wins, value -8): "
        "this search plays c3 (X wins, value -6)."
    )
    no_violations(axe, page, "the game's move")
    shoot(page, "lab-played")
    # A move the game could not have made there is not shown.
    page.goto(f"{server.url}/lab?board={FATALIST}&played=1&how=random")
    tree_ready(page)
    expect(page.locator("#choice-played")).to_be_hidden()
