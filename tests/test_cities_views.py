"""The typed views of Cities (bot/games/cities/views.py) say exactly what the engine builds:
seeded computer games, checked at every step, so an engine change the types miss fails here."""

from __future__ import annotations

from typing import Any

import pytest

from bot.games.cities import ENGINE
from bot.games.cities import views as cv
from tests.computer_games import played
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
