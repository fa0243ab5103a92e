"""Cityscape in other languages: the engine's refusals, the pictures' words, the buttons and
menus the cog builds, and the catalogs' command names, as a German, Spanish, French or
Brazilian player meets them (and the pseudo-locale en-XA, which shows any English left
outside the catalog and any label too long for Discord)."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from babel.messages.pofile import read_po

from bot.core.engine import IllegalAction
from bot.core.i18n import PSEUDO, TRANSLATED, catalog_file, speaking
from bot.games.cityscape import ENGINE
from bot.games.cityscape import render as cr
from bot.games.cityscape.render import constants as layout
from bot.games.cityscape.skyline import LOTS
from cogs.cityscape.components import (
    GoalConfirm,
    GoalsButton,
    GoalSelect,
    HeightButton,
    LotButton,
)
from tests.pictures import drawn, overflowing, words

LANGUAGES = [*TRANSLATED, PSEUDO]
NAMES = ["Anneliese-Marie", "Bo"]


def _goals_set() -> dict[str, Any]:
    """A two-player round (one round) whose four sides have chosen their codes."""
    state = ENGINE.new(NAMES, {"rounds": 1}, 7)
    for side, codes in (("S", [1, 2, 3, 4]), ("W", [5, 6, 1, 2]), ("N", [3, 3, 5, 6]),
                        ("E", [4, 1, 2, 5])):
        state, _ = ENGINE.apply(state, state["sides"][side],
                                {"type": "set_goals", "side": side, "codes": codes})
    return state


def _built(state: dict[str, Any], blocks: int) -> dict[str, Any]:
    """``blocks`` more blocks, each the lowest left, on the lots in turn."""
    for n in range(blocks):
        height = next(h for h in (1, 2, 3, 4, 5) if state["blocks_left"][str(h)])
        state, _ = ENGINE.apply(state, ENGINE.to_act(state)[0],
                                {"type": "build", "height": height, "lot": LOTS[(n * 5) % 16]})
    return state


def test_an_engine_refusal_is_said_in_the_clickers_language_and_stays_english_otherwise() -> None:
    state = ENGINE.new(NAMES, {"rounds": 1}, 7)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, "Bo", {"type": "build", "height": 3, "lot": "B2"})
    assert str(refused.value) == "Building starts once everyone has set their goals."
    with speaking("de"):
        assert str(refused.value) == "Gebaut wird, sobald alle ihre Ziele festgelegt haben."
    with speaking("fr"):
        assert "objectifs" in str(refused.value)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(_goals_set(), "Bo", {"type": "build", "height": 3, "lot": "B2"})
    with speaking("pt-BR"):  # the placeholder is filled in the translation
        assert str(refused.value) == "É a vez de Anneliese-Marie."


def test_the_table_picture_speaks_german_and_keeps_its_caption_on_the_board() -> None:
    state = _built(_goals_set(), 7)
    view = ENGINE.view(state, None)
    with speaking("de"):
        _png, texts = drawn(cr, partial(cr.render_table, view))
    said = words(texts)
    for german in ("Was jede Seite sieht", "Blöcke", "Punkte", "Runde 1 von 1", "Zuletzt:",
                   "sieht ", "Seiten S+W", "Spalten A B C D"):
        assert german in said
    assert "What each side sees" not in said and "Last: " not in said
    assert overflowing(texts) == []
    # The last build's caption is longer in German: it wraps below, inside the board's
    # column, rather than run under the skylines.
    caption = [t for t in texts if t.box[1] >= layout.CAPTION_Y - 20 and t.box[0] < layout.RIGHT_X]
    assert caption and max(t.box[2] for t in caption) <= layout.MARGIN + layout.BOARD
    assert len({t.box[1] for t in caption}) == 2


def _english_words(texts: list[Any]) -> list[str]:
    """Words of plain ASCII letters drawn (en-XA accents every letter of a catalog's words),
    leaving out the players' names."""
    found = []
    for text in texts:
        for word in re.findall(r"[A-Za-z]{2,}", text.text):
            if not any(word in name for name in NAMES):
                found.append(word)
    return found


def test_in_the_pseudo_locale_no_picture_word_is_left_in_plain_english() -> None:
    goals = ENGINE.view(ENGINE.new(NAMES, {"rounds": 1}, 7), None)
    scored = ENGINE.view(_built(_goals_set(), 25), None)
    with speaking(PSEUDO):
        for draw in (partial(cr.render_table, goals), partial(cr.render_scoring, goals),
                     partial(cr.render_scoring, scored)):
            _png, texts = drawn(cr, draw)
            assert texts
            # "Game over" is the shared kit's, said by bot/render's own catalog.
            leftover = [w for w in _english_words(texts) if w not in ("Game", "over", "share",
                                                                      "the", "win", "wins")]
            assert leftover == []
            assert overflowing(texts) == []  # longer words are wrapped or cut, never spill


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_button_and_menu_the_cog_builds_fits_discords_limits(language: str) -> None:
    with speaking(language):
        items: list[Any] = [HeightButton.make(1, 2, h, left=5, chosen=chosen)
                            for h in (1, 5) for chosen in (False, True)]
        items += [LotButton.make(1, 2, 3, "D4", 75), GoalsButton.make(1),
                  GoalConfirm.make(1, 12, "E", "6565"), GoalConfirm.make(1, 12, "E", "65_5")]
        menus = [GoalSelect.make(1, 12, side, line, "1___") for side in "SWNE"
                 for line in range(4)]
    for button in items:
        assert 0 < len(button.item.label or "") <= 80
    for menu in menus:
        select = menu.item
        assert len(select.placeholder or "") <= 150
        assert len(select.options) == 6
        for option in select.options:
            assert 0 < len(option.label) <= 100 and 0 < len(option.description or "") <= 100
    if language == "de":
        assert [b.item.label for b in items[:2]] == ["Höhe 1 · 5 übrig", "Höhe 1 ✓"]
        assert menus[5].item.placeholder == "Linie 2: Reihe 3"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_slash_command_words_follow_discords_rules(language: str) -> None:
    with catalog_file("bot.games.cityscape", language).open("rb") as po:
        catalog = read_po(po, locale=language.replace("-", "_"))
    names = [m for m in catalog if m.context in ("command_name", "group_name", "parameter_name")]
    assert {m.id for m in names} >= {"cityscape", "new", "rules", "rounds"}
    for message in names:
        said = str(message.string)
        assert re.fullmatch(r"[-_\w]{1,32}", said) and said.islower()
    for message in catalog:
        if message.context and message.context.endswith("description"):
            assert 0 < len(str(message.string)) <= 100
