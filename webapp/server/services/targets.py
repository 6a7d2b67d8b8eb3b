"""A match tuned to the chance of winning a player asks for, from what their own games say
about them: ``new_match`` with a ``target``.

The player's skill is estimated from their stored history (webapp/game/skill.py), and the
rules that give a ``skill:S`` player of that skill the target are found by ``tune``
(webapp/game/tune.py), on the same budgets (per connection and per address) and process
share as the ``odds`` event's (services/odds.py). The answer is cached by target and player
(the skill rounded to 0.01), so a second ask costs microseconds. The match keeps what it
promised (webapp/game/promise.py); History shows the skill and how well the promises
were kept (``figures``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webapp.game.calibration import calibration_of
from webapp.game.history import Entry
from webapp.game.promise import Promise
from webapp.game.rules import MatchError
from webapp.game.skill import SkillEstimate, skill_from
from webapp.game.tune import Tuned, TuneError
from webapp.game.variant import CLASSIC, Variant
from webapp.server.limits.paid_work import Payer
from webapp.server.protocol.vocabulary import ErrorCode
from webapp.server.services.odds import Odds

# The targets the rules dialog offers, in percent: any chance from 0 to 1 is accepted,
# but 0% and 100% ask for a match nobody wants.
PAGE_TARGET_PERCENT = (1, 99)

# What a target replaces: the rules come from the tune, and an HP match it must be.
NOT_WITH_TARGET = ("preset", "rules", "human_hp", "ai_hp")


def target_of(fields: dict[str, Any]) -> float | None:
    """The target a ``new_match`` payload asks for, or None; refuses (``bad_setting``,
    ``field`` "target") one beside rules of its own or a mode other than adaptive, and one
    that is not a chance from 0 to 1."""
    target = fields.get("target")
    if target is None:
        return None
    if fields.get("mode", "adaptive") != "adaptive":
        raise MatchError(ErrorCode.BAD_SETTING, "a target is for an HP match", field="target")
    given = [name for name in NOT_WITH_TARGET if name in fields]
    if given:
        raise MatchError(
            ErrorCode.BAD_SETTING,
            f"a target chooses the rules itself: send it without {', '.join(given)}",
            field="target",
        )
    if not 0 <= target <= 1:
        raise MatchError(
            ErrorCode.BAD_SETTING,
            f"a target must be a chance from 0 to 1, got {target!r}",
            field="target",
        )
    return float(target)


def tuned_for(
    odds: Odds,
    connection: Payer | str,
    target: float,
    entries: Iterable[Entry],
    variant: Variant = CLASSIC,
) -> tuple[Tuned, SkillEstimate]:
    """The rules on ``variant`` for ``target`` and the skill estimate from ``entries``
    they were found for, on ``connection``'s budget of odds work."""
    try:
        return odds.for_target(connection, target, lambda: skill_from(entries), variant)
    except TuneError as err:  # checked above: kept for a caller that did not check
        raise MatchError(ErrorCode.BAD_SETTING, err.message, field="target") from None


def promise_of(tuned: Tuned, estimate: SkillEstimate) -> Promise:
    """What a match under the rules found promises."""
    skill = estimate.to_dict()
    return Promise(
        target=tuned.target,
        chance=tuned.chance,
        reachable=tuned.reachable,
        skill=skill["skill"],
        low=skill["low"],
        high=skill["high"],
        moves=estimate.moves,
        measured=estimate.measured,
    )


def tuned_answer(tuned: Tuned, estimate: SkillEstimate) -> dict[str, Any]:
    """The ``tuned`` field of ``new_match``'s ack: the rules found and their exact odds
    (``Tuned.to_dict``), and the skill estimate they are for."""
    return {**tuned.to_dict(), "skill": estimate.to_dict()}


def figures(entries: list[Entry]) -> dict[str, Any]:
    """What History shows beside the games: the player's skill estimate, and the
    calibration of their targeted matches' promises."""
    return {
        "skill": skill_from(entries).to_dict(),
        "calibration": calibration_of(entries).to_dict(),
    }
