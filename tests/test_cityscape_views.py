"""The typed views of Cityscape (bot/games/cityscape/views.py) say exactly what the engine
builds: seeded computer games, checked at every step for every viewer, with every event and
move, so an engine change the types miss fails here; and the cog reads only through them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from bot.core.levels import EASY, HARD, NORMAL, Budget, decide
from bot.games.cityscape import ENGINE, GAME
from bot.games.cityscape import views as cv
from bot.games.cityscape.engine import _open_sides
from tests.computer_games import Step, played
from tests.scripts import load_script
from tests.typed_views import fields, mismatches

JSON = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent

GAMES = [  # players, seed, options: two players own two sides each; three and four one
    (["a", "b"], 1, {"rounds": 2}),
    (["a", "b", "c"], 2, {"rounds": 2}),
    (["a", "b", "c", "d"], 3, {"rounds": 1, "first_player": "c"}),
]


def kinds(union: Any) -> set[str]:
    """The ``type`` values a union of TypedDicts (``Event``, ``Move``) tells apart."""
    return {get_args(fields(member)["type"])[0] for member in get_args(union)}


def test_the_checker_catches_a_missing_an_extra_and_a_wrong_key() -> None:
    built = {"type": "built", "player": "a", "height": 3, "lot": "B2", "building": 5}
    assert mismatches(built, cv.Built) == []
    assert mismatches(built, cv.Event) == []
    assert mismatches({**built, "side": "S"}, cv.Built) == ["view: Built has no key 'side'"]
    assert mismatches({k: v for k, v in built.items() if k != "lot"}, cv.Built) == [
        "view: Built lacks 'lot'"]
    assert mismatches({**built, "height": True}, cv.Built) == [
        "view.height: True is a bool, not a int"]
    assert mismatches({**built, "type": "build"}, cv.Event)
    assert mismatches({"type": "set_goals", "side": "X", "codes": [1, 2, 3, 4]}, cv.GoalsMove) == [
        "view.side: 'X' is not one of ('S', 'W', 'N', 'E')"]


MY_GOALS = fields(cv.CityscapePlayerView)["my_goals"]
"""The only key a player's view adds (checked below): its other keys are the public view's."""


def test_a_player_view_adds_only_their_goals() -> None:
    public = cv.CityscapeView.__required_keys__
    assert cv.CityscapePlayerView.__required_keys__ == public
    assert cv.CityscapePlayerView.__optional_keys__ == {"winners", "my_goals"}
    assert cv.CityscapeView.__optional_keys__ == {"winners"}


def leveled(players: list[str], levels: list[str], seed: int, options: JSON) -> Iterator[Step]:
    """Every step of a seeded game whose seats play the given computer levels, the setup
    first."""
    state = ENGINE.new(players, options, seed)
    yield Step(None, [], state)
    level_of = dict(zip(players, levels, strict=True))
    while ENGINE.result(state) is None:
        player = ENGINE.to_act(state)[0]
        action = decide(GAME.computer, state, player, level_of[player])
        state, events = ENGINE.apply(state, player, action)
        yield Step(action, list(events), state)


def check_every_step(steps: Iterator[Step] | list[Step], players: list[str],
                     seen: dict[str, set[str]]) -> None:
    for number, step in enumerate(steps):
        where, state = f"step {number}", step.state
        public = cv.table(state)
        assert public == ENGINE.view(state, None)  # the engine's own view, untouched
        assert cv.as_json(public) is public
        assert mismatches(public, cv.CityscapeView, where) == []
        assert ("winners" in public) == (public["phase"] == "over")
        for viewer in [*players, "not seated"]:
            mine = cv.seen_by(state, viewer)
            assert mine == ENGINE.view(state, viewer)
            # the public part is the public view, checked above; then the viewer's own key
            assert {k: v for k, v in mine.items() if k != "my_goals"} == public
            assert ("my_goals" in mine) == (public["phase"] != "over")
            owing = cv.owing_goals(public, viewer)
            assert owing == _open_sides(state, viewer)  # the engine's own answer
            if "my_goals" in mine:
                assert mismatches(mine["my_goals"], MY_GOALS, f"{where}, {viewer}'s my_goals") == []
                # a side's codes are set (and shown to its owner) or owed, never both
                own = {side for side, owner in public["sides"].items() if owner == viewer}
                assert set(mine["my_goals"]) == own - set(owing)
        reported = cv.events(step.events)
        assert reported is step.events
        for event in reported:
            assert mismatches(event, cv.Event, f"{where}'s event") == []
            seen["event"].add(event["type"])
        if step.action is not None:
            assert mismatches(cv.move(step.action), cv.Move, f"{where}'s move") == []
            seen["move"].add(step.action["type"])
        seen["phase"].add(public["phase"])


@pytest.mark.parametrize(("players", "seed", "options"), GAMES)
def test_the_views_events_and_moves_are_what_the_types_say(players: list[str], seed: int,
                                                           options: JSON) -> None:
    seen: dict[str, set[str]] = {"phase": set(), "event": set(), "move": set()}
    check_every_step(played("cityscape", players, seed, options), players, seen)
    assert seen["phase"] == set(get_args(cv.Phase))
    one_round = options.get("rounds") == 1
    assert seen["event"] == kinds(cv.Event) - ({"round_started"} if one_round else set())
    assert seen["move"] == kinds(cv.Move)


def test_every_level_moves_as_the_types_say() -> None:
    """Easy and normal seats play a game; hard, whose search plays rounds out and would be
    slow here, builds each of the round's last blocks (its goals leave in the same dict as
    easy's)."""
    players = ["a", "b", "c"]
    seen: dict[str, set[str]] = {"phase": set(), "event": set(), "move": set()}
    steps = list(leveled(players, [EASY, NORMAL, EASY], 4, {"rounds": 1}))
    check_every_step(steps, players, seen)
    assert seen["move"] == kinds(cv.Move)
    late = [step.state for step in steps if (view := cv.table(step.state))["phase"] == "building"
            and view["placed"] >= 22]
    assert late
    for state in late:
        player = ENGINE.to_act(state)[0]
        action = decide(GAME.computer, state, player, HARD, Budget(iterations=1))
        assert mismatches(cv.move(action), cv.BuildMove, "hard's build") == []


def test_the_cog_reads_the_engine_only_through_the_typed_views() -> None:
    raw_reads = load_script("check_cog_reads").raw_reads
    for path in sorted((ROOT / "cogs" / "cityscape").glob("*.py")):
        assert raw_reads(path) == []
