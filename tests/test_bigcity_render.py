"""Big City pictures drawn from real views of games played by the engine."""

from __future__ import annotations

import copy
import string
from typing import Any

import pytest
from PIL import Image

from bot.games.bigcity import ENGINE, GAME
from bot.games.bigcity import render as br
from bot.games.bigcity.content import BUILDINGS, SPECIAL_CARDS
from bot.games.bigcity.render import render_extras, render_final, render_preview, render_table
from bot.games.bigcity.scenario import position
from bot.render import kit
from tests.computer_games import states
from tests.pictures import colour_count, drawn, open_png, phone_picture

View = dict[str, Any]
State = dict[str, Any]
MAX_BYTES = 300_000
THREE = ["ann", "bob", "cy"]
FIVE = ["Ann", "Bartholomew the Magnificent of Lower Saxony 🦩", "ᏣᎳᎩ", "🦩🦩", "eve"]


def _play(players: list[str], seed: int = 7, options: View | None = None) -> list[State]:
    """Every state of a seeded computer game, the first (setup) to the last (over)."""
    return states("bigcity", players, seed, options)


@pytest.fixture(scope="module")
def three() -> list[State]:
    return _play(THREE)


@pytest.fixture(scope="module")
def five() -> list[State]:
    return _play(FIVE, seed=3)


def _check(data: bytes) -> Image.Image:
    """What every picture must be: a PNG, phone-friendly in shape, small enough to send."""
    return phone_picture(data, MAX_BYTES, (200, 1600))


def _map_count(image: Image.Image, colour: kit.RGB) -> int:
    """Pixels of ``colour`` below the header (where the city is drawn)."""
    return colour_count(image.crop((0, br.MAP_TOP, image.width, image.height)), colour)


def _said(draw: Any) -> tuple[Image.Image, list[str]]:
    """The checked picture ``draw()`` makes, and the strings drawn on it in order."""
    data, texts = drawn(br, draw)
    return _check(data), [t.text for t in texts]


def _run(said: list[str], *texts: str) -> bool:
    """``texts`` drawn one right after another."""
    n = len(texts)
    return any(tuple(said[i:i + n]) == texts for i in range(len(said) - n + 1))


def _letters(n: int) -> list[str]:
    return [string.ascii_uppercase[i % 26] + ("" if i < 26 else str(i // 26)) for i in range(n)]


def _middle(states: list[State]) -> State:
    return states[len(states) * 2 // 3]


# -- the table ---------------------------------------------------------------------------


def test_table_at_the_start_shows_the_setup_and_neighbourhood_1() -> None:
    state = ENGINE.new(THREE, {}, 7)
    view = ENGINE.view(state, None)
    assert view["phase"] == "setup"
    image = _check(render_table(view))
    # Nothing has happened yet: no "last action" swatch, no highlight ring.
    assert colour_count(image, kit.HIGHLIGHT) == 0
    # Neighbourhood 1 alone: eight outskirts lots around one center lot.
    assert _map_count(image, br.LOT_OUT) > 8 * 50 * 50
    assert _map_count(image, br.LOT) > 50 * 50


def test_table_in_the_middle_shows_buildings_in_owners_colours(three: list[State]) -> None:
    view = ENGINE.view(_middle(three), None)
    assert view["buildings"]
    image = _check(render_table(view))
    owners = {piece["owner"] for piece in view["buildings"]
              if piece["building"] in BUILDINGS}
    for i, player in enumerate(THREE):
        colour = kit.player_style(i).colour
        # every builder's colour covers whole lots on the map, beyond its scoreboard chip
        if player in owners:
            assert _map_count(image, colour) > 3000
    # The last action is marked on the map and beside its caption.
    assert view["last_action"] is not None
    assert colour_count(image, kit.HIGHLIGHT) > 400


def test_table_at_the_end_and_the_final_extra(three: list[State]) -> None:
    state = three[-1]
    view = ENGINE.view(state, None)
    assert view["phase"] == "over" and view["winners"] == ["cy"]
    _image, said = _said(lambda: render_table(view))
    assert _run(said, "Game over: ", "cy", "wins")
    for name in THREE:
        assert _run(said, name, str(view["scores"][name])), name
    previous = three[-2]
    player = ENGINE.to_act(previous)[0]
    _state, events = ENGINE.apply(previous, player, GAME.computer.normal(previous, player))
    assert any(e["type"] == "game_over" for e in events)
    extras = render_extras(view, events)
    assert [name for name, _png in extras] == ["final"]
    final, said = _said(lambda: render_final(view))
    assert extras[0][1] == render_final(view)
    # the standings, best first: place, score, name
    ranked = sorted(THREE, key=lambda p: -view["scores"][p])
    assert _run(said, "1.", str(view["scores"]["cy"]), "cy", "★ wins")
    for place, name in enumerate(ranked[1:], 2):
        assert _run(said, f"{place}.", str(view["scores"][name]), name), name
    assert final.size != open_png(render_table(view)).size  # its own layout, with standings


def test_extras_only_at_the_end(three: list[State]) -> None:
    state = three[5]
    player = ENGINE.to_act(state)[0]
    _after, events = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    assert render_extras(ENGINE.view(_after, None), events) == []
    assert render_extras(ENGINE.view(_after, None), []) == []


@pytest.mark.parametrize("players", [["ann", "bob"], FIVE])
def test_two_and_five_players_whole_games(players: list[str]) -> None:
    states = _play(players, seed=11)
    for state in (states[0], states[len(states) // 2], states[-1]):
        _check(render_table(ENGINE.view(state, None)))
    _check(render_final(ENGINE.view(states[-1], None)))


def test_every_seat_keeps_its_own_marker_in_the_five_player_game(five: list[State]) -> None:
    view = ENGINE.view(five[-1], None)
    image = _check(render_table(view))
    for i in range(len(FIVE)):
        style = kit.player_style(i)
        assert colour_count(image, style.colour) > 0


def test_different_boards_give_different_pictures(three: list[State]) -> None:
    pictures = {render_table(ENGINE.view(three[i], None)) for i in (0, 10, 40, len(three) - 1)}
    assert len(pictures) == 4
    other = _play(THREE, seed=8)
    assert render_table(ENGINE.view(other[-1], None)) != render_table(
        ENGINE.view(three[-1], None))


def test_a_private_view_draws_no_hand(three: list[State]) -> None:
    """The table is public: rendering a player's own view gives exactly the same picture."""
    for state in (three[0], _middle(three), three[-1]):
        public = ENGINE.view(state, None)
        private = ENGINE.view(state, "ann")
        assert "hand" in private and "hand" not in public
        assert render_table(private) == render_table(public)


def test_the_same_view_twice_gives_the_same_picture(three: list[State]) -> None:
    view = ENGINE.view(_middle(three), None)
    first = render_table(view)
    br._CITY_CACHE.clear()
    br._map_base.cache_clear()
    assert render_table(copy.deepcopy(view)) == first


def _scenario(last_action: View | None = None) -> State:
    state = position(
        players=["ann", "bob", "cy", "dee"],
        neighborhoods=[(2, (3, 0), 0), (3, (7, 0), 0), (5, (0, 3), 0), (4, (3, 3), 0)],
        pieces=[("city_hall", [15], "ann"), ("double_residence", [11, 12], "bob"),
                ("triple_business", [21, 22, 23], "cy"), ("shopping_center", [31, 34], "dee"),
                ("lincoln_park", [51, 52], "ann"),
                ("rockwell_industries", [43, 44, 47, 48], "bob"), ("bank", [16], "dee")],
        streetcars=[[[1, 1], [2, 1]], [[2, 1], [3, 1]], [[3, 1], [4, 1]], [[4, 1], [4, 2]],
                    [[4, 2], [5, 2]]],
    )
    state["last_action"] = last_action
    return state


def test_streetcars_parks_factories_and_holes_are_drawn() -> None:
    view = ENGINE.view(_scenario(), None)
    image = _check(render_table(view))
    assert _map_count(image, br.STREETCAR) > 5 * 60  # five streets, beyond the key's swatch
    assert _map_count(image, br.PARK) > 2 * 3000
    assert _map_count(image, br.FACTORY) > 4 * 3000
    bare = copy.deepcopy(view)
    bare["streetcars"] = []
    assert _map_count(_check(render_table(bare)), br.STREETCAR) < _map_count(image,
                                                                             br.STREETCAR)


def test_new_streetcars_are_highlighted() -> None:
    fresh = {"type": "streetcar", "player": "cy", "segments": [[[4, 2], [5, 2]]],
             "where": ["between 26 and 27"]}
    plain = _check(render_table(ENGINE.view(_scenario(), None)))
    marked = _check(render_table(ENGINE.view(_scenario(fresh), None)))
    assert _map_count(marked, kit.HIGHLIGHT) > _map_count(plain, kit.HIGHLIGHT) + 200


def test_the_draw_step_and_a_trade_are_shown_in_the_header() -> None:
    states = _play(THREE, seed=7)
    draws = [s for s in states if s["step"] == "draw"]
    assert draws
    view = ENGINE.view(draws[0], None)
    _check(render_table(view))
    # a trade: start one by hand from a play-phase state of a game with trading on
    state, player, trades = _legal(_play(THREE, seed=7, options={"trade_cards": True})[20:],
                                   ("trade",), 1)
    traded, _events = ENGINE.apply(state, player, trades[0])
    trade_view = ENGINE.view(traded, None)
    assert trade_view["step"] == "trade_offers"
    before = render_table(ENGINE.view(state, None))
    after = render_table(trade_view)
    _check(after)
    head = (0, 0, 1200, br.MAP_TOP)
    assert open_png(before).convert("RGB").crop(head).tobytes() != \
        open_png(after).convert("RGB").crop(head).tobytes()


def test_long_emoji_and_cjk_names(five: list[State]) -> None:
    """Names lose what the font cannot draw, fall back to their seat when nothing is left,
    and long ones are cut: every seat still shows with its score."""
    shown = ["Ann", "Barth", "Player 3", "🦩🦩", "eve"]
    for state in (five[0], _middle(five), five[-1]):
        view = ENGINE.view(state, None)
        _image, said = _said(lambda view=view: render_table(view))
        scores = said[said.index("Scores") + 1:][:10]
        names = scores[0::2]
        # at 1/40 of the width five chips share one row: long names keep their start
        assert len(names) == len(shown)
        for name, whole in zip(names, shown, strict=True):
            assert name == whole or (name.endswith("…") and whole.startswith(name[:-1]))
        assert scores[1::2] == [str(view["scores"].get(p, 0)) for p in FIVE]
        assert not any(ch in "".join(said) for ch in "ᏣᎳᎩ")
    _image, said = _said(lambda: render_final(ENGINE.view(five[-1], None)))
    assert {"Ann", "Player 3", "🦩🦩", "eve"} <= set(said)
    assert any(s.startswith("Barth") and s.endswith("…") for s in said)


def test_a_city_of_all_eight_neighbourhoods_in_a_line_fits() -> None:
    chain = [(2, (3, 0), 0), (3, (7, 0), 0), (4, (10, 0), 0), (5, (14, 0), 0),
             (6, (17, 0), 0), (7, (21, 0), 0), (8, (24, 0), 0)]
    state = position(players=["ann", "bob"], neighborhoods=chain,
                     pieces=[("triple_residence", [81, 82, 83], "bob")])
    view = ENGINE.view(state, None)
    _check(render_table(view))
    tiles = br._tiles(view)
    frame = br._frame(br._city_cells(tiles), br.MAP_TOP)
    assert frame.px(frame.x0) >= br.MARGIN
    assert frame.px(frame.x0 + frame.cols) <= 1200 - br.MARGIN
    # and a tall one: the same chain turned on its side
    tall = [(n, (-at[1], at[0]), 90) for n, at, _r in chain]
    tall_state = position(players=["ann", "bob"], neighborhoods=tall)
    tall_view = ENGINE.view(tall_state, None)
    image = _check(render_table(tall_view))
    assert image.height <= 1600


def test_views_missing_optional_keys(three: list[State]) -> None:
    full = ENGINE.view(_middle(three), None)
    _image, said = _said(lambda: render_table({}))
    assert said[:2] == ["Big City", "Scores"] and "Cards in stacks" in said
    _image, said = _said(lambda: render_table({"players": ["ann"]}))
    assert _run(said, "Scores", "ann", "0")
    for key in ("buildings_left", "stacks", "last_action", "scores", "streetcars", "buildings",
                "parks_and_factories_left", "setup", "turn", "trade", "draw", "city_hall",
                "winners", "phase"):
        view = {k: v for k, v in full.items() if k != key}
        _check(render_table(view))
    # placements without their cells, and properties without placements
    no_cells = copy.deepcopy(full)
    for entry in no_cells["neighborhoods"]:
        del entry["cells"]
    assert render_table(no_cells) == render_table(full)
    only_props = {k: v for k, v in full.items() if k not in ("neighborhoods", "buildings")}
    _check(render_table(only_props))
    _image, said = _said(lambda: render_final({}))
    assert said[:2] == ["Game over", "Final city: 0 buildings"]
    _image, said = _said(lambda: render_preview({}, []))
    assert said[0] == "Pick a choice from the menu"


def test_every_building_has_an_icon_of_its_own() -> None:
    names = {br._icon_name(b) for b in [*BUILDINGS, *SPECIAL_CARDS]}
    assert "unknown" not in names
    masks = {name: br.icon_mask(name, 40).tobytes() for name in names}
    assert len(set(masks.values())) == len(masks)


# -- previews ----------------------------------------------------------------------------


def _legal(states: list[State], kind: tuple[str, ...], least: int) -> tuple[State, str,
                                                                             list[View]]:
    for state in states:
        if state["phase"] != "play" or state["step"] not in ("start", "main"):
            continue
        player = ENGINE.to_act(state)[0]
        actions = [a.action for a in ENGINE.legal(state, player) if a.action["type"] in kind]
        if len(actions) >= least:
            return state, player, actions
    raise AssertionError(f"no state offers {least} {kind} moves")


def test_preview_of_building_sites(three: list[State]) -> None:
    state, player, actions = _legal(three, ("build", "special"), 10)
    sites = list(dict.fromkeys(tuple(a["properties"]) for a in actions))[:25]
    choices = [{"label": label, "properties": list(site)}
               for label, site in zip(_letters(len(sites)), sites, strict=True)]
    image = _check(render_preview(ENGINE.view(state, player), choices))
    few = _check(render_preview(ENGINE.view(state, player), choices[:1]))
    assert colour_count(image, kit.HIGHLIGHT) > colour_count(few, kit.HIGHLIGHT)


def test_preview_of_streetcars(three: list[State]) -> None:
    state, player, actions = _legal(three, ("streetcar",), 25)
    choices = [{"label": label, "segments": a["segments"]}
               for label, a in zip(_letters(25), actions, strict=False)]
    image = _check(render_preview(ENGINE.view(state, player), choices))
    assert colour_count(image, kit.HIGHLIGHT) > 25 * 200


def test_preview_of_neighbourhood_positions(three: list[State]) -> None:
    setup = three[0]
    player = ENGINE.to_act(setup)[0]
    actions = [a.action for a in ENGINE.legal(setup, player)]
    choices = [{"label": label, "neighborhood": a["neighborhood"], "at": a["at"],
                "rotation": a["rotation"]}
               for label, a in zip(_letters(25), actions, strict=False)]
    many = _check(render_preview(ENGINE.view(setup, player), choices))
    assert many.height > 800  # one small map per position
    one = _check(render_preview(ENGINE.view(setup, player), choices[:1]))
    assert colour_count(one, br.GHOST) > 1000  # the ghost's lots, numbered, on the city itself
    first = {c for _p, c in br._ghost_cells(choices[0])}
    apart = [ch for ch in choices[1:] if not {c for _p, c in br._ghost_cells(ch)} & first]
    two_apart = [choices[0], *apart[:1]]
    assert len(two_apart) == 2
    _check(render_preview(ENGINE.view(setup, player), two_apart))


def test_preview_of_a_mixed_menu_and_of_far_away_choices(three: list[State]) -> None:
    view = ENGINE.view(_middle(three), None)
    choices: list[View] = [
        {"label": "A", "properties": [view["properties"][0]["property"]]},
        {"label": "B", "segments": [[[0, 0], [1, 0]]]},
        {"label": "C", "neighborhood": 8, "at": [30, 30], "rotation": 270},
        {"label": "D", "properties": [999]},  # unknown property: no crash, no mark
    ]
    _check(render_preview(view, choices))


def test_twenty_five_labels_on_one_spot_do_not_overlap() -> None:
    canvas = kit.Canvas.new(1200, 800)
    labels = br.Labels(canvas, (24, 100, 1176, 780))
    boxes = [labels.place(text, (600, 400)) for text in _letters(25)]
    for i, a in enumerate(boxes):
        assert a[0] >= 24 and a[2] <= 1176 and a[1] >= 100 and a[3] <= 780
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_labels_keep_clear_of_numbers_when_they_can() -> None:
    canvas = kit.Canvas.new(1200, 800)
    number = (580, 390, 620, 410)
    labels = br.Labels(canvas, (24, 100, 1176, 780), [number])
    box = labels.place("A", (600, 400))
    assert box[2] <= number[0] or number[2] <= box[0] or box[3] <= number[1] \
        or number[3] <= box[1]
