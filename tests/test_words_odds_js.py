"""The rules dialog's odds line says whether the odds are exact or simulated, in Node."""

from __future__ import annotations

from support.node import node_value

ODDS = (
    "{perfect: {human_match_win_prob: 0.8474, expected_games: 17.1%s},"
    " random: {human_match_win_prob: 0.00002}}"
)


def test_exact_odds_say_so() -> None:
    for extra in ("", ", exact: true"):
        said = node_value("words_rules.js", f"w.oddsSentence({ODDS % extra})")
        assert said.endswith("a random player less than 0.1% (exact odds)"), said


def test_simulated_odds_give_their_interval() -> None:
    odds = ODDS % ", exact: false, interval: [0.81, 0.88]"
    said = node_value("words_rules.js", f"w.oddsSentence({odds})")
    assert said == (
        "A perfect player wins this match 84.7% of the time, in about 17 games; a random"
        " player less than 0.1% (simulated: 95% interval 81% to 88% for the perfect player)"
    )
