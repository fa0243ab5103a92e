"""The shared button base (bot/ui/items.py): a button posted before an upgrade or restart
still reaches the same handler with the same values, and no two handlers claim one id."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.core.records import Match, Seat
from bot.ui.items import GameItem, IdTemplate
from bot.ui.lobby import LobbyButton


def game_items() -> list[type[GameItem[Any]]]:
    import cogs.bigcityz as bigcityz
    import cogs.cityscape as cityscape
    from cogs.bigcity import DYNAMIC_ITEMS as BIGCITY
    from cogs.cities import DYNAMIC_ITEMS as CITIES

    return [cityscape.HeightButton, cityscape.LotButton, cityscape.GoalsButton,
            cityscape.GoalSelect, cityscape.GoalConfirm, bigcityz.PlaceButton,
            bigcityz.PlaceSelect, bigcityz.ActionButton, bigcityz.VetoButton,
            *CITIES, *BIGCITY]


# Ids as the cogs wrote them before the shared base, with what each carries.
EARLIER_IDS = [
    ("ch:cs:7:v12:h3", "cogs.cityscape.components.HeightButton", {"version": 12, "height": 3}),
    ("ch:cs:7:v12:b3B2", "cogs.cityscape.components.LotButton", {"height": 3, "lot": "B2"}),
    ("ch:cs:7:goals", "cogs.cityscape.components.GoalsButton", {}),
    ("ch:cs:7:r2:sN15_3_", "cogs.cityscape.components.GoalSelect",
     {"round": 2, "side": "N", "line": 1, "draft": "5_3_"}),
    ("ch:cs:7:r2:gW1234", "cogs.cityscape.components.GoalConfirm", {"side": "W", "draft": "1234"}),
    ("ch:bz:7:v40:place", "cogs.bigcityz.components.PlaceButton", {"version": 40}),
    ("ch:bz:7:v40:pick", "cogs.bigcityz.components.PlaceSelect", {"version": 40}),
    ("ch:bz:7:v40:a17", "cogs.bigcityz.components.ActionButton", {"index": 17}),
    ("ch:bz:7:c183:noveto", "cogs.bigcityz.components.VetoButton",
     {"stamp": 183, "answer": "noveto"}),
    ("ch:ct:7:v9:a12", "cogs.cities.components.ActButton", {"version": 9, "index": 12}),
    ("ch:ct:7:v9:o1p2", "cogs.cities.components.OpenButton", {"focus": 1, "page": 2}),
    ("ch:ct:7:v9:s0p1", "cogs.cities.components.PlaceSelect", {"focus": 0, "page": 1}),
    ("ch:ct:7:hood", "cogs.cities.components.HoodButton", {}),
    ("ch:ct:7:hoods", "cogs.cities.components.HoodsButton", {}),
    ("ch:bc:7:hand", "cogs.bigcity.components.HandButton", {}),
    ("ch:bc:7:v5:cb", "cogs.bigcity.components.OpenButton",
     {"kind": "v", "num": 5, "code": "b", "arg": None, "page": None}),
    ("ch:bc:7:v5:cs31:p2", "cogs.bigcity.components.OpenButton",
     {"code": "s", "arg": 31, "page": 2}),
    ("ch:bc:7:t4:cr", "cogs.bigcity.components.OpenButton", {"kind": "t", "num": 4}),
    ("ch:bc:7:v5:lk:p0", "cogs.bigcity.components.PickSelect",
     {"code": "k", "arg": None, "page": 0}),
    ("ch:bc:7:v5:gn:p1", "cogs.bigcity.components.GroupSelect", {"page": 1}),
    ("ch:bc:7:t4:mr", "cogs.bigcity.components.CardSelect", {"kind": "t", "code": "r"}),
    ("ch:bc:7:v5:a120", "cogs.bigcity.components.ActionButton", {"index": 120}),
]


@pytest.mark.parametrize(("custom_id", "handler", "values"), EARLIER_IDS)
def test_an_earlier_button_reaches_its_handler_with_its_values(
        custom_id: str, handler: str, values: dict[str, Any]) -> None:
    handlers: list[type[discord.ui.DynamicItem[Any]]] = [*game_items(), LobbyButton]
    claimed = [cls for cls in handlers
               if cls.__discord_ui_compiled_template__.fullmatch(custom_id)]
    assert [f"{c.__module__}.{c.__name__}" for c in claimed] == [handler]
    cls = claimed[0]
    assert issubclass(cls, GameItem)
    parsed = cls.id_template.parse(custom_id)
    assert parsed is not None and parsed["match_id"] == 7
    assert {key: parsed[key] for key in values} == values
    # and the same values make the same id, so new buttons look like the old ones
    assert cls.custom_id_for(**parsed) == custom_id


@pytest.mark.parametrize("custom_id", [
    "ch:cs:7:v12:h6", "ch:cs:7:v12:b3E2", "ch:bz:7:c183:maybe", "ch:ct:abc:v1:a0",
    "ch:ct:1:v1:zz", "ch:bc:7:x5:a1", "ch:bc:7:v5:cb:p", "ch:cs:7:v1234567890:h1",
    "ch:cs:１:v1:h1"])
def test_a_malformed_or_forged_id_has_no_handler(custom_id: str) -> None:
    assert not any(cls.__discord_ui_compiled_template__.fullmatch(custom_id)
                   for cls in game_items())


def test_an_id_on_a_match_carries_its_number_and_board_version() -> None:
    import cogs.cities as cities

    match = Match(id=42, guild_id=1, channel_id=1, game="cities", status="active",
                  host_id="1", seats=[Seat("1", "Ann")], options={}, seed=1, state={},
                  version=17)
    assert cities.ActButton.on(match, index=3) == "ch:ct:42:v17:a3"
    assert cities.HoodsButton.on(match) == "ch:ct:42:hoods"


def test_a_template_refuses_an_untyped_or_unclosed_slot() -> None:
    assert IdTemplate("x:{n:[0-9]{1,3}}[:p{p:[0-9]}]", {"n": int, "p": int}).format(
        {"n": 5, "p": None}) == "x:5"
    with pytest.raises(TypeError):
        IdTemplate("x:{n:[0-9]}", {})
    with pytest.raises(ValueError):
        IdTemplate("x:{n:[0-9]", {"n": int})
    with pytest.raises(ValueError):
        IdTemplate("x:[a[{n:[0-9]}]]", {"n": int})
