"""Big City in German, Spanish, French and Brazilian Portuguese: refusals, the table's words
and picture, and Discord's limits on what the cog builds, in every language."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from bot.core.engine import JSON, IllegalAction
from bot.core.i18n import PSEUDO, TRANSLATED, speaking
from bot.core.records import Match, Seat
from bot.games.bigcity import ENGINE
from bot.games.bigcity import render as draw
from bot.games.bigcity.city import City
from bot.games.bigcity.legality import build_problem
from bot.games.bigcity.moves import _fresh_turn
from bot.games.bigcity.scenario import position
from tests.pictures import drawn, words

LANGUAGES = (*TRANSLATED, PSEUDO)
CITY = [(2, (3, 0), 0), (3, (0, 3), 0)]


def mid_game() -> JSON:
    """City hall, a park, a residence and a streetcar: most of what the table says."""
    state = position(players=["ann", "bob"], neighborhoods=CITY,
                     pieces=[("city_hall", [15], "bob"), ("lincoln_park", [35, 38], "ann"),
                             ("double_residence", [12, 13], "ann")],
                     streetcars=[[[1, 0], [2, 0]]],
                     hands={"ann": [14, 16, 17, 18, "central_park"]})
    state, _events = ENGINE.apply(state, "ann", {"type": "build", "building": "single_business",
                                                 "properties": [14]})
    return state


def a_match(state: JSON) -> Match:
    seats = [Seat(p, p.title()) for p in state["players"]]
    return Match(id=1234567890, guild_id=1, channel_id=1, game="bigcity", status="active",
                 host_id=seats[0].id, seats=seats, options={}, seed=1, state=state, version=3)


def test_a_refusal_is_said_in_the_clickers_language_and_compared_in_english() -> None:
    state = position(neighborhoods=CITY, hands={"ann": [11, 12, 13, 14, 16]})
    church = {"type": "build", "building": "church", "properties": [11]}
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, "ann", church)
    with speaking("de"):
        assert str(caught.value) == "Eine Kirche darf erst nach dem Rathaus gebaut werden."
    with speaking("fr"):
        assert str(caught.value) == "Une église exige que la mairie soit déjà construite."
    assert str(caught.value) == "A church can only be built after city hall."
    # the rule checks keep their English for comparison, and speak when shown
    problem = build_problem(City(state), [11, 12], "double_residence", [12])
    assert problem == "A double residence needs 2 properties."
    with speaking("es"):
        assert str(problem) == "Una vivienda doble necesita 2 solares."


def _table_words(language: str) -> str:
    view = ENGINE.view(mid_game(), None)
    with speaking(language):
        _png, texts = drawn(draw, lambda: draw.render_table(view))
    return words(texts)


def test_the_table_picture_speaks_german_and_leaves_no_english_behind() -> None:
    german = _table_words("de")
    for word in ("Wohnhäuser", "Geschäftshäuser", "Rathaus", "Straßenbahnen", "Stadtrand",
                 "Zuletzt", "Einzelgeschäftshaus", "Park"):
        assert word in german
    assert "Residences" not in german and "Streetcars" not in german
    # the pseudo-locale accents every letter it translates: plain letters are English
    # left outside the catalog (the players' names aside)
    pseudo = _table_words(PSEUDO)
    plain = set(re.findall(r"[A-Za-z]{2,}", pseudo)) - {"ann", "bob"}
    assert not plain, plain


def _limits(items: list[discord.ui.Item[Any]]) -> list[str]:
    """What breaks Discord's limits: button labels 80, option labels and descriptions 100,
    placeholders 150."""
    broken = []
    for item in items:
        if isinstance(item, discord.ui.Button) and len(item.label or "") > 80:
            broken.append(str(item.label))
        if isinstance(item, discord.ui.Select):
            if len(item.placeholder or "") > 150:
                broken.append(str(item.placeholder))
            for option in item.options:
                if len(option.label) > 100 or len(option.description or "") > 100:
                    broken.append(f"{option.label} / {option.description}")
    return broken


def test_every_label_the_cog_builds_fits_discord_in_every_language() -> None:
    from cogs.bigcity import BigCityAdapter, hand_screen, open_screen

    state = mid_game()
    # bob's turn begins, with cards for buildings, a factory and streetcars to choose from
    state.update(step="start", current=1, turn=_fresh_turn())
    state["hands"]["bob"] = [16, 17, 18, 19, "rockwell_industries"]
    match = a_match(state)
    adapter = BigCityAdapter(ENGINE)
    for language in LANGUAGES:
        with speaking(language):
            items: list[discord.ui.Item[Any]] = [
                i.item for i in adapter.table_items(match) if isinstance(i, discord.ui.DynamicItem)]
            screens = [hand_screen(match, p) for p in state["players"]]
            for code in "bksnx":
                screen = open_screen(match, "bob", code, None, 0)
                if not isinstance(screen, str):
                    screens.append(screen)
            for screen in screens:
                items += screen.items
                assert len(screen.text) <= 2000
            labels = [str(getattr(i, "label", "")) for i in items]
            options = [o for i in items if isinstance(i, discord.ui.Select) for o in i.options]
            assert len(options) > 20 and len(labels) > 10  # menus of places and cards
            assert _limits(items) == [], language
            assert "My hand" not in labels or language == "en"
            assert len(adapter.table_content(match)) <= 2000
