"""The typed views of Cities (bot/games/cities/views.py) say exactly what the engine builds:
seeded computer games, checked at every step, so an engine change the types miss fails here."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, get_args, get_type_hints

import pytest

from bot.core.engine import JSON
from bot.games import GAMES as REGISTRY
from bot.games.cities import ENGINE
from bot.games.cities import views as cv
from tests.computer_games import Step, mixed_move, played
from tests.typed_views import mismatches

GAMES = [  # players, seed, options: two to four players, the long variant, several cities
    (["a", "b"], 1, {}), (["a", "b"], 2, {"variant": "3x5"}), (["a", "b", "c"], 3, {}),
    (["a", "b", "c", "d"], 5, {"city": "Lisbon"}),
]


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


def type_tags(union: Any) -> set[str]:
    """The ``type`` values of a union of TypedDicts told apart by ``type``."""
    return {tag for member in get_args(union)
            for tag in get_args(get_type_hints(member)["type"])}


def check_moves_and_events(number: int, step: Step, seen_events: set[str],
                           seen_moves: set[str]) -> None:
    """A step's move and events, and every legal move after it, are exactly what
    ``cv.Move`` and ``cv.Event`` say; the readers hand back the same objects."""
    where = f"step {number}"
    if step.action is not None:
        assert cv.move_of(step.action) is step.action
        assert mismatches(step.action, cv.Move, f"{where} move") == []
        seen_moves.add(step.action["type"])
    assert cv.events(step.events) is step.events
    for i, event in enumerate(step.events):
        assert mismatches(event, cv.Event, f"{where} event {i}") == []
        seen_events.add(event["type"])
    for player in ENGINE.to_act(step.state):
        legal = [la.action for la in ENGINE.legal(step.state, player)]
        # of each kind the first and the last: a placement's list has dozens of one shape
        firsts = {a["type"]: a for a in reversed(legal)}
        lasts = {a["type"]: a for a in legal}
        for action in {id(a): a for a in [*firsts.values(), *lasts.values()]}.values():
            assert mismatches(action, cv.Move, f"{where} legal") == []
            if action["type"].startswith("place_"):
                assert mismatches(action, cv.PlaceMove, f"{where} placement") == []
                assert cv.place_move(action) is action
            assert cv.move_of(action) is action
            seen_moves.add(action["type"])


def mixed(players: list[str], seed: int, options: JSON, share: float = 0.3) -> Iterator[Step]:
    """Every step of a seeded game in which the player due makes a random legal move (of a
    random kind) ``share`` of the time, else the computer's move: so features and pieces
    are removed too, which the computer rarely does."""
    rng = random.Random(seed)
    computer = REGISTRY["cities"].computer
    state = ENGINE.new(players, options, seed)
    yield Step(None, [], state)
    while ENGINE.result(state) is None:
        player = ENGINE.to_act(state)[0]
        action = mixed_move(ENGINE, computer, state, player, rng, share)
        state, events = ENGINE.apply(state, player, action)
        yield Step(action, list(events), state)


def test_every_event_and_move_is_what_the_types_say() -> None:
    """Seeded computer games and mixed games: every event reported and every move offered
    or played has exactly the keys and types of its member of ``cv.Event`` / ``cv.Move``,
    and between them the games report every kind of event and offer every kind of move."""
    seen_events: set[str] = set()
    seen_moves: set[str] = set()
    for players, seed, options in GAMES:
        for number, step in enumerate(played("cities", players, seed, options)):
            check_moves_and_events(number, step, seen_events, seen_moves)
        for number, step in enumerate(mixed(players, seed, options)):
            check_moves_and_events(number, step, seen_events, seen_moves)
    assert seen_events == type_tags(cv.Event)
    assert seen_moves == type_tags(cv.Move)
    assert type_tags(cv.PlaceMove) == {"place_tile", "place_feature", "place_piece"}


def test_a_round_s_removed_items_are_told_apart_by_their_keys() -> None:
    assert mismatches({"row": "tiles", "item": "T07"}, cv.RemovedItem | cv.FaceDown) == []
    assert mismatches({"face_down": True}, cv.RemovedItem | cv.FaceDown) == []
    assert mismatches({"row": "tiles"}, cv.RemovedItem | cv.FaceDown)
