"""Cities in German, Spanish, French and Brazilian Portuguese: refusals, the pictures' words,
and Discord's limits on what the cog builds, in every language."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from bot.core.engine import JSON, IllegalAction
from bot.core.i18n import PSEUDO, TRANSLATED, speaking
from bot.core.records import Match, Seat
from bot.games.cities import ENGINE
from bot.games.cities import render as draw
from bot.games.cities.content import CONTENT
from bot.games.cities.neighbourhood import STANDARD_LIMIT, Neighbourhood
from bot.games.cities.views import move_of, place_move
from cogs.cities.adapter import CitiesAdapter
from cogs.cities.components import chooser
from cogs.cities.words import spot_label, take_label, tile_bounds
from tests.pictures import drawn, words

LANGUAGES = (*TRANSLATED, PSEUDO)
PLAYERS = ["ann", "bob", "cy"]


def round_one() -> JSON:
    """Venice, every starting tile chosen: the four rows dealt, ann's turn."""
    state = ENGINE.new(PLAYERS, {"city": "Venice", "first_player": "ann"}, 5)
    while state["phase"] == "start_tiles":
        player = ENGINE.to_act(state)[0]
        state, _events = ENGINE.apply(state, player, ENGINE.legal(state, player)[0].action)
    return state


def taking(state: JSON, row: str) -> JSON:
    """``state`` once the player due took the first face-up group of ``row``."""
    player = ENGINE.to_act(state)[0]
    take = next(la.action for la in ENGINE.legal(state, player)
                if la.action["type"] == "take" and la.action["row"] == row
                and not any(state["rows"][row][la.action["slot"] - 1]["hidden"]))
    after, _events = ENGINE.apply(state, player, take)
    return after


def a_match(state: JSON) -> Match:
    seats = [Seat(p, p.title()) for p in PLAYERS]
    return Match(id=1234567890, guild_id=1, channel_id=1, game="cities", status="active",
                 host_id="ann", seats=seats, options={"city": "Venice"}, seed=5, state=state,
                 version=3)


def test_a_refusal_is_said_in_the_clickers_language_and_compared_in_english() -> None:
    state = round_one()
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, "bob", {"type": "take", "row": "cards", "slot": 1})
    with speaking("de"):
        assert str(caught.value) == "ann ist am Zug, nicht du."
    assert str(caught.value) == "It is not your turn; it is ann's turn."
    # a neighbourhood's reason is English for the computer player and tests, and speaks
    # when the engine's refusal reaches a person
    hood = Neighbourhood.starting("S1")
    refusal = hood.tile_refusal((0, 0), STANDARD_LIMIT)
    assert refusal == "A tile is already there."
    assert refusal is not None
    with speaking("es"):
        assert str(refusal.text) == "Ya hay una loseta ahí."
    sailboat = next(f for f in CONTENT.features.values() if f.kind == "Sailboat")
    park = next(s for s, kind in hood.kinds.items() if kind == "P")
    refusal = hood.feature_refusal(sailboat, park)
    assert refusal == "Sailboat goes on a water space."
    assert refusal is not None
    with speaking("fr"):
        assert str(refusal.text) == "Voilier se place sur une case Eau."


def _table_words(language: str, state: JSON) -> str:
    view = ENGINE.view(state, None)
    with speaking(language):
        _png, texts = drawn(draw, lambda: draw.render_table(view))
    return words(texts)


def test_the_table_picture_speaks_german_and_leaves_no_english_behind() -> None:
    state = taking(round_one(), "features")
    german = _table_words("de", state)
    for word in ("Venedig", "Auftragskarten", "Stadtfelder", "Gebäudeteile", "Gondeln",
                 "Wassergebiet", "Runde 1 von 8", "Beutel:", "legt oder entfernt"):
        assert word in german
    assert "Scoring cards" not in german and "Venice" not in german
    # the pseudo-locale accents every letter it translates: plain letters are English left
    # outside the catalog (the players' names and the tiles' codes aside)
    pseudo = _table_words(PSEUDO, state)
    plain = set(re.findall(r"[A-Za-z]{2,}", pseudo)) - {"ann", "bob", "cy"}
    assert not plain, plain


def _limits(items: list[Any]) -> None:
    """Discord's limits on a component: button 80, option label 100 and description 100,
    placeholder 150."""
    for item in items:
        if isinstance(item, discord.ui.Button):
            assert item.label is None or len(item.label) <= 80, item.label
        elif isinstance(item, discord.ui.Select):
            assert len(item.placeholder or "") <= 150
            for option in item.options:
                assert len(option.label) <= 100, option.label
                assert len(option.description or "") <= 100


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_label_the_cog_builds_fits_discords_limits(language: str) -> None:
    start = round_one()
    features = taking(start, "features")
    tiles = taking(start, "tiles")
    adapter = CitiesAdapter(ENGINE)
    with speaking(language):
        for state in (start, features, tiles):
            match = a_match(state)
            player = ENGINE.to_act(state)[0]
            _limits(adapter.table_items(match))
            # the labels as written, before any cut: each take and each spot in full
            for la in ENGINE.legal(state, player):
                move = move_of(la.action)
                if move["type"] == "take":
                    slot = ENGINE.view(state, None)["rows"][move["row"]][move["slot"] - 1]
                    label = take_label(move["row"], slot)
                    assert len(label) <= 80, label
            if state["pending"] is not None:
                screen = chooser(match, player, 0, 0)
                assert not isinstance(screen, str)
                _limits(screen.items)
                hood = Neighbourhood.from_state(state["neighbourhoods"][player])
                tile = state["pending"]["items"][0] if state["pending"]["row"] == "tiles" else None
                for la in ENGINE.legal(state, player):
                    if la.action["type"].startswith("place_"):
                        extra = [tuple(la.action["at"])] if "at" in la.action else []
                        label = spot_label(hood, place_move(la.action), tile_bounds(hood, extra),
                                           tile)
                        assert len(label) <= 100 - 4, label  # "A · " comes first
