"""The typed views of Cities (bot/games/cities/views.py) say exactly what the engine builds:
seeded computer games, checked at every step, so an engine change the types miss fails here."""

from __future__ import annotations

import functools
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from bot.games.cities import ENGINE
from bot.games.cities import views as cv
from tests.computer_games import played

GAMES = [  # players, seed, options: two to four players, the long variant, several cities
    (["a", "b"], 1, {}), (["a", "b"], 2, {"variant": "3x5"}), (["a", "b", "c"], 3, {}),
    (["a", "b", "c", "d"], 5, {"city": "Lisbon"}),
]


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
    if hint in (str, int, bool):
        # exactly: a bool is no int here, as JSON tells true from 1
        return [] if type(value) is hint else [
            f"{where}: {value!r:.80} is a {type(value).__name__}, not a {hint.__name__}"]
    raise AssertionError(f"{where}: the test cannot check {hint!r}")


def test_the_checker_catches_a_missing_an_extra_and_a_wrong_key() -> None:
    card = {"id": "K01", "name": "Red Tower", "vp": 3, "text": "…", "counting": "…"}
    assert mismatches(card, cv.CardView) == []
    assert mismatches({**card, "extra": 1}, cv.CardView) == ["view: CardView has no key 'extra'"]
    assert mismatches({k: v for k, v in card.items() if k != "vp"}, cv.CardView) == [
        "view: CardView lacks 'vp'"]
    assert mismatches({**card, "vp": True}, cv.CardView) == [
        "view.vp: True is a bool, not a int"]
    assert mismatches({"id": "F01", "background": "water", "kind": "Ferry"}, cv.FeatureView) == []
    assert mismatches({"player": "a", "row": "cards", "items": []}, cv.Placing)


@pytest.mark.parametrize(("players", "seed", "options"), GAMES)
def test_the_view_is_what_the_types_say_at_every_step(players: list[str], seed: int,
                                                      options: dict[str, Any]) -> None:
    seen_phases: set[str] = set()
    seen_pending: set[str] = set()
    for number, step in enumerate(played("cities", players, seed, options)):
        state = step.state
        view = cv.table(state)
        assert view == ENGINE.view(state, None)  # the engine's own view, untouched
        where = f"step {number}"
        assert mismatches(view, cv.CitiesView, where) == []
        assert mismatches(cv.placing(state), cv.Placing | None, f"{where} placing") == []
        assert cv.phase_of(state) == view["phase"]
        for player in players:
            assert cv.has_neighbourhood(state, player) == (player in view["neighbourhoods"])
        pending, placing = view["pending"], cv.placing(state)
        assert (pending is None) == (placing is None)
        if pending is not None and placing is not None:
            assert (pending["player"], pending["row"]) == (placing["player"], placing["row"])
            seen_pending.add(pending["row"])
        seen_phases.add(view["phase"])
    assert seen_phases == {"start_tiles", "play", "over"}
    assert seen_pending == {"tiles", "features", "pieces"}
