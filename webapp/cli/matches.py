"""Commands about a match and its rules: play, simulate, odds, tune."""

from __future__ import annotations

import argparse
import json
import random
import sys

from ..game.rules import MODES, PRESETS, RULE_FIELDS, MatchError, Rules, rules_from
from ..game.simulation import PLAYERS, simulate
from ..game.variant import CLASSIC
from .report import render_json, render_odds, render_text, render_tuned
from .terminal import play_match
from .variant_play import add_variant_flag, add_variant_flags, play_variant, variant_solver


def _refuse(command: str, err: MatchError) -> int:
    print(f"tictactoe {command}: error: {err.message}", file=sys.stderr)
    return 2


def _rules(args: argparse.Namespace) -> Rules:
    """The rules the flags ask for: a preset, then any number changed (on the variant
    asked for, if the command takes one)."""
    numbers = {rule.name: getattr(args, rule.name) for rule in RULE_FIELDS}
    return rules_from(args.preset, variant=getattr(args, "variant", CLASSIC), **numbers)


def cmd_play(args: argparse.Namespace) -> int:
    """Play a match against the AI in the terminal (beyond classic: games against the
    perfect AI)."""
    if args.variant != CLASSIC:
        match_flags = [rule.flag for rule in RULE_FIELDS if getattr(args, rule.name) is not None]
        match_flags += ["--mode"] * (args.mode != "adaptive")
        match_flags += ["--preset"] * (args.preset != "classic")
        if match_flags:
            print(
                f"tictactoe play: error: on {args.variant.name} the AI plays perfectly, game"
                f" after game; {', '.join(match_flags)} set classic's HP match",
                file=sys.stderr,
            )
            return 2
        return play_variant(sys.stdin, sys.stdout, variant_solver(args))
    rng = random.Random(args.seed)
    try:
        return play_match(sys.stdin, sys.stdout, rng, mode=args.mode, rules=_rules(args))
    except MatchError as err:
        return _refuse("play", err)


def cmd_simulate(args: argparse.Namespace) -> int:
    """Simulate adaptive matches against a scripted human and print the summary."""
    rng = random.Random(args.seed)
    try:
        result = simulate(args.player, args.matches, rng, rules=_rules(args))
    except MatchError as err:
        return _refuse("simulate", err)
    print(render_json(result) if args.json else render_text(result))
    return 0


def cmd_odds(args: argparse.Namespace) -> int:
    """Print the exact odds of a match under the rules, for one scripted player or all
    (all the variant has)."""
    from ..game.odds import match_odds, players_for

    players = [args.player] if args.player else list(players_for(args.variant))
    try:
        rules = _rules(args)
        found = [match_odds(rules, player) for player in players]
    except MatchError as err:
        return _refuse("odds", err)
    if args.json:
        dicts = [odds.to_dict() for odds in found]
        print(json.dumps(dicts[0] if args.player else dicts))
        return 0
    print(render_odds(found))
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    """Find the rules that give the player the chance of winning a match asked for."""
    from ..game.tune import TuneError, tune

    try:
        tuned = tune(args.target, args.player, variant=args.variant)
    except TuneError as err:
        print(f"tictactoe tune: error: {err.message}", file=sys.stderr)
        return 2
    except MatchError as err:
        return _refuse("tune", err)
    print(json.dumps(tuned.to_dict()) if args.json else render_tuned(tuned))
    return 0


def _odds_player(name: str) -> str:
    """A ``--player`` of the odds: a scripted player, or ``skill:S``."""
    from ..game.odds import UnknownPlayer, player_name

    try:
        return player_name(name)
    except UnknownPlayer as err:
        raise argparse.ArgumentTypeError(err.message) from None


def _add_rule_settings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        default="classic",
        help="the rules to start from (classic); each flag below changes one number",
    )
    for rule in RULE_FIELDS:
        high = "max HP" if rule.high is None else str(rule.high)
        default = getattr(PRESETS["classic"], rule.name)
        parser.add_argument(
            rule.flag,
            dest=rule.name,
            type=int,
            default=None,
            help=f"{rule.label}, {rule.low}-{high} (classic: {default})",
        )


def add_match_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``play``, ``simulate``, ``odds`` and ``tune`` commands."""
    play = sub.add_parser("play", help="play a match against the AI in the terminal")
    play.add_argument("--mode", choices=MODES, default="adaptive", help="AI level (adaptive)")
    play.add_argument("--seed", type=int, default=None, help="seed for a reproducible match")
    _add_rule_settings(play)
    add_variant_flags(play)
    play.set_defaults(func=cmd_play)

    simulate = sub.add_parser("simulate", help="simulate adaptive matches with a scripted human")
    simulate.add_argument("--player", choices=PLAYERS, default="random", help="(random)")
    simulate.add_argument("--matches", type=int, default=1000, help="matches to play (1000)")
    simulate.add_argument("--seed", type=int, default=None, help="seed for reproducible results")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    _add_rule_settings(simulate)
    add_variant_flag(simulate)
    simulate.set_defaults(func=cmd_simulate)

    odds = sub.add_parser("odds", help="the exact odds of a match, from the game tree")
    odds.add_argument(
        "--player",
        type=_odds_player,
        default=None,
        help="random, heuristic, perfect, or skill:S: a perfect move with chance S (0..1),"
        " else a random one (all three scripted players)",
    )
    odds.add_argument("--json", action="store_true", help="print JSON")
    _add_rule_settings(odds)
    add_variant_flag(odds)
    odds.set_defaults(func=cmd_odds)

    tuned = sub.add_parser(
        "tune", help="the rules that give a player the chance of winning a match asked for"
    )
    tuned.add_argument(
        "--target", type=float, required=True, help="the chance of winning a match, 0..1"
    )
    tuned.add_argument(
        "--player",
        type=_odds_player,
        default="skill:0.8",
        help="as for odds: skill:S (a perfect move with chance S, else a random one), random,"
        " heuristic or perfect (skill:0.8)",
    )
    tuned.add_argument("--json", action="store_true", help="print JSON")
    add_variant_flag(tuned)
    tuned.set_defaults(func=cmd_tune)
