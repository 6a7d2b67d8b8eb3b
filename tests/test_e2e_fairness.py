"""End-to-end: the dice of every game are committed to, revealed and checked in the page."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import ODDS, expect_accessible, open_game, open_rules, play_game, start_match
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

HEX = re.compile(r"^[0-9a-f]{64}$")
CHECKED = "Dice checked ✓"
WAITING = "Dice fixed before the game: checked here when it ends"
SEED = re.compile(r"^[a-z0-9]{16}$")
VERIFY = """async record => {
  const { verifyRecord } = await import("/static/js/fairness.js");
  return verifyRecord(record);
}"""


def dice(page: Page) -> Locator:
    """The Dice panel under the board."""
    return page.get_by_role("region", name="Dice")


def downloaded_record(page: Page) -> dict[str, Any]:
    """The game's signed record, as the page's download link offers it."""
    link = dice(page).get_by_role("link", name="Download game record")
    with page.expect_download() as download:
        link.click()
    return dict(json.loads(Path(download.value.path()).read_text()))


def payload(signed: dict[str, Any]) -> dict[str, Any]:
    """The record inside a signed record."""
    return dict(json.loads(base64.b64decode(signed["payload"])))


def with_payload(signed: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """``signed`` holding ``record`` instead, its signature kept."""
    data = json.dumps(record, separators=(",", ":")).encode()
    return {**signed, "payload": base64.b64encode(data).decode()}


def open_details(page: Page) -> Locator:
    """Open the dice box's details (the commitment, the seeds); return the box."""
    panel = dice(page)
    panel.get_by_text("How the dice are checked").click()
    expect(panel.locator("#dice-commitment-full")).to_be_visible()
    return panel


def verified(page: Page, words: str = CHECKED) -> Locator:
    """The dice check's verdict once it says the record is verified."""
    return dice(page).get_by_role("status").filter(has_text=re.compile(f"^{words}$"))


def test_a_whole_game_verifies_its_dice(page: Page, server: Any, tmp_path: Path) -> None:
    open_game(page, server.url)
    seed = open_rules(page).get_by_role("textbox", name="Your dice seed").input_value()
    assert SEED.match(seed), seed
    start_match(page, "Adaptive")

    panel = dice(page)
    # Plain words first: no hash, no seed until asked for.
    expect(panel.get_by_role("status")).to_have_text(WAITING)
    assert not any(text.is_visible() for text in panel.get_by_text(HEX).all())
    expect(panel.locator("#dice-commitment-full")).to_be_hidden()
    open_details(page)
    commitment = panel.locator("#dice-commitment-full")
    shown = commitment.inner_text()
    assert HEX.match(shown), shown
    # The player's seed joined to a value drawn for this game alone.
    seeded = re.compile(rf"^{seed}-[a-z0-9]{{16}}$")
    expect(panel.locator("#dice-client-seed")).to_have_text(seeded)
    expect(panel.get_by_text("Not seeded by you", exact=False)).to_be_hidden()
    expect(panel.get_by_role("link", name="Download game record")).to_be_hidden()
    expect(panel.locator("#dice-verify")).to_be_hidden()

    play_game(page)
    expect(verified(page)).to_be_visible()
    expect(commitment).to_have_text(shown)  # the commitment did not change during the game
    # The details: both commitments and the server seed.
    expect(panel.get_by_text(HEX)).to_have_count(3)
    promised = panel.locator("#dice-next-commitment").inner_text()

    link = panel.get_by_role("link", name="Download game record")
    expect(link).to_have_attribute("download", "tictactoe-game-1.json")
    signed = downloaded_record(page)
    assert signed["kind"] == "tictactoe-hp-signed-game"
    # Beside the link, the command that checks the record offline, with this site's keys;
    # run as shown, it passes.
    hint = panel.locator("#dice-verify")
    hint.get_by_text("Check it offline").click()
    expect(hint).to_contain_text(f"--keys {server.url}/.well-known/tictactoe-keys.json")
    command = hint.locator("code").inner_text().split()
    assert command[:3] == ["tictactoe", "verify", "GAME.json"], command
    game_file = tmp_path / "GAME.json"
    game_file.write_text(json.dumps(signed))
    verify = [str(Path(sys.executable).with_name("tictactoe")), *command[1:]]
    checked = subprocess.run(verify, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    record = payload(signed)
    assert record["game"] == 1 and record["dice"]["client_seed"].startswith(f"{seed}-")
    assert record["dice"]["commitment"] == shown
    assert record["dice"]["next_commitment"] == promised

    # The next game is played on the seed committed to during this one.
    page.get_by_role("button", name="Next game").click()
    expect(commitment).to_have_text(promised)


def test_next_game_sends_the_edited_seed(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Easy")
    play_game(page)
    field = open_rules(page).get_by_role("textbox", name="Your dice seed")
    field.fill("my-own_seed-42")
    page.keyboard.press("Escape")  # kept without starting a match
    panel = open_details(page)
    expect(panel.get_by_text("(from your next game: my-own_seed-42-…)")).to_be_visible()
    page.get_by_role("button", name="Next game").click()
    joined = re.compile(r"^my-own_seed-42-[a-z0-9]{16}$")
    expect(panel.locator("#dice-client-seed")).to_have_text(joined)

    page.reload()  # the seed is kept by the browser
    field = open_rules(page).get_by_role("textbox", name="Your dice seed")
    expect(field).to_have_value("my-own_seed-42")
    page.get_by_role("button", name="New seed").click()
    expect(field).to_have_value(SEED)


def test_the_first_game_shown_unasked_says_it_was_not_seeded_by_the_player(
    page: Page, server: Any
) -> None:
    open_game(page, server.url)
    panel = dice(page)
    expect(panel.get_by_role("status")).to_have_text(WAITING)
    expect(panel.get_by_text("server (", exact=False)).to_be_hidden()  # for the curious only
    open_details(page)
    note = panel.get_by_text(re.compile("^Not seeded by you"))
    expect(note).to_be_visible()
    server_seeded = re.compile(r"^server \(from your next game: [a-z0-9]{16}-…\)$")
    expect(panel.get_by_role("definition").filter(has_text=server_seeded)).to_be_visible()
    start_match(page, "Easy")
    expect(note).to_be_hidden()


def test_verify_record_names_a_changed_roll(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive", ai_hp=50)
    play_game(page)
    expect(verified(page)).to_be_visible()
    signed = downloaded_record(page)
    assert page.evaluate(VERIFY, signed) == {
        "ok": True,
        "signature": "verified",
        "key": signed["key"],
    }
    record = payload(signed)  # a bare record: its dice are checked all the same
    assert page.evaluate(VERIFY, record) == {"ok": True, "signature": "unsigned", "key": None}

    moves = [move for move in record["moves"] if move["by"] == "ai"]
    assert moves, "the AI moved at least once"
    second = len(moves) > 1
    move = moves[1] if second else moves[0]
    cell = f"{'abc'[move['cell'] % 3]}{move['cell'] // 3 + 1}"
    move["roll"] = (move["roll"] + 1) % 100
    answer = page.evaluate(VERIFY, record)
    assert answer["ok"] is False
    index = 2 if second else 1
    expected = (
        rf"^AI move {index} at {cell}: the dice give roll \d+, the record says {move['roll']}$"
    )
    assert re.match(expected, answer["reason"]), answer

    record["dice"]["server_seed"] = "0" * 64
    answer = page.evaluate(VERIFY, record)
    assert answer == {"ok": False, "reason": "the server seed does not match the commitment"}


def test_the_page_refuses_a_changed_cut_or_made_up_record(page: Page, server: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Hard")
    play_game(page)
    expect(verified(page)).to_be_visible()
    signed = downloaded_record(page)
    record = payload(signed)

    changed = {**record, "mode": "medium"}
    answer = page.evaluate(VERIFY, with_payload(signed, changed))
    reason = f"the signature does not match the record's bytes (key {signed['key']})"
    assert answer == {"ok": False, "reason": reason}

    cut = {**record, "moves": record["moves"][:2], "status": "playing"}
    answer = page.evaluate(VERIFY, with_payload(signed, cut))
    assert answer["ok"] is False and "signature does not match" in answer["reason"]
    answer = page.evaluate(VERIFY, cut)  # without its signature: incomplete all the same
    assert answer == {
        "ok": False,
        "reason": 'the game is not over (status "playing"): moves are missing',
    }

    made_up = {**signed, "key": "0123456789abcdef"}  # a key this server never had
    answer = page.evaluate(VERIFY, made_up)
    reason = "signed by key 0123456789abcdef, which is not one of this server's keys"
    assert answer == {"ok": False, "reason": reason}


NO_ED25519 = """(() => {
  const importKey = crypto.subtle.importKey.bind(crypto.subtle);
  crypto.subtle.importKey = (format, data, algorithm, ...rest) =>
    (algorithm?.name ?? algorithm) === "Ed25519"
      ? Promise.reject(new DOMException("no Ed25519 here", "NotSupportedError"))
      : importKey(format, data, algorithm, ...rest);
})();"""


def test_a_browser_without_ed25519_says_the_signature_is_not_checked(
    page: Page, server: Any
) -> None:
    page.add_init_script(NO_ED25519)
    open_game(page, server.url)
    start_match(page, "Easy")
    play_game(page)
    expect(
        verified(page, re.escape("Dice checked ✓ (this browser cannot check the signature)"))
    ).to_be_visible()


def test_game_over_is_accessible(page: Page, server: Any, axe: Any) -> None:
    open_game(page, server.url)
    start_match(page, "Adaptive")
    play_game(page)
    expect(verified(page)).to_be_visible()
    open_details(page)
    dice(page).get_by_text("Check it offline").click()  # the command to check it, shown
    expect(dice(page).locator("#dice-verify code")).to_be_visible()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        expect_accessible(axe, page)


def test_screenshots_of_rules_and_dice(
    page: Page, server: Any, shoot: Callable[[Page, str], None]
) -> None:
    open_game(page, server.url)
    open_rules(page)
    page.get_by_role("combobox", name="Preset").select_option(label="Gentle")
    expect(page.get_by_text(ODDS)).to_be_visible()
    shoot(page, "rules-odds")

    page.get_by_role("spinbutton", name="Your starting HP").fill("0")
    expect(page.get_by_role("spinbutton", name="Your starting HP")).to_have_attribute(
        "aria-invalid", "true"
    )
    shoot(page, "rules-error")

    start_match(page, "Adaptive", human_hp=60, ai_hp=30)
    page.get_by_role("button", name="Show my chances").click()
    play_game(page)
    expect(verified(page)).to_be_visible()
    shoot(page, "dice-checked")
    open_details(page)
    shoot(page, "dice-verified")
