"""Pictures name players by their display names, never by their Discord ids."""

from __future__ import annotations

from typing import Any

from bot.core.records import Match, Seat
from bot.games.cityscape import ENGINE
from bot.ui.game import display_names, rename_players


def _match() -> Match:
    seats = [Seat("123456789012345678", "Alex"), Seat("223456789012345678", "Alex"),
             Seat("cpu1", "Ada (computer)")]
    match = Match(id=1, guild_id=1, channel_id=1, game="cityscape", status="active",
                  host_id=seats[0].id, seats=seats, options={}, seed=1)
    match.state = ENGINE.new([s.id for s in seats], {}, 1)
    return match


def test_duplicate_display_names_are_told_apart() -> None:
    assert list(display_names(_match()).values()) == ["Alex", "Alex (2)", "Ada (computer)"]


def test_the_view_a_renderer_gets_has_names_not_ids() -> None:
    match = _match()
    assert match.state is not None
    view = rename_players(ENGINE.view(match.state, None), display_names(match))
    text = repr(view)
    assert "123456789012345678" not in text and "cpu1" not in text
    assert view["sides"] == {"S": "Alex", "W": "Alex (2)", "N": "Ada (computer)"}
    assert view["scores"] == {"Alex": 0, "Alex (2)": 0, "Ada (computer)": 0}
    assert view["lots"]["A1"] == []  # lots and sides are left alone


def _renamed_as_specified(value: Any, names: dict[str, str]) -> Any:
    """rename_players as its docstring says it, written plainly (the fast one must agree)."""
    if isinstance(value, dict):
        return {names.get(k, k) if isinstance(k, str) else k: _renamed_as_specified(v, names)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed_as_specified(v, names) for v in value]
    if isinstance(value, str):
        return names.get(value, value)
    return value


def test_every_games_views_are_renamed_as_specified_and_copied() -> None:
    """Whole computer games of every game: every public view renamed the same as the plain
    recursion does, and a copy (drawing may not change the match's view)."""
    from bot.games import GAMES

    class Text(str):
        pass

    ids = ["123456789012345678", "223456789012345678", "cpu1"]
    names = {ids[0]: "Alex", ids[1]: "Alex (2)", ids[2]: "Ada (computer)"}
    odd = {ids[0]: (ids[1], 3), 7: [None, True, 1.5, Text(ids[2]), {Text(ids[1]): ids[0]}]}
    assert rename_players(odd, names) == _renamed_as_specified(odd, names) == {
        "Alex": (ids[1], 3), 7: [None, True, 1.5, "Ada (computer)", {"Alex (2)": "Alex"}]}
    checked = 0
    for game in GAMES.values():
        state = game.engine.new(ids, {}, 4)
        while game.engine.result(state) is None and checked < 4000:
            view = game.engine.view(state, None)
            renamed = rename_players(view, names)
            assert renamed == _renamed_as_specified(view, names)
            assert ids[0] not in repr(renamed)
            if isinstance(renamed, dict) and renamed:
                renamed.clear()
                assert view, "the view itself is left as it was"
            player = game.engine.to_act(state)[0]
            state, _events = game.engine.apply(state, player, game.computer.normal(state, player))
            checked += 1
    assert checked > 200
