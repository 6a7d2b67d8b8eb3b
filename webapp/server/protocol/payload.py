"""An event's payload checked against the protocol: its size, its fields and their types,
and the rules a ``new_match`` or ``odds`` payload asks for.

Each event's fields are protocol/vocabulary.py's ``FIELDS``; a payload that breaks them is refused
``bad_payload`` (docs/protocol.md) before any handler runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from math import isfinite
from typing import Any, cast

import orjson

from webapp.game.board import RuleError
from webapp.game.rules import RULE_FIELDS, MatchError, Pause, Rules, no_pause, rules_from
from webapp.game.variant import CLASSIC, Variant, variant_named
from webapp.server.protocol.vocabulary import FIELDS, BadPayload, Event, Kind


def payload_object(payload: object, event: Event) -> dict[str, Any]:
    """The payload as a dict of ``event``'s fields, each of its one type; nothing at all
    means ``{}``, and a ``null`` that means absent is left out."""
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise BadPayload(f"the payload must be a JSON object, got {type(payload).__name__}")
    fields = FIELDS[event]
    unknown = sorted(str(key) for key in payload if key not in fields)
    if unknown:
        raise BadPayload(f"unknown field(s): {', '.join(unknown)}")
    given = {k: v for k, v in payload.items() if v is not None or not fields[k].null_is_absent}
    for name, value in given.items():
        check_field(name, value, fields[name].kind)
    return given


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_TYPE_OF: dict[Kind, Callable[[object], bool]] = {
    Kind.INTEGER: _is_integer,
    Kind.STRING: lambda value: isinstance(value, str),
    Kind.BOOLEAN: lambda value: isinstance(value, bool),
    Kind.RULES: lambda value: isinstance(value, dict),
    Kind.NUMBER: lambda value: _is_integer(value) or (isinstance(value, float) and isfinite(value)),
}
_WORDS = {
    Kind.INTEGER: "an integer",
    Kind.STRING: "a string",
    Kind.BOOLEAN: "true or false",
    Kind.RULES: "an object of rule names and integers",
    Kind.NUMBER: "a number",
}
_RULE_LABELS = {rule.name: rule.label for rule in RULE_FIELDS}


def check_field(name: str, value: object, kind: Kind) -> None:
    """Refuse (``bad_payload``) a field that is not of its kind; a rule names itself."""
    if not _TYPE_OF[kind](value):
        raise BadPayload(f"{name} must be {_WORDS[kind]}, got {_shown(value)}")
    if kind is Kind.RULES:
        for rule, number in cast(dict[str, object], value).items():
            if not _is_integer(number):
                label = _RULE_LABELS.get(rule, f"rule {rule!r}")
                raise BadPayload(f"{label} must be an integer, got {_shown(number)}", field=rule)


def _shown(value: object) -> str:
    """A refused value in an error message: JSON's words, and never very long."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def payload_size(payload: object) -> int:
    """The payload's size as compact UTF-8 JSON, as a client would have sent it."""
    try:
        return len(orjson.dumps(payload))
    except TypeError:  # an integer over 64 bits, a lone surrogate: the slower way
        pass
    try:
        return len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError):  # not JSON at all: count it as too large
        return 1 << 30


def variant_payload(fields: dict[str, Any]) -> Variant | None:
    """The rule set a payload names under ``variant``, if any; an unknown name is a bad
    payload (``field`` "variant")."""
    if "variant" not in fields:
        return None
    try:
        return variant_named(fields["variant"])
    except RuleError as err:
        raise BadPayload(err.message, field="variant") from err


def variant_or_classic(fields: dict[str, Any]) -> Variant:
    """The rule set a payload names under ``variant``, classic when it names none."""
    return variant_payload(fields) or CLASSIC


def rules_payload(fields: dict[str, Any], pause: Pause = no_pause) -> Rules:
    """The rules a ``new_match`` or ``odds`` payload asks for: a preset, some numbers
    changed (``human_hp`` and ``ai_hp`` are the starting HP's short names), on the
    ``variant`` named (classic when none is); ``pause`` lets others run during the check."""
    preset = fields.get("preset", "classic")  # the types were checked with the payload
    short = {"start_human_hp": "human_hp", "start_ai_hp": "ai_hp"}
    changes = {**fields.get("rules", {}), **{k: fields[v] for k, v in short.items() if v in fields}}
    if "pause" in changes:  # a keyword of rules_from, not a rule
        raise MatchError("bad_setting", "unknown rule 'pause'")
    variant = variant_payload(fields) or CLASSIC
    return rules_from(preset, pause=pause, variant=variant, **changes)
