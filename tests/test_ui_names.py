"""Pictures name players by their display names, never by their Discord ids."""

from __future__ import annotations

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
