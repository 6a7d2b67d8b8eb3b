"""``tictactoe odds``, ``tune`` and ``simulate`` with ``--variant``: the exact odds of the
variant's players, the rules tuned on it, matches played on it; classic as before."""

from __future__ import annotations

import io
import json
import sys

import pytest

from webapp.cli.main import main
from webapp.game import odds as odds_module
from webapp.game.odds import match_odds
from webapp.game.rules import rules_from
from webapp.game.variant import variant_named
from webapp.game.variant_chances import shipped


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command in-process; its exit code, stdout and stderr."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(""))
        try:
            code = main(list(argv))
        except SystemExit as exit:
            code = int(exit.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_odds_on_a_variant_are_its_players_exact_odds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "--variant", "4x4k3", "--preset", "gentle", "--json")
    assert code == 0
    found = json.loads(out)
    assert [odds["player"] for odds in found] == ["random", "perfect"]
    rules = rules_from("gentle", variant=variant_named("4x4k3"))
    assert found[1] == match_odds(rules, "perfect").to_dict()
    assert found[1]["exact"] is True and found[1]["rules"]["variant"] == "4x4k3"
    code, out, _ = run(capsys, "odds", "--variant", "misere")
    assert code == 0 and out.splitlines()[1].startswith("random") and "heuristic" not in out


def test_odds_without_a_variant_are_classic(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "--json")
    assert code == 0
    assert [odds["player"] for odds in json.loads(out)] == ["random", "heuristic", "perfect"]
    assert "exact" not in out and "variant" not in out


@pytest.mark.parametrize("command", ["odds", "simulate"])
def test_the_heuristic_player_is_refused_off_classic(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, err = run(capsys, command, "--variant", "misere", "--player", "heuristic")
    assert (code, out) == (2, "")
    assert "plays only the classic board, not misere" in err


def test_an_unknown_variant_is_refused_naming_the_known(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "odds", "--variant", "5x5")
    assert (code, out) == (2, "")
    assert "no variant is called '5x5'" in err and "4x4k3" in err


def test_tune_finds_rules_on_the_variant(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tune", "--target", "0.5", "--variant", "misere", "--json")
    assert code == 0
    tuned = json.loads(out)
    assert tuned["odds"]["rules"]["variant"] == "misere" and tuned["reachable"] is True
    assert abs(tuned["chance"] - 0.5) < 0.02
    code, out, _ = run(capsys, "tune", "--target", "0.5", "--variant", "misere")
    assert "--variant misere" in out.splitlines()[2]


def test_simulate_plays_on_the_variant(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("simulate", "--player", "perfect", "--matches", "20", "--seed", "4", "--json")
    code, out, _ = run(capsys, *argv, "--variant", "misere", "--preset", "gentle")
    assert code == 0
    found = json.loads(out)
    assert found["matches"] == 20 and found["human_match_wins"] == 20  # exact: 99.99%
    classic = json.loads(run(capsys, *argv, "--preset", "gentle")[1])
    assert classic != found


def test_tune_works_on_notakto3_and_refuses_a_variant_whose_odds_are_simulated(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, "tune", "--target", "0.5", "--variant", "notakto3", "--json")
    assert code == 0 and json.loads(out)["odds"]["rules"]["variant"] == "notakto3"
    # A variant the table lacked would have simulated odds: tune needs exact ones.
    table = {name: entry for name, entry in shipped().items() if name != "notakto3"}
    monkeypatch.setattr(odds_module, "shipped", lambda: table)
    code, out, err = run(capsys, "tune", "--target", "0.5", "--variant", "notakto3")
    assert (code, out) == (2, "")
    assert "the skill:0.8 player's on notakto3 are simulated" in err
    code, out, err = run(
        capsys, "tune", "--target", "0.5", "--variant", "misere", "--player", "heuristic"
    )
    assert (code, out) == (2, "") and "plays only the classic board" in err
