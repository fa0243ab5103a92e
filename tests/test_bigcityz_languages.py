"""Big Cityz in German, Spanish, French and Portuguese: refusals, statements and city names
in the reader's language, pictures that speak it, and labels Discord accepts in each."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.core.engine import IllegalAction
from bot.core.i18n import PSEUDO, TRANSLATED, speaking
from bot.games.bigcityz import ENGINE, names
from bot.games.bigcityz import render as bz_render
from bot.games.bigcityz.board import point_squares
from bot.games.bigcityz.render import render_reveal, render_table
from bot.games.bigcityz.views import placing_move, table
from bot.render import kit
from cogs.bigcityz.components import PlaceButton, VetoButton
from cogs.bigcityz.words import action_label, target_option
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


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_label_and_option_fits_discords_limits(language: str) -> None:
    state = start(["Nizhny Novgorod", "Oslo"])
    view = table(state)
    player = ENGINE.to_act(state)[0]
    with speaking(language):
        for legal in ENGINE.legal(state, player):
            move = placing_move(legal.action)
            if move["type"] == "place":
                label, description = target_option(view, move)
                assert 0 < len(label) <= 100 and len(description) <= 100, label
            else:
                assert 0 < len(action_label(view, move, legal.label)) <= 80
        buttons = [PlaceButton.make(1, 1), VetoButton.make(1, 1, "veto"),
                   VetoButton.make(1, 1, "noveto")]
        labels = [button.item.label or "" for button in buttons]
        assert all(0 < len(label) <= 80 for label in labels)
        if language == "de":
            assert labels == ["Legen", "Einspruch", "Kein Einspruch"]
