"""What a targeted match promises: the chance of winning the player asked for, the chance
the rules found give them, and the skill estimate those rules were tuned for.

A match started from a target (``tune`` in webapp/game/tune.py, on the player's skill from
webapp/game/skill.py) keeps its promise from its first game to its last; every game's
record carries it, so History can set what was promised beside what happened
(webapp/game/calibration.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isfinite
from typing import Any

from .board import RuleError


class BadPromise(RuleError):
    """A stored promise that is not one."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_state", message)


@dataclass(frozen=True)
class Promise:
    """A targeted match's promise: ``chance`` of winning it under its rules, for a player
    of skill ``skill`` (95% interval ``low``..``high``, from ``moves`` counted moves;
    ``measured`` False when too few moves gave the default), asked for as ``target``;
    ``reachable`` False when the rules' bounds could not give the target."""

    target: float
    chance: float
    reachable: bool
    skill: float
    low: float
    high: float
    moves: int
    measured: bool

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the target and chance, and the skill estimate used under ``skill``."""
        return {
            "target": self.target,
            "chance": self.chance,
            "reachable": self.reachable,
            "skill": {
                "skill": self.skill,
                "low": self.low,
                "high": self.high,
                "moves": self.moves,
                "measured": self.measured,
            },
        }


def _chance(data: dict[str, Any], key: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not isfinite(value):
        raise BadPromise(f"a promise's {key} is not a number: {value!r}")
    if not 0 <= value <= 1:
        raise BadPromise(f"a promise's {key} is not from 0 to 1: {value!r}")
    return float(value)


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data[key]
    if not isinstance(value, bool):
        raise BadPromise(f"a promise's {key} is not true or false: {value!r}")
    return value


def promise_from(data: object) -> Promise | None:
    """The promise stored as ``data`` (``Promise.to_dict``'s form), None for ``None``;
    refuses (``BadPromise``) anything else."""
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("skill"), dict):
        raise BadPromise(f"a promise must be an object, got {data!r}")
    skill = data["skill"]
    moves = skill["moves"]
    if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
        raise BadPromise(f"a promise's moves are not a count: {moves!r}")
    return Promise(
        target=_chance(data, "target"),
        chance=_chance(data, "chance"),
        reachable=_flag(data, "reachable"),
        skill=_chance(skill, "skill"),
        low=_chance(skill, "low"),
        high=_chance(skill, "high"),
        moves=moves,
        measured=_flag(skill, "measured"),
    )
