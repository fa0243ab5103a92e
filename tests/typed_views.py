"""Checking a game's typed views (``bot/games/<game>/views.py``) against what its engine
really builds: the views tests of every game share this checker."""

from __future__ import annotations

import functools
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict


@functools.cache
def fields(typed: Any) -> dict[str, Any]:
    """A TypedDict's keys and their types (``NotRequired`` stripped), worked out once."""
    return get_type_hints(typed)


def mismatches(value: Any, hint: Any, where: str = "view") -> list[str]:
    """Where ``value`` is not what ``hint`` declares: a TypedDict's keys (required and
    optional) exactly, and every value's type, down to the leaves."""
    origin = get_origin(hint)
    if is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not a {hint.__name__}"]
        hints = fields(hint)
        required, optional = hint.__required_keys__, hint.__optional_keys__
        found = [f"{where}: {hint.__name__} lacks {key!r}" for key in sorted(required - set(value))]
        found += [f"{where}: {hint.__name__} has no key {key!r}"
                  for key in sorted(set(value) - required - optional)]
        for key in sorted(set(value) & set(hints)):
            found += mismatches(value[key], hints[key], f"{where}.{key}")
        return found
    if origin in (Union, types.UnionType):
        tries = [mismatches(value, member, where) for member in get_args(hint)]
        return [] if any(not t for t in tries) else [
            f"{where}: {value!r:.80} is none of {hint}", *min(tries, key=len)]
    if origin is Literal:
        ok = any(type(value) is type(a) and value == a for a in get_args(hint))
        return [] if ok else [f"{where}: {value!r} is not one of {get_args(hint)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        (item,) = get_args(hint)
        return [m for i, v in enumerate(value) for m in mismatches(v, item, f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not a dict"]
        key_hint, value_hint = get_args(hint)
        return [m for k, v in value.items()
                for m in mismatches(k, key_hint, f"{where} key") + mismatches(
                    v, value_hint, f"{where}[{k!r}]")]
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r:.80} is not None"]
    if hint in (str, int, float, bool):
        # exactly: a bool is no int and an int no float here, as JSON tells true from 1
        # and the data files write every float with its point
        return [] if type(value) is hint else [
            f"{where}: {value!r:.80} is a {type(value).__name__}, not a {hint.__name__}"]
    raise AssertionError(f"{where}: the test cannot check {hint!r}")


def checked_views(views: Any, engine: Any, state: dict[str, Any], players: list[str],
                  table_type: Any, player_type: Any,
                  where: str) -> tuple[Any, dict[str, Any]]:
    """A state's typed public view (``views.table``) and each player's (``views.seen_by``),
    checked: they are the engine's own views untouched, the table has exactly the keys and
    types ``table_type`` declares, and each player's view is the table plus exactly the keys
    ``player_type`` adds, of their types. Returns (table, {player: their view})."""
    public = views.table(state)
    assert public == engine.view(state, None)  # the engine's own view, untouched
    assert views.as_json(public) is public
    assert mismatches(public, table_type, where) == []
    public_keys = table_type.__required_keys__ | table_type.__optional_keys__
    own = {key: hint for key, hint in fields(player_type).items() if key not in public_keys}
    theirs: dict[str, Any] = {}
    for player in players:
        mine = views.seen_by(state, player)
        engines = engine.view(state, player)
        # the public part is the public view, checked above; then the player's own keys
        assert {k: v for k, v in engines.items() if k in public_keys} == public
        assert set(engines) - public_keys == set(own)
        for key, hint in own.items():
            assert mismatches(engines[key], hint, f"{where}, {player}'s {key}") == []
        assert mine == engines  # the engine's own view, untouched
        theirs[player] = mine
    return public, theirs
