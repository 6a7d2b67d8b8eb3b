"""End-to-end: "Delete everything" in one tab; the player's other tab starts afresh."""

from __future__ import annotations

import re
from typing import Any

from browser import board, marks, open_game, play, settle
from playwright.sync_api import Browser, expect


def test_another_tab_reloads_as_a_new_player_after_delete_everything(
    browser: Browser, server: Any
) -> None:
    context = browser.new_context()
    game, history = context.new_page(), context.new_page()
    open_game(game, server.url)
    play(game, marks(game).index("."))
    game.evaluate("window.beforeTheDeletion = true")
    history.goto(server.url + "/history")
    history.get_by_role("button", name="Delete everything").click()
    history.get_by_role("dialog", name="Delete everything?").get_by_role(
        "button", name="Delete everything"
    ).click()
    expect(history).to_have_url(server.url + "/")

    # The game's tab was told, and reloaded: a fresh match of a new player, playable.
    game.wait_for_function("() => window.beforeTheDeletion === undefined", timeout=10_000)
    expect(board(game)).to_have_attribute("data-version", re.compile(r"^\d+$"))
    settle(game)
    assert marks(game).count("X") + marks(game).count("O") <= 1
    play(game, marks(game).index("."))
    context.close()
