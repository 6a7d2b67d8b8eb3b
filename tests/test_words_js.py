"""The wording module's numbers, run in Node as the page runs them: no float noise; and
the player's own chance and the skill a target's preview names."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.node import NODE, node_value


def percents(values: list[float]) -> list[str]:
    """words.js's ``percent`` of each value, computed by Node."""
    return said("percent", [[value] for value in values])


def said(function: str, calls: list[list[Any]]) -> list[str]:
    """What words.js's ``function`` says for each list of arguments, computed by Node."""
    return list(node_value("words.js", f"{json.dumps(calls)}.map((a) => w.{function}(...a))"))


@pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")
def test_percentages_have_at_most_three_significant_figures() -> None:
    table = [
        (0, "0%"),
        (1, "100%"),
        (0.9999999999999997, "more than 99.9%"),  # was "99.99999999999997%"
        (0.9995, "more than 99.9%"),
        (0.9994, "99.9%"),
        (0.847321, "84.7%"),
        (0.12, "12%"),
        (0.0539, "5.39%"),
        (0.00539, "0.539%"),
        (0.001, "0.1%"),
        (0.0000539, "less than 0.1%"),  # was "0.00539%"
        (1e-300, "less than 0.1%"),
    ]
    assert percents([value for value, _ in table]) == [words for _, words in table]


def skill(value: float, low: float, high: float, moves: int, measured: bool) -> dict[str, Any]:
    """A skill estimate as the server sends it."""
    return {
        "skill": value,
        "low": low,
        "high": high,
        "moves": moves,
        "measured": measured,
        "hinted_left_out": 0,
        "min_moves": 30,
    }


@pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")
def test_my_own_chance_leads_with_you_at_my_skill_and_its_interval() -> None:
    measured = skill(0.62, 0.48, 0.75, 140, True)
    unmeasured = skill(0.5, 0.0, 1.0, 29, False)
    calls = [
        [{"skill": measured, "chance": 0.4123, "low": 0.33, "high": 0.5, "more_moves": 0}],
        [{"skill": measured, "chance": 1, "low": 1, "high": 1, "more_moves": 0}],
        [{"skill": measured, "chance": 2e-5, "low": 1e-6, "high": 3e-4, "more_moves": 0}],
        [{"skill": unmeasured, "chance": None, "low": None, "high": None, "more_moves": 1}],
    ]
    assert said("ownChanceWords", calls) == [
        "You, at your skill 0.62 (0.48\N{EN DASH}0.75), win this match from here 41.2% of the "
        "time (33% to 50%)",
        "You, at your skill 0.62 (0.48\N{EN DASH}0.75), win this match from here 100% of the time",
        "You, at your skill 0.62 (0.48\N{EN DASH}0.75), win this match from here less than 0.1% "
        "of the time",
        "You: your own chance shows here after 1 more move where a choice mattered "
        "(29 of 30 so far)",
    ]


@pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")
def test_a_targets_preview_names_the_one_skill_it_used() -> None:
    tuned = {"target": 0.6, "chance": 0.598, "reachable": True, "odds": {"expected_games": 9.2}}
    measured, default = skill(0.62, 0.48, 0.75, 140, True), skill(0.5, 0.0, 1.0, 4, False)
    chances = said(
        "tunedChanceWords", [[{**tuned, "skill": measured}], [{**tuned, "skill": default}]]
    )
    assert chances == [
        "For your skill 0.62: a 59.8% chance of winning this match, in about 9 games.",
        "For the default skill 0.50: a 59.8% chance of winning this match, in about 9 games.",
    ]
    assert said("skillUsedWords", [[measured], [default]]) == [
        "Measured from 140 moves of yours where a choice mattered: most likely from 0.48 to 0.75.",
        "Your own skill is used once your games hold 30 moves where a choice mattered (4 so far).",
    ]


def _move(
    cell: str, verdict: str, best: tuple[str, int], played: tuple[str, int], **more: Any
) -> dict[str, Any]:
    """A reviewed move as the server sends it (review.py's ``MoveReview.to_dict``)."""

    def value(kept: tuple[str, int]) -> dict[str, Any]:
        return {"result": kept[0], "plies": kept[1]}

    return {"cell": cell, "verdict": verdict, "best": value(best), "played": value(played), **more}


@pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")
def test_the_reviews_verdict_is_short_and_plain_on_every_board() -> None:
    table = [
        (
            _move("b1", "mistake", ("draw", 9), ("loss", 6), best_cells=["c1", "a2", "b2", "c3"]),
            "Mistake: b1 loses in 3; c1, a2, b2 or c3 keep the draw.",
        ),
        (
            _move("b3", "mistake", ("win", 1), ("draw", 4), best_cells=["a3"]),
            "Mistake: b3 only draws; a3 wins now.",
        ),
        (
            _move("c1", "blunder", ("win", 3), ("loss", 2), best_cells=["a3", "b2"]),
            "Blunder: c1 loses in 1; a3 or b2 win in 2.",
        ),
        (
            _move("b2", "best", ("draw", 8), ("draw", 8), best_cells=["b2"]),
            "Best move: b2 keeps the draw.",
        ),
        (
            _move("2:b2", "blunder", ("win", 5), ("loss", 2), best_cells=["1:a1"], gift="taken"),
            "Blunder: 2:b2 loses in 1; 1:a1 wins in 3."
            " It gave you a better result, and you took it.",
        ),
        (
            _move("d4", "mistake", ("draw", 9), ("loss", 4), best_cells=["d1"], gift="missed"),
            "Mistake: d4 loses in 2; d1 keeps the draw."
            " It gave you a better result, but you missed it.",
        ),
    ]
    assert said("verdictWords", [[move] for move, _ in table]) == [words for _, words in table]


@pytest.mark.skipif(NODE is None, reason="needs Node, as `make` does")
def test_practice_says_its_moves_in_the_reviews_words() -> None:
    mistake = _move("c3", "mistake", ("draw", 5), ("loss", 2), best_cells=["a3"])
    again = {**mistake, "feedback": "played"}
    slip = {
        **_move("a2", "mistake", ("draw", 5), ("loss", 2), best_cells=["a3"]),
        "feedback": "mistake",
    }
    best = {**_move("a3", "best", ("draw", 5), ("draw", 5), best_cells=["a3"]), "feedback": "best"}
    good = {
        **_move("b2", "inaccuracy", ("win", 3), ("win", 5), best_cells=["a3"]),
        "feedback": "good",
    }
    calls = [[{"mistake": mistake, "feedback": f}] for f in (None, again, slip, best, good)]
    found = node_value("words.js", f"{json.dumps(calls)}.map((a) => w.practiceWords(...a))")
    assert found[0] == {
        "lesson": "Here you played a mistake: c3 loses in 1. Try another move.",
        "feedback": "",
    }
    assert [f["feedback"] for f in found[1:]] == [
        "That's your move again: c3 loses in 1.",  # the lesson still asks: no better move named
        "Mistake: a2 loses in 1; a3 keeps the draw.",
        "Best move: a3 keeps the draw.",
        "Also good: b2 wins in 3; a3 wins in 2.",
    ]
