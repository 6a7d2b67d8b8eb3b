"""The lab on the larger variants in a browser: a 4x4 position opened by its address, its
counts with plain minimax's size marked as an estimate beside the real counts, the tree
and a walk cut short; a Notakto position; the rules chosen on the page; axe on each
state, and screenshots."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

Axe = Callable[[Page], list[dict[str, Any]]]
FOUR = "XO.XOX..X.O....."  # 4x4k4, 9 empty cells: alpha-beta, table, symmetry: 5,773


def tree_ready(page: Page) -> None:
    expect(page.get_by_role("treeitem").first).to_have_attribute("aria-expanded", "true")


def row(page: Page, kind: str) -> Any:
    return page.locator(f'#chart li[data-kind="{kind}"]')


def test_the_lab_opens_a_4x4_position_with_the_estimate_marked_and_real_counts(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    page.goto(server.url + f"/lab?variant=4x4k4&board={FOUR}")
    expect(page.get_by_role("heading", name="See the AI think")).to_be_visible()
    board = page.get_by_role("grid", name="Position to search")
    expect(board.get_by_role("gridcell")).to_have_count(16)
    expect(page.get_by_label("Rules")).to_have_value("4x4k4")
    tree_ready(page)
    expect(page.locator("#to-move")).to_have_text("O to move: a draw, value 0.")

    # Plain minimax: estimated, and said to be; alpha-beta with table and symmetry counted.
    expect(row(page, "minimax")).to_have_attribute("data-estimate", "true", timeout=20_000)
    expect(row(page, "minimax")).to_contain_text(re.compile(r"≈ [\d,]+ nodes \(estimated\)"))
    best = row(page, "alphabeta+table+symmetry")
    expect(best).to_contain_text("5,773 nodes")
    expect(best).not_to_have_attribute("data-estimate", "true")
    expect(row(page, "minimax+table")).to_contain_text("more than 8,192 nodes")
    expect(row(page, "engine")).to_contain_text("the AI\u2019s own search")
    expect(page.locator("#counts-note")).to_contain_text("estimate, from 400 random descents")

    # The tree names 4x4 cells; a node opens on its moves.
    tree = page.get_by_role("tree")
    first = tree.get_by_role("treeitem").nth(1)
    expect(first).to_have_accessible_name(re.compile(r"^after O c1: "))
    first.click()
    expect(first).to_have_attribute("aria-expanded", "true")
    expect(tree.get_by_role("treeitem").nth(2)).to_have_accessible_name(
        re.compile(r"^after O c1, X [a-d][1-4]: ")
    )
    page.get_by_role("checkbox", name="Transposition table").check()
    page.get_by_role("checkbox", name="Symmetry").check()
    step_of = page.locator("#step-of")
    expect(step_of).to_have_text("Step 1 of 19,485.")  # walked whole: 3 x 5,773 - 1 + cuts
    assert axe(page) == []
    shoot(page, "lab-4x4")

    # A cell played by hand: the address follows, with the variant beside the position.
    board.get_by_role("gridcell", name=re.compile("^d4")).click()
    expect(page).to_have_url(re.compile(r"variant=4x4k4"))
    expect(page).to_have_url(re.compile(r"board=XO\.XOX\.\.X\.O\.\.\.\.O"))
    tree_ready(page)

    # The empty 4x4 board: its pruned search is walked to its first steps only.
    page.get_by_role("button", name="Empty board").click()
    tree_ready(page)
    expect(page.locator("#step-of")).to_contain_text("of the first 24,576: this search is too")
    expect(row(page, "minimax")).to_contain_text("(estimated)", timeout=20_000)
    expect(row(page, "engine")).not_to_contain_text("more than")
    # After the counts the connection's share of work is spent for a moment: the page
    # waits, then asks again (a step asked for then was dropped before).
    page.get_by_role("button", name="Last step").click()
    expect(page.locator("#step-of")).to_contain_text(
        "Step 24,576 of the first 24,576", timeout=60_000
    )
    assert axe(page) == []
    shoot(page, "lab-4x4-empty")


def test_the_lab_opens_a_notakto_position_and_other_rules_are_chosen(
    page: Page, server: Any, axe: Axe, shoot: Any
) -> None:
    page.goto(server.url + "/lab?variant=notakto2&board=X...X..../....X....")
    grids = page.locator("#lab-board [role=grid]")
    expect(grids).to_have_count(2)
    tree_ready(page)
    expect(page.locator("#to-move")).to_contain_text("Player 2 to move: Player 2 wins")
    expect(row(page, "alphabeta+table+symmetry")).to_contain_text("415 nodes", timeout=20_000)
    expect(row(page, "minimax")).to_contain_text("(estimated)")
    tree = page.get_by_role("tree")
    expect(tree.get_by_role("treeitem").nth(1)).to_have_accessible_name(
        re.compile(r"^after X 1:[a-c][1-3]: ")
    )
    page.get_by_role("checkbox", name="Transposition table").check()
    page.get_by_role("checkbox", name="Symmetry").check()
    expect(page.locator("#step-of")).to_have_text(re.compile(r"^Step 1 of [\d,]+\.$"))
    page.get_by_role("button", name="Next cut").click()
    expect(page.locator("#step-words")).to_contain_text("Cut at node")
    expect(page.locator("#pruned li").first).to_contain_text(re.compile(r"\d:[a-c][1-3]: pruned"))
    assert axe(page) == []
    shoot(page, "lab-notakto")

    page.get_by_label("Rules").select_option("4x4k3")
    expect(page).to_have_url(re.compile(r"variant=4x4k3"))
    expect(page.locator("#variant-about")).to_contain_text("three in a row wins")
    cells = page.get_by_role("grid", name="Position to search").get_by_role("gridcell")
    expect(cells).to_have_count(16)
    tree_ready(page)
    expect(page.locator("#to-move")).to_contain_text("X to move: X wins")

    # A dead Notakto board is drawn dead, and nothing on it is offered.
    page.goto(server.url + "/lab?variant=notakto2&board=XXX....../X........")
    tree_ready(page)
    expect(page.locator('#lab-board .board[data-dead="true"]')).to_have_count(1)
    expect(page.get_by_role("tree").get_by_role("treeitem").nth(1)).to_have_accessible_name(
        re.compile(r"^after X 2:")
    )
    assert axe(page) == []
