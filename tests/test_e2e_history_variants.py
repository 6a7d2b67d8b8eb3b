"""End-to-end: History beyond 3x3. A friend's game on 4x4 reaches both players' History,
replays on its own board, and its review names the better cell; a Notakto game
replays on two boards with the dead ones; a shared game against the AI on 4x4 names
the better cell too."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from browser import expect_no_violations
from browser_history import open_newest_replay
from browser_rooms import invite_link, status
from browser_variants import VERSION, boards, choose_and_open, in_step, mark_of, play
from playwright.sync_api import BrowserContext, Page, expect
from support.variant_games import SLIP, played, slipped, tampered_roll

from webapp.game.history import finished_game, reviewed
from webapp.game.verification import game_record
from webapp.server.store.sqlite.history import SQLiteHistory

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

NewContext = Callable[..., BrowserContext]


def friends_game(new_context: NewContext, base: str, variant: str, moves: list[str]) -> Page:
    """Two players play ``moves`` in an online room on ``variant``; the second player's
    page, once the game is over."""
    host = new_context().new_page()
    choose_and_open(host, base, variant, "Play a friend")
    guest = new_context().new_page()
    guest.goto(invite_link(host).input_value())
    expect(boards(guest)).to_have_attribute("data-version", VERSION)
    in_step(host, guest)
    first, second = (host, guest) if mark_of(host) in ("X", "first") else (guest, host)
    for n, name in enumerate(moves):
        play(first if n % 2 == 0 else second, name)
        in_step(first, second)
    expect(status(second)).to_have_text(re.compile("^(Your friend wins|You win!)$"))
    return second


def replay_at(page: Page, ply: int) -> None:
    """Step the open replay to ``ply`` from the empty board, by its buttons."""
    page.get_by_role("button", name="First", exact=True).click()
    for _ in range(ply):
        page.get_by_role("button", name="Next", exact=True).click()
    expect(page.locator("#replay-at")).to_have_text(re.compile(rf"^{ply} of "))


def test_a_4x4_game_with_a_friend_is_in_history_and_its_review_names_the_better_cell(
    new_context: NewContext, server: Any, axe: Any, shoot: Any
) -> None:
    second = friends_game(new_context, server.url, "4x4k4", SLIP)
    open_newest_replay(second, server.url)
    row = second.locator("#games-rows tr").first
    expect(row).to_contain_text("With a friend · 4x4k4")
    expect(second.locator("#replay-title")).to_contain_text("With a friend · 4x4k4")
    grid = second.get_by_role("grid", name="Replay board")
    expect(grid.get_by_role("gridcell")).to_have_count(16)
    moves = second.get_by_role("list", name="Moves").get_by_role("listitem")
    expect(moves).to_have_count(7)
    expect(moves.nth(5)).to_have_text("O c2: mistake (best d1)")
    expect(second.locator("#replay-summary")).to_have_text("1 mistake")

    replay_at(second, 6)
    verdict = second.locator("#replay-verdict")
    expect(verdict).to_have_text(re.compile(r"^Mistake: c2 loses in \d+; d1 keeps the draw\.$"))
    expect(grid.get_by_role("gridcell", name="d1, empty, the better move")).to_have_count(1)
    expect(second.locator('#replay-board [data-best="true"]')).to_have_count(1)
    expect(second.get_by_role("button", name="Retry from your first mistake")).to_be_hidden()
    for scheme in ("light", "dark"):
        second.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, second, f"a 4x4 replay marking the better move ({scheme})")
    shoot(second, "history-replay-4x4-better-move")
    second.keyboard.press("End")  # the row of four, struck through
    expect(second.locator("#replay-board .strike")).to_have_class(re.compile("is-on"))
    expect(grid.get_by_role("gridcell", name=re.compile(r", X$"))).to_have_count(4)


def test_a_notakto_game_replays_on_two_boards_with_the_dead_ones(
    new_context: NewContext, server: Any, axe: Any, shoot: Any
) -> None:
    # Board 1 dies on the fifth move, board 2 (the last) on the sixth: its killer loses.
    moves = ["1:a1", "2:a1", "1:b1", "2:b1", "1:c1", "2:c1"]
    second = friends_game(new_context, server.url, "notakto2", moves)
    second.goto(server.url + "/history")
    row = second.locator("#games-rows tr").first
    expect(row).to_contain_text("With a friend · notakto2")
    row.get_by_role("button", name=re.compile("^Replay the game of")).click()
    group = second.get_by_role("group", name="Replay boards")
    expect(group.get_by_role("grid")).to_have_count(2)
    expect(group.get_by_role("grid", name=re.compile(r"^Board \d is dead$"))).to_have_count(2)
    replay_at(second, 5)
    expect(group.get_by_role("grid", name="Board 1 is dead")).to_be_visible()
    expect(group.get_by_role("grid", name="Board 2")).to_be_visible()
    # Both place X: each move is said by who moved first or second, not by a mark.
    expect(second.locator("#replay-move")).to_have_text(re.compile(r"\(first\) played 1:c1$"))
    listed = second.get_by_role("list", name="Moves").get_by_role("listitem")
    expect(listed.nth(5)).to_have_text(re.compile("^second 2:c1: "))
    for scheme in ("light", "dark"):
        second.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, second, f"a Notakto replay with a dead board ({scheme})")
    shoot(second, "history-replay-notakto2")


@pytest.mark.fresh_server  # reads the server's data dir
def test_a_shared_4x4_game_against_the_ai_names_the_better_cell(
    page: Page, server: Any, axe: Any, shoot: Any
) -> None:
    game_id = "v4x4shared" + "0" * 12
    entry = finished_game(slipped("4x4k3"), game_id=game_id, ended=2e9)
    store = SQLiteHistory(server.data_dir, per_player=50, idle_seconds=3600, budget=100, floor=1)
    assert store.add("someone", f"game:{game_id}", entry)
    store.close()
    review = reviewed(entry)
    ply = next(
        index
        for index, move in enumerate(review["moves"], 1)
        if move["by"] == "human" and move["verdict"] in ("mistake", "blunder")
    )
    better = review["moves"][ply - 1]["best_cells"]

    page.goto(f"{server.url}/g/{game_id}")
    expect(page.locator("#replay-title")).to_contain_text("Impossible · 4x4k3")
    grid = page.get_by_role("grid", name="Replay board")
    expect(grid.get_by_role("gridcell")).to_have_count(16)
    replay_at(page, ply)
    verdict = page.locator("#replay-verdict")
    expect(verdict).to_have_text(re.compile(r"^(Mistake|Blunder): [a-d][1-4] "))
    named = re.search(r"; ((?:[a-d][1-4](?:, | or )?)+) ", verdict.inner_text())
    assert named and sorted(re.findall(r"[a-d][1-4]", named.group(1))) == sorted(better)
    expect(page.locator('#replay-board [data-best="true"]')).to_have_count(len(better))
    expect(page.get_by_role("link", name="Why this move?")).to_be_hidden()
    # The page checks the 4x4 record on its own board: signed, and its dice add up.
    expect(page.locator("#replay-check")).to_have_attribute("data-result", "ok")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_no_violations(axe, page, f"a shared 4x4 game at the player's mistake ({scheme})")
    shoot(page, "shared-4x4-better-move")


VERIFY = """async record => {
  const { verifyRecord } = await import("/static/js/fairness.js");
  return verifyRecord(record);
}"""


def test_the_page_checks_a_record_of_every_variant(page: Page, server: Any) -> None:
    page.goto(server.url + "/")
    for variant in ("misere", "4x4k3", "4x4k4", "notakto1", "notakto2", "notakto3"):
        record = game_record(played(variant, "adaptive", 5, start_ai_hp=40))
        assert page.evaluate(VERIFY, record) == {"ok": True, "signature": "unsigned", "key": None}
        changed = copy.deepcopy(record)
        tampered_roll(changed)
        found = page.evaluate(VERIFY, changed)
        assert not found["ok"] and ": the dice give roll " in found["reason"], (variant, found)
    unknown = game_record(played("4x4k4", "adaptive", 5, start_ai_hp=40))
    unknown["rules"]["variant"] = "tictactoe9"
    assert not page.evaluate(VERIFY, unknown)["ok"]
    # The same record on classic rules: its cells are off the 3x3 board.
    classic = game_record(played("4x4k4", "adaptive", 5, start_ai_hp=40))
    del classic["rules"]["variant"]
    assert not page.evaluate(VERIFY, classic)["ok"]
