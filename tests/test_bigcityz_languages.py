"""Big Cityz in German, Spanish, French and Portuguese: refusals, statements and city names
in the reader's language, pictures that speak it, and labels Discord accepts in each."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from bot.core.engine import IllegalAction
from bot.core.i18n import PSEUDO, TRANSLATED, speaking
from bot.core.records import Match, Seat
from bot.games.bigcityz import ENGINE, names
from bot.games.bigcityz import render as bz_render
from bot.games.bigcityz.board import point_squares
from bot.games.bigcityz.render import render_reveal, render_table
from bot.games.bigcityz.views import reveals
from bot.render import kit
from cogs.bigcityz import BigCityzAdapter
from cogs.bigcityz.components import PlaceButton, VetoButton, chooser
from cogs.bigcityz.words import reveal_text
from tests.pictures import drawn
from tests.test_bigcityz_rules import risk, square, start, turn

JSON = dict[str, Any]


def _first_red(statement: str) -> tuple[str, int]:
    return next((c, p) for c, p in point_squares(statement) if c == "red")


def _played() -> JSON:
    """Moscow on a red square of board 1 (Population), Milan on a risk field, Bergen drawn."""
    state = start(["Moscow", "Milan", "Bergen"])
    colour, points = _first_red("population")
    state, _events = turn(state, square(1, colour, points))
    state, _events = turn(state, risk("2-3", "red"))
    return state


def test_a_refusal_is_said_in_the_clickers_language_with_the_citys_own_name() -> None:
    state = _played()
    colour, points = _first_red("population")
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, ENGINE.to_act(state)[0], square(1, colour, points))
    assert str(refused.value) == "That square is taken by Moscow."
    with speaking("de"):
        assert str(refused.value) == "Auf diesem Feld liegt schon Moskau."
    with speaking("fr"):
        assert str(refused.value) == "Cette case est déjà prise par Moscou."


def test_statements_cities_and_countries_in_the_readers_language() -> None:
    with speaking("de"):
        assert names.statement("coast") == "Liegt am Meer"
        assert names.short_name("population") == "Einwohner"
        assert names.city("moscow") == "Moskau"  # CLDR's exemplar city
        assert names.city({"id": "milan", "name": "Milan"}) == "Mailand"  # the catalog's
        assert names.city("bergen") == "Bergen"  # no other name: the card's
        assert names.country("FR", "France") == "Frankreich"
    with speaking("fr"):
        assert names.statement("south") == "Est située au sud de l'équateur"
        assert names.city("moscow") == "Moscou"
        assert names.continent("Europe") == "Europe" and names.continent("Asia") == "Asie"
    with speaking("pt-BR"):
        assert names.city("warsaw") == "Varsóvia"
    assert names.city("moscow") == "Moscow"  # English: the card's name


def _said(view: JSON, language: str) -> list[str]:
    with speaking(language):
        _png, texts = drawn(bz_render, lambda: render_table(view))
    return [t.text for t in texts]


def test_the_board_speaks_german_and_the_pseudo_locale_leaves_no_english() -> None:
    view = ENGINE.view(_played(), None)
    german = "\n".join(_said(view, "de"))
    for words in ("frei · wenn WAHR", "Punkte", "Einwohner", "Hat 1 Million oder mehr",
                  "Risikofelder", "Moskau", "Mailand"):
        assert words in german
    assert "free" not in german and "Scores" not in german
    # en-XA accents every letter it translates: plain letters left are names (players,
    # cities), the units and codes a card prints, or English nobody marked.
    kept = {"Ann", "Bob", "Cy", "Moscow", "Milan", "Bergen", *view["players"]}
    kept |= {sq["city"]["name"] for b in view["slots"] for sq in b["squares"] if sq["city"]}
    for text in _said(view, PSEUDO):
        for name in sorted(kept, key=len, reverse=True):
            text = text.replace(name, "")
        assert not re.search(r"[A-Za-z]{2,}", text), text


def test_the_reveal_speaks_german_numbers_and_words() -> None:
    view = ENGINE.view(_played(), None)
    with speaking("de"), kit.recording_text() as texts:
        render_reveal(view)
    said = "\n".join(t.text for t in texts)
    assert "Mailand" in said and "Italien · Europa" in said
    assert "Punkte" in said and ("✓ WAHR" in said or "✗ FALSCH" in said)
    assert re.search(r"\b\d{1,3}\.\d{3}\.\d{3}\b", said)  # a population, German style


def a_match(state: JSON) -> Match:
    seats = [Seat(p, p.title()) for p in state["players"]]
    return Match(id=1234567890, guild_id=1, channel_id=1, game="bigcityz", status="active",
                 host_id=seats[0].id, seats=seats, options={}, seed=1, state=state, version=3)


def test_the_table_text_the_chooser_and_the_reveal_speak_german() -> None:
    state = start(["Moscow", "Milan", "Bergen"])
    colour, points = _first_red("population")
    state, events = turn(state, square(1, colour, points))
    match = a_match(state)  # Milan to place, Moscow on board 1
    with speaking("de"):
        text = BigCityzAdapter(ENGINE).table_content(match)
        assert text.startswith("**Big Cityz** · Runde 1\n🏙️ **Mailand** — <@bob>, wohin damit?")
        screen = chooser(match, "bob")
        assert screen.text == "Wohin mit **Mailand**?"
        reveal = reveal_text(match, reveals(events)[0])
        assert reveal.startswith("**Moskau** — Ann: ") and "Einwohner: trifft" in reveal


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_label_and_option_fits_discords_limits(language: str) -> None:
    match = a_match(start(["Nizhny Novgorod", "Oslo"]))
    player = match.seats[0].id
    with speaking(language):
        items = [getattr(i, "item", i) for i in chooser(match, player).items]
        items += [b.item for b in (PlaceButton.make(1, 1), VetoButton.make(1, 1, "veto"),
                                   VetoButton.make(1, 1, "noveto"))]
    options = [o for i in items if isinstance(i, discord.ui.Select) for o in i.options]
    labels = [i.label or "" for i in items if isinstance(i, discord.ui.Button)]
    assert len(options) == 24 and len(labels) == 4  # 16 squares, 8 risk fields; 4 buttons
    for option in options:
        assert 0 < len(option.label) <= 100 and len(option.description or "") <= 100
    assert all(0 < len(label) <= 80 for label in labels)
    if language == "de":
        assert labels[1:] == ["Legen", "Einspruch", "Kein Einspruch"]
        assert labels[0] == "Es gibt kein freies Feld"
