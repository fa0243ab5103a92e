"""The phone rule of docs/pictures.md, checked on every picture kind of whole seeded games,
and the table details players asked for (issue 10)."""

from __future__ import annotations

import io
from functools import partial
from typing import Any

import pytest
from PIL import Image

from bot.core.i18n import PSEUDO, speaking
from bot.games import GAMES
from bot.games.bigcity import ENGINE as BIGCITY
from bot.games.bigcity import render as bcr
from bot.games.bigcity.scenario import position
from bot.games.cities import ENGINE as CITIES
from bot.games.cities import render as cir
from bot.games.cityscape import ENGINE as CITYSCAPE
from bot.games.cityscape import render as csr
from bot.games.cityscape.render import board as cs_board
from bot.games.cityscape.render import constants as cs_layout
from bot.render import kit
from tests.computer_games import states
from tests.pictures import drawn, every_picture, overflowing, too_small

View = dict[str, Any]

@pytest.mark.parametrize("language", ["en", "de", PSEUDO])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_picture_of_a_whole_game_keeps_to_the_text_sizes_and_its_boxes(
        game: str, language: str) -> None:
    """In English, in German (long words) and in the pseudo-locale (every sentence 40 %
    longer): English at six moments of a game, the others at two (the start and the end,
    with every extra picture between), which meet every kind of picture too (Big City's
    previews need six)."""
    kinds = set()
    points = 6 if language == "en" or game == "bigcity" else 2
    with speaking(language):
        pictures = list(every_picture(game, points=points))
    for kind, width, texts in pictures:
        kinds.add(kind)
        assert texts, f"{game} {kind}: nothing recorded"
        small = [(t.size, t.text) for t in too_small(texts, width)]
        assert not small, f"{game} {kind} ({width} px wide): {small[:5]}"
        spilt = overflowing(texts)
        assert not spilt, f"{game} {kind} in {language}: {spilt[:5]}"
    expected = {"bigcity": {"table", "final", "preview build", "preview streetcar",
                            "preview place_neighborhood"},
                "bigcityz": {"table", "reveal", "final"},
                "cityscape": {"table", "scoring"},
                "cities": {"table", "neighbourhood", "neighbourhoods", "final"}}[game]
    assert expected <= kinds


def test_the_kit_tells_secondary_text_from_primary() -> None:
    c = kit.Canvas.new(600, 100)
    with kit.recording_text() as texts:
        c.text((10, 10), "Pick A", 15)
        c.text((10, 40), "a caption", 10, secondary=True)
        c.label((10, 70), "key", 10, secondary=True)
    assert [t.secondary for t in texts] == [False, True, True]
    assert kit.least_text(600) == 15 and kit.least_text(600, secondary=True) == 10
    assert too_small(texts, 600) == []
    assert [t.text for t in too_small(texts, 1200)] == ["Pick A", "a caption", "key"]


# -- Big City ----------------------------------------------------------------------------


def _bigcity_game() -> list[View]:
    return states("bigcity", ["ann", "bob", "cy"], 7)


def test_big_city_names_the_neighbourhoods_still_to_come() -> None:
    play = next(s for s in _bigcity_game() if s["phase"] == "play")
    view = BIGCITY.view(play, None)
    left = sorted(view["unplaced_neighborhoods"])
    assert left
    _data, texts = drawn(bcr, lambda: bcr.render_table(view))
    sub = next(t.text for t in texts if "of 8 neighborhoods" in t.text)
    assert f"to come: {', '.join(map(str, left))}" in sub


def test_big_city_labels_parks_and_factories_with_words() -> None:
    state = position(players=["ann", "bob"], neighborhoods=[(2, (3, 0), 0)],
                     pieces=[("lincoln_park", [11, 12], "ann"),
                             ("rockwell_industries", [21, 22, 25, 26], "bob")])
    view = BIGCITY.view(state, None)
    _data, texts = drawn(bcr, lambda: bcr.render_table(view))
    words = [t.text for t in texts]
    assert "Park" in words and "Factory" in words


def test_big_city_shows_the_discard_pile() -> None:
    states = _bigcity_game()
    later = next(s for s in states if len(s["discard"]) >= 3)
    view = BIGCITY.view(later, None)
    _data, texts = drawn(bcr, lambda: bcr.render_table(view))
    said = [t.text for t in texts]
    assert "Discarded" in said
    first = str(min(int(c) for c in view["discard"] if str(c).isdigit()))
    assert f"{len(view['discard'])} cards: {first}, " in "\n".join(said)
    fresh = BIGCITY.view(states[0], None)
    _data, texts = drawn(bcr, lambda: bcr.render_table(fresh))
    assert "none" in [t.text for t in texts]


def test_a_streetcar_on_the_outer_edge_stays_inside_the_city_border() -> None:
    state = position(players=["ann", "bob"])
    view = BIGCITY.view(state, None)
    tiles = bcr._tiles(view)
    cells = set(bcr._city_cells(tiles))
    y0 = min(y for _x, y in cells)
    top_row = sorted(x for x, y in cells if y == y0)
    # the whole top edge of the city, corner to corner, as streetcar segments
    edge = [[[x, y0], [x + 1, y0]] for x in top_row]
    bare = Image.open(io.BytesIO(bcr.render_table(view))).convert("RGB")
    laid = Image.open(io.BytesIO(bcr.render_table(dict(view, streetcars=edge)))).convert("RGB")
    frame = bcr._frame(cells, bcr.MAP_TOP)
    border_y = round(frame.py(y0))
    left, right = round(frame.px(top_row[0])), round(frame.px(top_row[-1] + 1))
    # the bold border row is unchanged, and nothing crimson lies on or above it
    for x in range(left + 2, right - 2):
        assert laid.getpixel((x, border_y)) == bare.getpixel((x, border_y))
    above = laid.crop((0, bcr.MAP_TOP, laid.width, border_y + 1))
    assert all(c != bcr.STREETCAR for _n, c in above.getcolors(1 << 16) or [])
    inside = laid.crop((left, border_y, right, border_y + frame.cell))
    assert any(c == bcr.STREETCAR for _n, c in inside.getcolors(1 << 16) or [])


# -- Cityscape and Cities ----------------------------------------------------------------


def test_cityscape_marks_the_tallest_building() -> None:
    state = CITYSCAPE.new(["Ann", "Bob", "Cy"], {}, 7)
    while CITYSCAPE.result(state) is None and sum(
            len(v) for v in state.get("lots", {}).values()) < 8:
        player = CITYSCAPE.to_act(state)[0]
        state, _ = CITYSCAPE.apply(state, player, GAMES[CITYSCAPE.name].computer.normal(state, player))
    view = CITYSCAPE.view(state, None)
    heights = {lot: h for lot, h in view["heights"].items() if h}
    assert heights
    tallest = max(heights.values())
    _data, texts = drawn(csr, lambda: csr.render_table(view))
    marks = [t for t in texts if t.text == "★ tallest"]
    assert len(marks) == sum(1 for h in heights.values() if h == tallest)
    # each mark sits on a lot of the tallest height
    for mark in marks:
        lot = next(lot for lot, h in heights.items() if h == tallest
                   and cs_board._lot_xy(lot)[0] <= mark.box[0] < cs_board._lot_xy(lot)[0] + cs_layout.CELL
                   and cs_board._lot_xy(lot)[1] <= mark.box[1] < cs_board._lot_xy(lot)[1] + cs_layout.CELL)
        assert lot


def test_cities_scoring_cards_are_never_cut() -> None:
    state = CITIES.new(["ann", "bob", "cy"], {}, 7)
    seen = 0
    for _ in range(40):
        view = CITIES.view(state, None)
        _data, texts = drawn(cir, partial(cir.render_table, view))
        cards = [item for slot in (view.get("rows") or {}).get("cards") or []
                 if slot.get("taken_by") is None
                 for item in slot.get("items") or [] if not item.get("face_down")]
        # card rules are what a move needs: primary text, at 1/40 of the width
        rules = " ".join(t.text for t in texts if not t.secondary and not t.bold)
        for card in cards:
            assert " ".join(str(card["text"]).split()) in rules
            seen += 1
        assert not any(t.text.endswith(kit.ELLIPSIS) for t in texts if not t.bold
                       and t.size == cir.RULE_TEXT)
        if CITIES.result(state) is not None:
            break
        player = CITIES.to_act(state)[0]
        state, _ = CITIES.apply(state, player, GAMES[CITIES.name].computer.normal(state, player))
    assert seen
