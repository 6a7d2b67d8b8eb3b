"""The HP match's rules: the modes, the HP mechanic's numbers and bounds, the presets.

In adaptive mode both sides have hit points, and each game's result costs or heals some
(``Rules``); the fixed modes each play one strategy (``FIXED_STRATEGIES``) and keep only a
win/loss/draw record. A rule set is refused unless every match under it ends within
``MAX_GAMES`` games and passes through at most ``MAX_STATES`` HP states, which bounds the
work of its odds (game/odds.py); the states are counted before any walk.

The rules carry the variant played (variant.py), classic unless said; classic rules
write no variant in their data, so they read and write as before variants came.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, cast, get_args

from .board import RuleError
from .variant import CLASSIC, Variant, variant_named

Mode = Literal["adaptive", "easy", "medium", "hard", "impossible"]
MODES: tuple[Mode, ...] = get_args(Mode)

# The strategy each fixed mode plays; its moves are recorded under the same name.
FIXED_STRATEGIES: dict[str, str] = {
    "easy": "random",
    "medium": "heuristic",
    "hard": "lookahead",
    "impossible": "perfect",
}

# On every other variant a fixed level rolls as an HP match does, at a fixed chance in
# percent of the perfect move (else a random one); impossible stays perfect. Easy moves
# at random, as on classic; medium and hard are set so that a perfect player beats them
# about as often as the classic medium (19% of games) and hard (0%, so: the chance at
# which it falls to about 2%) from a start the AI can hold (bench/levels.py, docs/levels.md).
VARIANT_LEVELS: dict[str, dict[str, int]] = {
    "misere": {"easy": 0, "medium": 90, "hard": 99},
    "4x4k3": {"easy": 0, "medium": 80, "hard": 97},
    "4x4k4": {"easy": 0, "medium": 70, "hard": 95},
    "notakto1": {"easy": 0, "medium": 90, "hard": 99},
    "notakto2": {"easy": 0, "medium": 93, "hard": 99},
    "notakto3": {"easy": 0, "medium": 94, "hard": 99},
}


def level_difficulty(variant: Variant, mode: str) -> int | None:
    """The fixed chance of a perfect move that ``mode`` plays on ``variant``, or None
    where the mode plays its strategy (every mode on classic, impossible everywhere)."""
    return VARIANT_LEVELS.get(variant.name, {}).get(mode)


class MatchError(RuleError):
    """An illegal match transition or setting, with a ``code`` stable for clients.

    ``field`` names the rule a refused setting is about; ``fields`` the rules refused
    together, where no one of them is at fault alone.
    """

    def __init__(
        self, code: str, message: str, *, field: str | None = None, fields: tuple[str, ...] = ()
    ) -> None:
        super().__init__(code, message)
        self.field = field
        self.fields = fields


@dataclass(frozen=True)
class RuleField:
    """One number of the HP rules: its field, its command-line flag, its words and range.

    ``low`` and ``high`` bound it; a ``high`` of None means up to ``max_hp``.
    """

    name: str
    flag: str
    label: str
    low: int
    high: int | None


MAX_HP_LIMIT = 1000
RULE_FIELDS: tuple[RuleField, ...] = (
    RuleField("max_hp", "--max-hp", "the most HP either side can have", 1, MAX_HP_LIMIT),
    RuleField("start_human_hp", "--human-hp", "your starting HP", 1, None),
    RuleField("start_ai_hp", "--ai-hp", "the AI's starting HP", 1, None),
    RuleField("human_win_human_heal", "--heal-on-win", "HP you heal when you win", 0, None),
    RuleField("human_win_ai_damage", "--ai-damage-on-win", "HP the AI loses when you win", 1, None),
    RuleField("ai_win_human_damage", "--damage-on-loss", "HP you lose when the AI wins", 1, None),
    RuleField("draw_human_damage", "--damage-on-draw", "HP you lose on a draw", 0, None),
    RuleField("draw_ai_damage", "--ai-damage-on-draw", "HP the AI loses on a draw", 0, None),
)


@dataclass(frozen=True)
class Rules:
    """Every number of the HP mechanic in one place; defaults follow the original game.

    Each is checked when the rules are made (``RULE_FIELDS`` gives the ranges), and every
    game must change some HP, so that every match ends: a win and a loss always do, and
    a draw must cost at least one side something.
    """

    start_human_hp: int = 100
    start_ai_hp: int = 100
    max_hp: int = 100
    human_win_ai_damage: int = 10
    human_win_human_heal: int = 10
    ai_win_human_damage: int = 34
    draw_ai_damage: int = 2
    draw_human_damage: int = 10
    lookahead_depth: int = 2
    variant: Variant = CLASSIC

    def __post_init__(self) -> None:
        for rule in RULE_FIELDS:
            value = getattr(self, rule.name)
            high = self.max_hp if rule.high is None else rule.high
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not rule.low <= value <= high
            ):
                raise MatchError(
                    "bad_setting",
                    f"{rule.label} must be an integer from {rule.low} to {high}, got {value!r}",
                    field=rule.name,
                )
        if self.draw_human_damage == 0 and self.draw_ai_damage == 0:
            raise MatchError(
                "bad_setting",
                "a draw must cost you or the AI at least 1 HP, or a match could go on for ever",
                fields=("draw_human_damage", "draw_ai_damage"),
            )
        if not 1 <= self.lookahead_depth <= 9:
            raise MatchError("bad_setting", "lookahead_depth must be from 1 to 9")
        if not isinstance(self.variant, Variant):
            raise MatchError("bad_setting", f"not a variant: {self.variant!r}", field="variant")
        if self.variant != CLASSIC and self.lookahead_depth != Rules.lookahead_depth:
            raise MatchError(
                "classic_only",
                "lookahead_depth is the classic hard level's; on"
                f" {self.variant.name} the levels roll against a chance instead",
                field="lookahead_depth",
            )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """The rules that ``to_dict`` wrote: classic when no variant is named."""
        numbers = {name: value for name, value in data.items() if name != "variant"}
        if "variant" not in data:
            return cls(**numbers)
        return cls(**numbers, variant=variant_named(data["variant"]))

    def to_dict(self) -> dict[str, Any]:
        """As JSON-compatible data, in the order of the fields; the variant's name only
        when it is not classic."""
        named = {} if self.variant == CLASSIC else {"variant": self.variant.name}
        return {
            "start_human_hp": self.start_human_hp,
            "start_ai_hp": self.start_ai_hp,
            "max_hp": self.max_hp,
            "human_win_ai_damage": self.human_win_ai_damage,
            "human_win_human_heal": self.human_win_human_heal,
            "ai_win_human_damage": self.ai_win_human_damage,
            "draw_ai_damage": self.draw_ai_damage,
            "draw_human_damage": self.draw_human_damage,
            "lookahead_depth": self.lookahead_depth,
            **named,
        }


# Named rule sets, each tuned with game/odds.py to keep a promise (tests check them):
# classic is the original game; gentle lets a player who moves at random win at least 5%
# of matches; fair lets a perfect player win at least 99% and a random one under 1%;
# brutal lets even a perfect player win at most 60%.
PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "gentle": Rules(human_win_ai_damage=20, ai_win_human_damage=20, draw_human_damage=5),
    "fair": Rules(draw_human_damage=5),
    "brutal": Rules(draw_human_damage=15),
}


MAX_GAMES = 100  # the longest a match may possibly last under rules a player chooses
# The most (player HP, AI HP) states a match may pass through: it bounds the work of
# finding the longest match and of the exact odds (game/odds.py); the hardest rule set a
# search found takes about 5 ms of CPU per player (bench/odds.py, docs/performance.md).
MAX_STATES = 5000
PAUSE_EVERY = 256  # states walked between two calls of a caller's ``pause``


Pause = Callable[[], object]
"""Called now and then by long walks, so that a server can let others run meanwhile."""


class TooManyStates(MatchError):
    """Rules whose matches pass through more than ``MAX_STATES`` HP states."""


def no_pause() -> None:
    """Pause for no one: what a walk does unless its caller says otherwise."""


def reachable_rows(rules: Rules) -> list[int]:
    """The (player HP, AI HP) states a match under ``rules`` can pass through, as rows.

    One int per AI HP (index), bit ``h`` set for each player HP ``h`` reachable with it.

    A loss (and a draw that costs the AI nothing) keeps the AI's HP and lowers the
    player's, so a row is closed under those shifts down; a win moves a row to a lower
    AI HP, shifted up by the heal and capped at the maximum, and a draw that costs the AI
    something shifts it down to another row. The AI's HP never rises (the checks in
    ``Rules``), so the rows are done from the start's AI HP down, each complete before it
    moves on: a few operations on ints per AI HP, however many states there are.
    """
    top, heal = rules.max_hp, rules.human_win_human_heal
    win_damage, draw_ai = rules.human_win_ai_damage, rules.draw_ai_damage
    alive = (1 << (top + 1)) - 2  # player HPs 1..top
    rows = [0] * (rules.start_ai_hp + 1)
    rows[rules.start_ai_hp] = 1 << rules.start_human_hp
    same_row = [rules.ai_win_human_damage]
    if draw_ai == 0:
        same_row.append(rules.draw_human_damage)
    for ai in range(rules.start_ai_hp, 0, -1):
        row = rows[ai]
        if not row:
            continue
        for shift in same_row:
            row = _closed(row, shift, top)
        row = rows[ai] = row & alive
        if ai > win_damage:
            healed = row << heal
            if healed >> (top + 1):  # some heals stop at the maximum HP
                healed = (healed & alive) | (1 << top)
            rows[ai - win_damage] |= healed
        if 0 < draw_ai < ai:
            rows[ai - draw_ai] |= (row >> rules.draw_human_damage) & alive
    return rows


def _closed(row: int, shift: int, top: int) -> int:
    """``row`` with each bit also moved down by every multiple of ``shift``: the span
    doubles each time, so it takes about log2(top / shift) steps."""
    span = shift
    while span <= top:
        row |= row >> span
        span *= 2
    return row


@lru_cache(maxsize=4096)
def count_states(rules: Rules) -> int:
    """How many (player HP, AI HP) states a match under ``rules`` can pass through.

    They are counted without visiting them (``reachable_rows``): a rule set with too many
    costs about a millisecond to refuse, and one asked again nothing.
    """
    return sum(row.bit_count() for row in reachable_rows(rules))


def _player_hps(row: int) -> Iterator[int]:
    """The player HPs of a row, lowest first."""
    while row:
        low = row & -row
        yield low.bit_length() - 1
        row ^= low


@lru_cache(maxsize=1024)
def longest_match(rules: Rules, *, pause: Pause = no_pause) -> int:
    """The most games a match under ``rules`` can last, whatever happens in each game.

    Over the reachable states only, from the lowest AI HP up and, in each, the lowest
    player HP up: every state a game leads to is done before the state itself.
    """
    top, heal = rules.max_hp, rules.human_win_human_heal
    win_damage, loss_damage = rules.human_win_ai_damage, rules.ai_win_human_damage
    draw_human, draw_ai = rules.draw_human_damage, rules.draw_ai_damage
    rows = reachable_rows(rules)
    longest: list[dict[int, int]] = [{} for _ in rows]
    done = 0
    for ai, row in enumerate(rows):
        here = longest[ai]
        for human in _player_hps(row):
            most = 0
            if ai > win_damage:
                most = longest[ai - win_damage][min(top, human + heal)]
            if human > loss_damage:
                most = max(most, here[human - loss_damage])
            if human > draw_human and ai > draw_ai:
                most = max(most, longest[ai - draw_ai][human - draw_human])
            here[human] = most + 1
            done += 1
            if done % PAUSE_EVERY == 0:
                pause()
    return longest[rules.start_ai_hp][rules.start_human_hp]


def rules_from(
    preset: str = "classic",
    *,
    pause: Pause = no_pause,
    variant: Variant = CLASSIC,
    **numbers: object,
) -> Rules:
    """A preset's rules on ``variant`` with some numbers changed (None leaves one as it
    is), if bounded.

    Refused if a match under them could pass through over ``MAX_STATES`` HP states
    (counted first, without walking them) or last over ``MAX_GAMES`` games. ``pause`` is
    called now and then during that check.
    """
    if preset not in PRESETS:
        names = ", ".join(PRESETS)
        raise MatchError("bad_setting", f"preset must be one of {names}, got {preset!r}")
    known = {rule.name for rule in RULE_FIELDS}
    unknown = sorted(set(numbers) - known)
    if unknown:
        raise MatchError("bad_setting", f"unknown rule {unknown[0]!r}: use {', '.join(known)}")
    changes = {name: value for name, value in numbers.items() if value is not None}
    rules = dataclasses.replace(PRESETS[preset], variant=variant, **cast(dict[str, Any], changes))
    if count_states(rules) > MAX_STATES:
        raise TooManyStates(
            "bad_setting",
            f"under these rules a match could pass through more than {MAX_STATES}"
            " different HP states, too many to work out its odds: raise a damage or"
            " lower the most HP",
        )
    games = longest_match(rules, pause=pause)
    if games > MAX_GAMES:
        raise MatchError(
            "bad_setting",
            f"under these rules a match could last {games} games, and at most {MAX_GAMES}"
            " are allowed: raise a damage or lower a heal",
        )
    return rules
