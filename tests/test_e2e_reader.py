"""End-to-end: the screen-reader mode on the AI page. A whole game is played through the
command box alone, every command and bad input answered in the one assertive live region,
read through the accessibility tree; the switch is remembered."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser import (
    board,
    cell_name,
    expect_no_violations,
    marks,
    open_game,
    settle,
    version,
    wait_past,
)
from browser_ai_variants import board as boards
from browser_ai_variants import choose, empty_names
from browser_reader import command, reader_on, said
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

NEWS = re.compile(r"The AI played [a-c][1-3]\. Your turn\.|You win|AI wins|Draw")
BOTH_HP = re.compile(r"You \d+ HP \([+\u2212\u00b1]\d+\), the AI \d+ HP \([+\u2212\u00b1]\d+\)\.")
ROW = re.compile(r"row (\d): ((?:X|O|empty)(?:, (?:X|O|empty))*)")


def read_board(page: Page, box: Locator) -> str:
    """The position as `board` reads it, as nine characters (X, O, .)."""
    command(page, box, "board")
    expect(said(page)).to_have_text(re.compile(r"^row 1: .*row 3: "))
    rows = ROW.findall(said(page).inner_text())
    assert [n for n, _ in rows] == ["1", "2", "3"]
    words = {"X": "X", "O": "O", "empty": "."}
    return "".join(words[w] for _, row in rows for w in row.split(", "))


def test_a_whole_game_against_the_ai_is_played_by_typed_commands(
    page: Page, server: Any, axe: Any
) -> None:
    open_game(page, server.url)
    box = reader_on(page)
    region = said(page)
    expect_no_violations(axe, page, "the screen-reader mode, on")

    command(page, box, "help")
    expect(region).to_contain_text("Type a cell such as b2 to play it.")
    for name in ("board", "last", "status", "why", "hint", "undo", "next", "help"):
        expect(region).to_contain_text(name)
    command(page, box, "status")
    expect(region).to_have_text(
        re.compile(
            r"^(Your turn|AI is thinking)\. Game 1 · You play [XO], "
            r".*You 100 HP, the AI 100 HP\. Difficulty 0\.$"
        )
    )
    command(page, box, "dance")
    expect(region).to_have_text("“dance” is not a command or a cell. Type help for the commands.")
    command(page, box, "e5")
    expect(region).to_have_text("e5 is not on this board: cells a1 to c3.")

    moves = 0
    while settle(page) == "human" and moves < 5:
        seen = read_board(page, box)
        assert seen == marks(page), "board reads what the grid shows"
        command(page, box, "hint")
        expect(region).to_have_text(re.compile(r"(wins|win|keeps|keep|loses|lose|draw)"))
        empty = seen.index(".")
        if "X" in seen or "O" in seen:
            taken = next(i for i, mark in enumerate(seen) if mark != ".")
            command(page, box, cell_name(taken))
            refused = f"{cell_name(taken)} is taken by {seen[taken]}. Nothing was played."
            expect(region).to_have_text(refused)
            assert marks(page) == seen, "a taken cell changes nothing"
        seen_version = version(page)
        command(page, box, cell_name(empty))
        moves += 1
        wait_past(page, seen_version)
        settle(page)
        expect(region).to_have_text(NEWS)
        if board(page).get_attribute("data-status") != "playing":
            # The end, its result and both HP with their change, said at once.
            expect(region).to_contain_text(BOTH_HP)
        command(page, box, "last")
        expect(region).to_have_text(re.compile(r"^(The AI|You) played [a-c][1-3]\.$"))
        if board(page).get_attribute("data-status") == "playing":
            command(page, box, "why")
            expect(region).to_have_text(
                re.compile(r"^Difficulty 0: the AI moved at random, [a-c]\d")
            )
            command(page, box, "undo")
            expect(region).to_contain_text("take")  # no take back in an HP match, in words
    status = board(page).get_attribute("data-status")
    assert status in ("human_won", "ai_won", "draw"), "five moves of the player end a game"
    command(page, box, "a1")
    expect(region).to_contain_text("a1")
    command(page, box, "hint")
    expect(region).to_have_text("No hint now: it is not your turn.")
    expect_no_violations(axe, page, "the screen-reader mode, a game's end")

    command(page, box, "next")
    expect(region).to_have_text(re.compile(r"^Game 2 · You play [XO], "))
    page.reload()
    expect(page.get_by_role("switch", name="Screen-reader mode")).to_be_checked()
    expect(page.get_by_role("textbox", name="Command")).to_be_visible()


def test_the_mode_is_off_until_turned_on_and_says_nothing_then(page: Page, server: Any) -> None:
    open_game(page, server.url)
    expect(page.get_by_role("switch", name="Screen-reader mode")).not_to_be_checked()
    expect(page.get_by_role("textbox", name="Command")).to_be_hidden()
    # The AI may have opened (on b2, say): the first empty cell is played.
    empty = page.get_by_role("gridcell", name=re.compile(", empty$"))
    before = empty.count()
    empty.first.click()
    expect(empty).not_to_have_count(before)
    settle(page)
    expect(said(page)).to_have_text("")


def test_notakto_by_typed_commands_reads_each_board_and_says_a_dead_one(
    page: Page, server: Any, axe: Any
) -> None:
    page.goto(server.url)
    settle(page)
    choose(page, "notakto2", "Impossible")
    box = reader_on(page)
    region = said(page)
    command(page, box, "board")
    expect(region).to_have_text(
        "Board 1: row 1: empty, empty, empty; row 2: empty, empty, empty; "
        "row 3: empty, empty, empty. Board 2: row 1: empty, empty, empty; "
        "row 2: empty, empty, empty; row 3: empty, empty, empty."
    )
    command(page, box, "b2")
    expect(region).to_have_text("b2 is not on this board: cells 1:a1 to 2:c3.")  # say which board
    command(page, box, "3:a1")
    expect(region).to_have_text("3:a1 is not on this board: cells 1:a1 to 2:c3.")
    heard: list[str] = []
    # Board 1 filled from its first cell on: three in a row comes, by either side.
    for _ in range(9):
        if boards(page).get_attribute("data-turn") != "human":
            break
        dead = page.locator('[data-dead="true"]').count()
        seen = boards(page).get_attribute("data-version") or ""
        command(page, box, empty_names(page)[0])
        expect(boards(page)).not_to_have_attribute("data-version", seen)
        expect(boards(page)).to_have_attribute("data-turn", re.compile(r"^(human|none)$"))
        expect(region).to_have_text(re.compile(r"The AI played|killed|wins|You win|AI wins"))
        heard.append(region.inner_text())
        if page.locator('[data-dead="true"]').count() > dead and dead == 0:
            command(page, box, "1:c3")
            expect(region).to_have_text("1:c3 is on board 1, which is dead. Nothing was played.")
            command(page, box, "board")
            expect(region).to_contain_text("Board 1, dead: ")
            expect_no_violations(axe, page, "the screen-reader mode on notakto, a dead board")
    assert any("Board 1 is dead." in words for words in heard), heard
    assert boards(page).get_attribute("data-status") in ("human_won", "ai_won")
