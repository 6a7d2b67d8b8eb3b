"""End-to-end: a match tuned to the chance of winning asked for, previewed with its rules
and exact odds before it starts, its promise on the Match card; and History's skill line
and calibration chart after several such matches; and "Show my chances", the player's own
first, in a real browser against the real server."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser import (
    Axe,
    board,
    expect_no_violations,
    open_game,
    open_rules,
    press_start,
    screenshot,
    start_match,
)
from playwright.sync_api import Locator, Page, expect
from support.skill_play import played_games
from support.stocked import player_of
from support.testing import HARD_RULES, Player, session_cookie

from webapp.game.own_chance import own_chance
from webapp.game.rules import Rules
from webapp.game.skill import MIN_MOVES, skill_from
from webapp.game.strategies import skill_strategy
from webapp.server.app import create_app

pytestmark = pytest.mark.shared_server  # one server process, each test a new player

DASH = "\N{EN DASH}"  # between the ends of a range, as the pages write it
CHART = "Chance promised against share won, by tenth of the chance promised"

# The sizes the pages are looked at: a phone and a laptop.
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


# What sticks out past the viewport's right edge, to name it when a page scrolls sideways.
WIDER = """(width) => [...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > width)
  .slice(0, 5).map((el) => el.tagName + '#' + el.id + '.' + el.className)"""


def chance(p: float) -> str:
    """A chance as the pages write a promise (words.js, chanceWords)."""
    if p in (0, 1):
        return f"{p * 100:g}%"
    if p < 0.0005:
        return "under 0.1%"
    if p >= 0.9995:
        return "over 99.9%"
    return f"{p * 100:.1f}".removesuffix(".0") + "%"


def skill_number(s: float) -> str:
    """A skill as the pages write it."""
    return f"{s:.2f}"


def skills_named(preview: Locator) -> list[str]:
    """The skills a target's preview names as "skill 0.50", in order."""
    return re.findall(r"skill (\d\.\d\d)", preview.inner_text())


def acks(frames: list[str], key: str) -> list[dict[str, Any]]:
    """The Socket.IO acknowledgements among ``frames`` that carry ``key``, oldest first."""
    found = []
    for frame in frames:
        match = re.match(r"^43\d+(\[.*\])$", frame, re.DOTALL)
        if match:
            (answer,) = json.loads(match.group(1))
            if isinstance(answer, dict) and key in answer:
                found.append(answer)
    return found


def look(
    page: Page, axe: Axe, artifacts: Path, moment: str, part: Locator, show: Locator | None = None
) -> None:
    """axe finds nothing, light and dark; screenshots at both sizes, none scrolling
    sideways: the whole page, and ``part`` alone (the part this test is about), with
    ``show`` scrolled into view."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        page.wait_for_timeout(100)
        expect_no_violations(axe, page, f"{moment}, {scheme}")
        for device, size in SIZES.items():
            page.set_viewport_size(size)
            if show is not None:
                show.scroll_into_view_if_needed()
            page.wait_for_timeout(100)
            wide = page.evaluate("document.documentElement.scrollWidth")
            wider = page.evaluate(WIDER, size["width"])
            assert wide <= size["width"], f"{moment} {device}: {wide} px wide: {wider}"
            path = artifacts / f"odds-{moment}-{device}-{scheme}.png"
            screenshot(page, path, full_page=True)
            screenshot(part, path.with_suffix(".part.png"))


def ask_for(page: Page, percent: int) -> Any:
    """Ask the rules dialog for a match won ``percent``% of the time."""
    dialog = open_rules(page)
    dialog.get_by_role("radio", name="The chance of winning I ask for").check()
    dialog.get_by_role("spinbutton", name=re.compile("^I want to win about")).fill(str(percent))
    return dialog


def test_a_target_shows_its_rules_and_odds_before_the_match_starts(
    page: Page, server: Any, axe: Axe, artifacts: Path
) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    open_game(page, server.url)
    dialog = ask_for(page, 35)
    preview = dialog.locator("#target-preview")
    expect(preview).to_have_attribute("data-state", "shown")
    expect(dialog.get_by_role("spinbutton", name="Preset")).to_have_count(0)
    expect(dialog.get_by_role("combobox", name="Preset")).to_be_hidden()
    tuned = acks(frames, "tuned")[-1]["tuned"]
    assert tuned["target"] == 0.35 and tuned["reachable"]
    # The preview says what the ack says: the chance, the rules changed, the skill used.
    changed = tuned["changed"]
    skill = tuned["skill"]
    assert not skill["measured"]
    expect(preview.locator("#target-chance")).to_have_text(
        f"For the default skill {skill_number(skill['skill'])}: a {chance(tuned['chance'])} "
        f"chance of winning this match, in about {round(tuned['odds']['expected_games'])} games."
    )
    rules = preview.locator("#target-rules")
    loss, draw = changed["ai_win_human_damage"], changed["draw_human_damage"]
    expect(rules).to_contain_text(f"a loss costs you {loss} HP (classic 34)")
    expect(rules).to_contain_text(f"a draw costs you {draw} HP (classic 10)")
    expect(preview.locator("#target-skill")).to_have_text(
        f"Your own skill is used once your games hold {skill['min_moves']} moves "
        "where a choice mattered (0 so far)."
    )
    # One skill named, the one used, and why it is the default, once.
    assert skills_named(preview) == [skill_number(skill["skill"])]
    expect(preview).not_to_contain_text("your skill")
    expect(dialog.get_by_text("Adaptive · Win about 35% · rules tuned for you")).to_be_visible()
    look(page, axe, artifacts, "preview", dialog, preview)

    # Outside the dialog's bounds: refused by its field, and nothing is asked.
    field = dialog.get_by_role("spinbutton", name=re.compile("^I want to win about"))
    field.fill("100")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(dialog.locator("#target-error")).to_have_text("Enter a whole number from 1 to 99")
    expect(preview).to_have_attribute("data-state", "refused")
    field.fill("35")
    expect(preview).to_have_attribute("data-state", "shown")
    expect(field).not_to_have_attribute("aria-invalid", "true")

    before = len(acks(frames, "tuned"))
    press_start(page)
    expect(board(page)).to_have_attribute("data-mode", "adaptive")
    started = acks(frames, "tuned")[before:]
    assert started and all(a["tuned"]["chance"] == tuned["chance"] for a in started)
    promise = page.locator("#match-promise")
    expect(promise).to_have_text(
        f"Promised: a {chance(tuned['chance'])} chance to win this match (you asked for about 35%)."
    )
    expect(page.locator("#ai-hp")).to_have_text("100")
    look(page, axe, artifacts, "match-card", page.get_by_role("region", name="Match", exact=True))


def play_out(player: Player, rng: random.Random) -> None:
    """Play the player's match to its end with random moves."""
    while True:
        state = player.wait_for(
            lambda s: s["turn"] == "human" or s["status"] != "playing" or s["match"]["over"]
        )
        if state["match"]["over"]:
            return
        if state["status"] != "playing":
            reply = player.call("next_game", {})
            assert reply["ok"], reply
            player.wait_for(lambda s, v=state["version"]: s["version"] > v)
            continue
        empty = [i for i, mark in enumerate(state["board"]) if mark == "."]
        reply = player.move(rng.choice(empty))
        assert reply["ok"], reply
        player.wait_for(lambda s, v=state["version"]: s["version"] > v)


def test_history_shows_the_skill_and_the_promises_kept(
    page: Page, server_factory: Callable[..., Any], axe: Axe, artifacts: Path
) -> None:
    # The matches are played through the protocol as fast as it answers: past the
    # default limit of events a second, which is not what this test is about.
    server = server_factory(TICTACTOE_RATE_PER_SECOND="1000", TICTACTOE_RATE_BURST="1000")
    open_game(page, server.url)
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    player = Player(server.url, cookie)
    rng = random.Random(33)
    try:
        for target in (0.05, 0.05, 0.25, 0.25):
            assert player.call("new_match", {"target": target})["ok"]
            play_out(player, rng)
        answer = player.call("history")
    finally:
        player.close()
    calibration, skill = answer["calibration"], answer["skill"]
    assert calibration["matches"] == 4 and len(calibration["buckets"]) >= 2

    page.goto(server.url + "/history")
    card = page.get_by_role("region", name="Your skill and the odds you asked for")
    line = card.locator("#skill-line")
    if skill["measured"]:
        expected = (
            f"Your skill: {skill_number(skill['skill'])} ({skill_number(skill['low'])}{DASH}"
            f"{skill_number(skill['high'])}, from {skill['moves']} moves)"
        )
    else:
        expected = f"Your skill: not measured yet ({skill['moves']} of {skill['min_moves']} moves)"
    expect(line).to_have_text(expected)
    expect(card.locator("#skill-meaning")).not_to_be_empty()

    chart = card.get_by_role("img", name=CHART)
    expect(chart).to_be_visible()
    buckets = calibration["buckets"]
    expect(chart.locator("circle")).to_have_count(len(buckets))
    table = card.get_by_role("table", name="The chart\N{RIGHT SINGLE QUOTATION MARK}s numbers")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(buckets))
    for row, bucket in zip(rows.all(), buckets, strict=True):
        cells = row.locator("th, td").all_inner_texts()
        assert cells == [
            f"{round(bucket['from'] * 100)}{DASH}{round(bucket['to'] * 100)}%",
            f"{bucket['won']} of {bucket['matches']}",
            chance(bucket["promised"]),
            chance(bucket["observed"]),
            f"{chance(bucket['interval'][0])} to {chance(bucket['interval'][1])}",
        ]
    description = chart.locator("desc")
    for bucket in buckets:
        expect(description).to_contain_text(f"{bucket['won']} of {bucket['matches']} won")
    promises = card.get_by_role("table", name="Matches you asked odds for").locator("tbody tr")
    expect(promises).to_have_count(4)
    texts = promises.all_inner_texts()
    assert sum("promised · won" in text for text in texts) == calibration["won"]
    assert sum("promised · lost" in text for text in texts) == 4 - calibration["won"]
    look(page, axe, artifacts, "history", card)

    # Measured now, the skill is the player's own: and a target past what the rules can
    # give that skill is answered with the nearest, said as such.
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    page.set_viewport_size(SIZES["desktop"])
    open_game(page, server.url)
    dialog = ask_for(page, 95)
    preview = dialog.locator("#target-preview")
    expect(preview).to_have_attribute("data-state", re.compile("^(shown|out-of-reach)$"))
    tuned = acks(frames, "tuned")[-1]["tuned"]
    assert tuned["skill"] == {**skill, "hinted_left_out": tuned["skill"]["hinted_left_out"]}
    # Random moves: a skill near 0, measured from far more than the moves it takes.
    assert skill["measured"] and not tuned["reachable"]
    expect(preview).to_have_attribute("data-state", "out-of-reach")
    expect(preview.locator("#target-skill")).to_have_text(
        f"Measured from {skill['moves']} moves of yours where a choice mattered: most likely "
        f"from {skill_number(skill['low'])} to {skill_number(skill['high'])}."
    )
    games = round(tuned["odds"]["expected_games"])
    odds = f"{chance(tuned['chance'])} chance of winning this match, in about {games} games"
    reach = f"{chance(tuned['reach']['low'])} to {chance(tuned['reach']['high'])}"
    expect(preview.locator("#target-chance")).to_have_text(
        f"95% is out of reach: these rules can give your skill {skill_number(skill['skill'])} "
        f"from {reach}. The nearest: a {odds}."
    )
    assert skills_named(preview) == [skill_number(skill["skill"])]
    expect(preview).not_to_contain_text("default")
    look(page, axe, artifacts, "out-of-reach", dialog, preview)


@pytest.mark.fresh_server  # writes to the server's data dir
def test_a_target_out_of_bounds_is_never_summed_up_as_a_promise(
    page: Page, server: Any, axe: Axe
) -> None:
    open_game(page, server.url)
    dialog = ask_for(page, 35)
    summary = dialog.locator("#settings-summary")
    expect(summary).to_have_text("Adaptive · Win about 35% · rules tuned for you")
    field = dialog.get_by_role("spinbutton", name=re.compile("^I want to win about"))
    waiting = "Adaptive · the chance you ask for needs a whole number from 1 to 99"
    for typed in ("12.5", "", "100", "0"):  # not "Win about 1250%", "0%" or "100%"
        field.fill(typed)
        expect(summary).to_have_text(waiting)
        expect(page.locator("#rules-next")).to_have_text(waiting)
        expect(dialog.locator("#target-preview")).to_have_attribute("data-state", "refused")
    expect_no_violations(axe, page, "a target to fix")
    field.fill("12")
    expect(summary).to_have_text("Adaptive · Win about 12% · rules tuned for you")


# --- Show my chances: the player's own, then the scripted players' -------------------


def percent(p: float) -> str:
    """A chance as the chances line writes it (words.js, percent)."""
    value = p * 100
    if not value > 0:
        return "0%"
    if value >= 100:
        return "100%"
    if value < 0.1:
        return "less than 0.1%"
    if value >= 99.95:
        return "more than 99.9%"
    return f"{float(f'{value:.3g}'):g}%"


def own_chance_words(you: dict[str, Any]) -> str:
    """The player's own chance as the chances line says it (words.js, ownChanceWords)."""
    skill = you["skill"]
    if you["chance"] is None:
        more = you["more_moves"]
        return (
            f"You: your own chance shows here after {more} more move{'' if more == 1 else 's'} "
            f"where a choice mattered ({skill['moves']} of {skill['min_moves']} so far)"
        )
    low, high = percent(you["low"]), percent(you["high"])
    interval = "" if low == high else f" ({low} to {high})"
    return (
        f"You, at your skill {skill_number(skill['skill'])} ({skill_number(skill['low'])}{DASH}"
        f"{skill_number(skill['high'])}), win this match from here {percent(you['chance'])} "
        f"of the time{interval}"
    )


def reference_words(odds: dict[str, Any]) -> str:
    """The scripted players' chances below the player's own."""
    perfect, random_one = (odds[key]["human_match_win_prob"] for key in ("perfect", "random"))
    return (
        f"For reference, from here a perfect player wins {percent(perfect)} of this match; "
        f"a random one {percent(random_one)}"
    )


def store_games(server: Any, page: Page, skill: int, games: int) -> list[dict[str, Any]]:
    """Store ``games`` finished HP games of a ``skill`` player as the page's player's, in
    the server's own store; their entries."""
    (cookie,) = (c for c in page.context.cookies() if c["name"] == "session")
    player = player_of(f"session={cookie['value']}")
    app = create_app({"TESTING": True, "DATA_DIR": str(server.data_dir)})
    history = app.extensions["history"]
    entries = played_games(skill_strategy(skill), games, random.Random(skill))
    for n, entry in enumerate(entries):
        assert history.add(player, f"seeded:{n}", {**entry, "id": f"seeded-{n:015d}"})
    stored = history.games(player)
    history.close()
    return stored


def show_chances(page: Page, frames: list[str]) -> tuple[dict[str, Any], Locator]:
    """Press Show my chances; the current odds' answer, and the chances' lines."""
    before = len(acks(frames, "you"))
    page.get_by_role("button", name="Show my chances").click()
    lines = page.locator("#chances > p")
    expect(lines.first).to_have_text(re.compile("^You"))
    answers = acks(frames, "you")
    assert len(answers) > before
    return answers[-1], lines


def test_my_chances_lead_with_mine_at_my_skill_with_its_interval(
    page: Page, server: Any, axe: Axe, artifacts: Path
) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    open_game(page, server.url)
    entries = store_games(server, page, 70, 40)
    start_match(page, "Adaptive", human_hp=60, ai_hp=30)
    answer, lines = show_chances(page, frames)
    # The server's numbers are those of the skill its History shows, from here.
    estimate = skill_from(entries)
    assert estimate.measured
    rules = Rules(start_human_hp=60, start_ai_hp=30)
    expected = own_chance(rules, estimate, human_hp=60, ai_hp=30).to_dict()
    assert answer["you"] == expected
    assert expected["low"] < expected["chance"] < expected["high"]
    expect(lines).to_have_text([own_chance_words(expected), reference_words(answer["odds"])])
    look(page, axe, artifacts, "chances-mine", page.locator("#chances"))


def test_my_chances_say_how_many_more_moves_my_skill_needs(
    page: Page, server: Any, axe: Axe, artifacts: Path
) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    open_game(page, server.url)
    start_match(page, "Adaptive", human_hp=60, ai_hp=30)
    answer, lines = show_chances(page, frames)
    you = answer["you"]
    assert you["chance"] is None and you["more_moves"] == MIN_MOVES
    expect(lines).to_have_text(
        [
            f"You: your own chance shows here after {MIN_MOVES} more moves where a choice "
            f"mattered (0 of {MIN_MOVES} so far)",
            reference_words(answer["odds"]),
        ]
    )
    look(page, axe, artifacts, "chances-unmeasured", page.locator("#chances"))


def spend_the_share(player: Player, payload: dict[str, Any]) -> None:
    """Ask for costly odds until they are answered: the page's own odds may have spent
    the address's share first, and then the refusal says when it is back."""
    for _ in range(20):
        reply = player.call("odds", payload)
        if reply["ok"]:
            return
        assert reply["error"]["code"] == "rate_limited", reply
        time.sleep(reply["error"]["retry_after"])
    raise AssertionError("the odds were refused 20 times")


def test_my_chances_refused_for_a_spent_share_are_asked_again_and_shown(
    page: Page, server_factory: Any
) -> None:
    # The address's share of odds work is 10 ms a second with no burst. Another player
    # from the same address spends it on rules new to the server (tens of milliseconds of
    # work, seconds of debt): the page's chances are refused with the wait until the share
    # is back, and the page asks again then.
    slow = server_factory(TICTACTOE_ODDS_MS_PER_ADDRESS="10", TICTACTOE_ODDS_BURST_MS="1")
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    open_game(page, slow.url)
    start_match(page, "Adaptive", human_hp=60, ai_hp=30)
    other = Player(slow.url, session_cookie(slow.url))
    try:
        spend_the_share(other, {"rules": {**HARD_RULES, "start_human_hp": 181}})
    finally:
        other.close()
    page.get_by_role("button", name="Show my chances").click()
    lines = page.locator("#chances > p")
    # Asked again after each wait the refusal names (seconds each on a busy machine).
    expect(lines.first).to_have_text(re.compile("^You"), timeout=60_000)
    expect(lines.nth(1)).to_have_text(re.compile("^For reference"))
    refused = [a["error"] for a in acks(frames, "error") if a["error"]["code"] == "rate_limited"]
    assert refused, "the page's chances were not refused: the share was not spent"
    assert all(error["retry_after"] > 0 for error in refused)
