"""A match as stored data: the current schema, and upgrades from every earlier one.

Each record carries its schema number in ``format``. Loading runs the chain of small
upgrades (v1 -> v2 -> ...) before rebuilding the match, so a row written by any
earlier release is read, never dropped. A change to what is stored adds one upgrade
here and one fixture row to tests/fixtures/.

A match on a variant other than classic names it in its rules (``Rules.to_dict``); a
classic match names none, so its record is the same as before variants came.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

from .fairness import Dice, check_server_seed
from .game import FIRST_BY, AiMove, Game, check_mistake, setup_board
from .match import Match, Record
from .promise import promise_from
from .rules import MODES, MatchError, Rules

Data = dict[str, Any]
SCHEMA = 7


def _v1_to_v2(data: Data) -> Data:
    """Release 0.2: the starting HP are named as such, and perfect play is "perfect"."""
    rules = dict(data["rules"])
    rules["start_human_hp"] = rules.pop("human_hp")
    rules["start_ai_hp"] = rules.pop("ai_hp")
    game = dict(data["game"])
    game["ai_moves"] = [
        {**move, "decision": "perfect" if move["decision"] == "minimax" else move["decision"]}
        for move in game["ai_moves"]
    ]
    return {**data, "format": 2, "rules": rules, "game": game}


UPGRADED_CLIENT_SEED = "upgraded"


def _v2_to_v3(data: Data) -> Data:
    """Release 0.3: the difficulty can be locked, and each game has committed dice.

    A game under way when the upgrade came began without a commitment, so it gets a
    stream that is marked as never committed (its record shows no dice to verify): its
    seed is derived from the stored record, as a pure upgrade cannot draw one.
    """
    game = dict(data["game"])
    derived = hashlib.sha256(b"upgraded:" + json.dumps(data, sort_keys=True).encode())
    game["dice"] = {
        "server_seed": derived.hexdigest(),
        "client_seed": UPGRADED_CLIENT_SEED,
        "game": data["game_number"],
        "used": 1,
        "committed": False,
    }
    game["ai_moves"] = [
        {**move, "roll_n": None, "candidates": [], "pick_n": None} for move in game["ai_moves"]
    ]
    return {**data, "format": 3, "locked": None, "game": game}


def _v3_to_v4(data: Data) -> Data:
    """Release 0.4: a game may begin from a position (practice); earlier ones did not."""
    return {**data, "format": 4, "game": {**data["game"], "setup": []}}


def _v4_to_v5(data: Data) -> Data:
    """Release 0.5: the next game's seed is committed to during the game before it, and
    a game says what decided who starts and whether the player seeded its dice.

    Earlier games drew their seed after the client seed was known, so none counts as
    player-seeded; their number 0 always named who starts. The pending seed is left
    for the server to draw (``next_seed`` None): a pure upgrade cannot make a secret.
    """
    game = dict(data["game"])
    game["dice"] = {**game["dice"], "player_seeded": False}
    game["first_by"] = "dice"
    return {**data, "format": 5, "next_seed": None, "game": game}


def _v5_to_v6(data: Data) -> Data:
    """Release 0.5: an HP game marks the moves made with hints shown. Nothing recorded
    them before, so a game under way at the upgrade marks none."""
    return {**data, "format": 6, "game": {**data["game"], "hinted": []}}


def _v6_to_v7(data: Data) -> Data:
    """Release 0.5: a match started from a target keeps its promise; none was before."""
    return {**data, "format": 7, "promise": None}


# UPGRADES[n] turns a record of schema n into one of schema n + 1.
UPGRADES: dict[int, Callable[[Data], Data]] = {
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
    4: _v4_to_v5,
    5: _v5_to_v6,
    6: _v6_to_v7,
}


def upgrade(data: Data) -> Data:
    """The record brought up to the current schema; refuses unknown or newer ones."""
    schema = data.get("format") if isinstance(data, dict) else None
    if not isinstance(schema, int) or not 1 <= schema <= SCHEMA:
        raise MatchError("bad_state", f"unsupported match format {schema!r}")
    try:
        while data["format"] < SCHEMA:
            data = UPGRADES[data["format"]](data)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise MatchError("bad_state", f"stored match is damaged: {err!r}") from err
    return data


def to_record(match: Match) -> Data:
    """The match as JSON-compatible data in the current schema."""
    game = match.game
    return {
        "format": SCHEMA,
        "version": match.version,
        "mode": match.mode,
        "rules": match.rules.to_dict(),
        "human_hp": match.human_hp,
        "ai_hp": match.ai_hp,
        "game_number": match.game_number,
        "record": match.record.to_dict(),
        "last_hp_change": list(match.last_hp_change) if match.last_hp_change else None,
        "locked": match.locked,
        "next_seed": match.next_seed,
        "promise": match.promise.to_dict() if match.promise else None,
        "game": {
            "first": game.first,
            "first_by": game.first_by,
            "dice": game.dice.to_dict(),
            "history": [[side, cell] for side, cell in game.history],
            "ai_moves": [move.to_dict() for move in game.ai_moves],
            "setup": list(game.setup),
            "hinted": list(game.hinted),
            # Only in a practice game from a mistake: an optional key, so that a release
            # without it still reads every match (it ignores the key).
            **({} if game.mistake is None else {"mistake": game.mistake}),
        },
    }


def from_record(data: Data) -> Match:
    """Rebuild a match from a record of any known schema, replaying its moves to check them."""
    data = upgrade(data)
    try:
        stored = data["game"]
        if data["mode"] not in MODES or stored["first"] not in ("human", "ai"):
            raise MatchError("bad_state", "unknown mode or first player")
        if stored["first_by"] not in FIRST_BY:
            raise MatchError("bad_state", f"unknown first_by {stored['first_by']!r}")
        next_seed = data["next_seed"]
        if next_seed is not None:
            check_server_seed(next_seed)
        dice = Dice(**stored["dice"])
        rules = Rules.from_dict(data["rules"])
        setup = tuple(int(cell) for cell in stored["setup"])
        mistake = stored.get("mistake")
        check_mistake(setup_board(setup, rules.variant), mistake)
        hinted = tuple(stored["hinted"])
        plies = range(rules.variant.cells + 1)
        if any(isinstance(ply, bool) or ply not in plies for ply in hinted):
            raise MatchError("bad_state", f"a hinted move out of range: {hinted!r}")
        game = Game(
            first=stored["first"],
            dice=dataclasses.replace(dice, used=1),
            board=setup_board(setup, rules.variant),
            setup=setup,
            first_by=stored["first_by"],
            mistake=mistake,
            hinted=hinted,
        )
        ai_moves = iter(
            AiMove(**{**m, "candidates": tuple(m["candidates"])}) for m in stored["ai_moves"]
        )
        for side, cell in stored["history"]:
            if side != game.turn:
                raise MatchError("bad_state", f"a stored move by {side!r} out of turn")
            game = game.play(side, cell, next(ai_moves) if side == "ai" else None)
        if game.dice != dice or dice.game != data["game_number"]:
            raise MatchError("bad_state", "the stored dice do not follow from the moves")
        change = data["last_hp_change"]
        locked = data["locked"]
        if locked is not None and (isinstance(locked, bool) or not 0 <= locked <= 100):
            raise MatchError("bad_state", f"a locked difficulty out of range: {locked!r}")
        return Match(
            mode=data["mode"],
            rules=rules,
            human_hp=data["human_hp"],
            ai_hp=data["ai_hp"],
            game=game,
            game_number=data["game_number"],
            record=Record(**data["record"]),
            last_hp_change=(change[0], change[1]) if change else None,
            version=data["version"],
            locked=locked,
            next_seed=next_seed,
            promise=promise_from(data["promise"]),
        )
    except (KeyError, TypeError, ValueError, StopIteration) as err:
        if isinstance(err, MatchError) and err.code == "bad_state":
            raise
        raise MatchError("bad_state", f"stored match is damaged: {err!r}") from err
