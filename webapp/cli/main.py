"""The ``tictactoe`` console command: serve, backup, restore, play, simulate, odds, tune,
solve, explain, stats, selfplay."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from .. import __version__
from ..game import engine, strategies, tree
from ..game.board import Board, RuleError, cell_name
from ..game.match import MODES, PRESETS, RULE_FIELDS, MatchError, Rules, rules_from
from ..game.simulation import PLAYERS, simulate
from .explain import add_explain
from .games import add_commands
from .report import render_json, render_odds, render_text, render_tuned
from .terminal import draw_board, play_match


def solve_lines(boards: Iterable[str], out: TextIO) -> int:
    """Print one JSON analysis per board; return 2 if any board was invalid, else 0."""
    status = 0
    for text in boards:
        try:
            record = engine.analyse(Board.parse(text)).to_dict()
        except RuleError as err:
            record = {"board": text, "error": {"code": err.code, "message": err.message}}
            status = 2
        out.write(json.dumps(record) + "\n")
    return status


def _stdin_boards() -> Iterable[str]:
    for line in sys.stdin:
        text = line.rstrip("\r\n")
        if text:  # a line of nine spaces is an empty board, so only skip empty lines
            yield text


def cmd_solve(args: argparse.Namespace) -> int:
    """Analyse boards from the arguments, or one per line from stdin."""
    return solve_lines(args.boards or _stdin_boards(), sys.stdout)


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the counts of the complete game tree."""
    stats = dataclasses.asdict(tree.tree_stats())
    if args.json:
        print(json.dumps(stats))
    else:
        width = max(len(k) for k in stats)
        for key, count in stats.items():
            print(f"{key.replace('_', ' '):<{width}}  {count:>7,}")
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    """Play one AI-vs-AI game and print it board by board."""
    rng = random.Random(args.seed)
    players = {
        "X": strategies.strategy(args.x, depth=args.depth),
        "O": strategies.strategy(args.o, depth=args.depth),
    }
    board = Board()
    print(f"X: {args.x}   O: {args.o}\n\n{draw_board(board)}")
    while not board.is_over():
        mover = board.to_move
        cell = players[mover](board, rng)
        board = board.apply_move(cell)
        print(f"\n{mover} ({args.x if mover == 'X' else args.o}) plays {cell_name(cell)}")
        print(draw_board(board))
    outcome = board.outcome()
    assert outcome is not None
    print(f"\nResult: {outcome.winner + ' wins' if outcome.winner else 'draw'}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the web server under gunicorn's arbiter."""
    from ..server.serve import serve

    return serve(host=args.host, port=args.port, workers=args.workers)


def _data_dir(args: argparse.Namespace) -> tuple[Path, bool]:
    """The data dir (``--data-dir``, else the server's setting or default) and whether
    the matches are in Redis rather than in it."""
    from ..server import config, datadir

    settings = config.load(os.environ)
    chosen = args.data_dir or settings["DATA_DIR"] or datadir.default(os.environ)
    return Path(chosen), bool(settings["REDIS_URL"])


def cmd_backup(args: argparse.Namespace) -> int:
    from ..server import config
    from ..server.backup import BackupError, backup

    data_dir, in_redis = _data_dir(args)
    redis_url = config.load(os.environ)["REDIS_URL"] if in_redis else None
    try:
        written = backup(data_dir, Path(args.target), redis_url=redis_url)
    except (BackupError, OSError) as err:
        print(f"tictactoe backup: error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from ..server import config
    from ..server.backup import BackupError, restore

    data_dir, in_redis = _data_dir(args)
    redis_url = config.load(os.environ)["REDIS_URL"] if in_redis else None
    try:
        done = restore(Path(args.source), data_dir, redis_url=redis_url)
    except (BackupError, OSError) as err:
        print(f"tictactoe restore: error: {err}", file=sys.stderr)
        return 2
    if done.reseeded_in_redis is not None:
        print(f"gave the {done.reseeded_in_redis} matches in Redis fresh seeds")
    for path in done.aside:
        print(f"set aside {path}")
    print(f"restored {args.source} into {data_dir}: start the server again")
    return 0


def _refuse(command: str, err: MatchError) -> int:
    print(f"tictactoe {command}: error: {err.message}", file=sys.stderr)
    return 2


def _rules(args: argparse.Namespace) -> Rules:
    """The rules the flags ask for: a preset, then any number changed."""
    numbers = {rule.name: getattr(args, rule.name) for rule in RULE_FIELDS}
    return rules_from(args.preset, **numbers)


def cmd_play(args: argparse.Namespace) -> int:
    """Play a match against the AI in the terminal."""
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
    """Print the exact odds of a match under the rules, for one scripted player or all."""
    from ..game.odds import PLAYERS as ODDS_PLAYERS
    from ..game.odds import match_odds

    try:
        rules = _rules(args)
    except MatchError as err:
        return _refuse("odds", err)
    players = [args.player] if args.player else list(ODDS_PLAYERS)
    found = [match_odds(rules, player) for player in players]
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
        tuned = tune(args.target, args.player)
    except TuneError as err:
        print(f"tictactoe tune: error: {err.message}", file=sys.stderr)
        return 2
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="tictactoe", description=__doc__)
    parser.add_argument(
        "--version", action="version", version=f"tictactoe {__version__}", help="print the release"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the web server")
    serve.add_argument("--host", default=None, help="address to listen on (env TICTACTOE_HOST)")
    serve.add_argument(
        "--port", type=int, default=None, help="port to listen on (env TICTACTOE_PORT)"
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server processes sharing the port (env TICTACTOE_WORKERS; more than 1 needs"
        " TICTACTOE_REDIS_URL)",
    )
    serve.set_defaults(func=cmd_serve)

    backup = sub.add_parser(
        "backup", help="copy the matches and the secret key into a folder, server running"
    )
    backup.add_argument("target", help="folder to write (created 0700; files 0600)")
    backup.add_argument("--data-dir", help="the server's data dir (env TICTACTOE_DATA_DIR)")
    backup.set_defaults(func=cmd_backup)

    restore = sub.add_parser("restore", help="put a backup into the data dir of a stopped server")
    restore.add_argument("source", help="a folder written by tictactoe backup")
    restore.add_argument("--data-dir", help="the server's data dir (env TICTACTOE_DATA_DIR)")
    restore.set_defaults(func=cmd_restore)

    solve = sub.add_parser("solve", help="analyse boards under perfect play, as JSON lines")
    solve.add_argument("boards", nargs="*", help="9-character boards (X, O, .); stdin if none")
    solve.set_defaults(func=cmd_solve)

    stats = sub.add_parser("stats", help="count positions and games of the whole game tree")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(func=cmd_stats)

    selfplay = sub.add_parser("selfplay", help="watch two strategies play one game")
    for side in ("x", "o"):
        selfplay.add_argument(
            f"--{side}",
            choices=strategies.STRATEGY_NAMES,
            default="perfect",
            help=f"{side.upper()}",
        )
    selfplay.add_argument("--depth", type=int, default=2, help="plies for lookahead (2)")
    selfplay.add_argument("--seed", type=int, default=None, help="seed for reproducible games")
    selfplay.set_defaults(func=cmd_selfplay)

    play = sub.add_parser("play", help="play a match against the AI in the terminal")
    play.add_argument("--mode", choices=MODES, default="adaptive", help="AI level (adaptive)")
    play.add_argument("--seed", type=int, default=None, help="seed for a reproducible match")
    _add_rule_settings(play)
    play.set_defaults(func=cmd_play)

    simulate = sub.add_parser("simulate", help="simulate adaptive matches with a scripted human")
    simulate.add_argument("--player", choices=PLAYERS, default="random", help="(random)")
    simulate.add_argument("--matches", type=int, default=1000, help="matches to play (1000)")
    simulate.add_argument("--seed", type=int, default=None, help="seed for reproducible results")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    _add_rule_settings(simulate)
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
    tuned.set_defaults(func=cmd_tune)

    add_commands(sub)
    add_explain(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tictactoe`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
