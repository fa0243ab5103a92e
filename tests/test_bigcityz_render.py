"""Big Cityz pictures drawn from real views of games played by the engine."""

from __future__ import annotations

import copy
import itertools
import json
from functools import cache
from typing import Any

import pytest
from PIL import Image

from bot.games.bigcityz import ENGINE, GAME, content
from bot.games.bigcityz import render as br
from bot.games.bigcityz.render import render_extras, render_reveal, render_table
from bot.render import kit
from tests.pictures import colour_count, drawn, open_png, renamed

View = dict[str, Any]
Step = tuple[View, list[View]]
MAX_BYTES = 300_000
FOUR = ["ann", "bob", "cy", "dee"]


# -- playing games -----------------------------------------------------------------------


def _advance(state: View) -> tuple[View, list[View]]:
    due = ENGINE.to_act(state)
    if not due:  # a veto window that only the timer closes
        return ENGINE.apply(state, None, {"type": "close_vetoes"})
    player = due[0]
    return ENGINE.apply(state, player, GAME.computer.normal(state, player))


@cache
def _game(players: tuple[str, ...], seed: int = 7) -> tuple[Step, ...]:
    """Every public view of one computer game, with the events that led to it."""
    state = ENGINE.new(list(players), {}, seed)
    steps: list[Step] = [(ENGINE.view(state, None), [])]
    while ENGINE.result(state) is None:
        state, events = _advance(state)
        steps.append((ENGINE.view(state, None), events))
    return tuple(steps)


def _views(players: list[str], seed: int = 7) -> list[View]:
    return [copy.deepcopy(v) for v, _e in _game(tuple(players), seed)]


STACKED = {
    "city_order": ["São José do Rio Preto", "Washington, D.C.", "Kathmandu", "Auckland"],
    "statement_order": ["population", "coast", "south", "capital"],
    "veto_seconds": 15,
}


def _stacked(players: list[str], actions: list[tuple[str | None, View]]) -> View:
    """The view after ``actions`` in a game whose first cities and boards are known:
    São José do Rio Preto (Brazil, inland, 480 393 people) comes first."""
    state = ENGINE.new(players, copy.deepcopy(STACKED), 3)
    for player, action in actions:
        state, _events = ENGINE.apply(state, player, action)
    return ENGINE.view(state, None)


def _first_points(colour: str, slot: int = 1) -> int:
    view = _stacked(["ann", "bob", "cy"], [])
    board = view["slots"][slot - 1]
    return int(next(sq["points"] for sq in board["squares"] if sq["color"] == colour))


# -- looking at pictures -----------------------------------------------------------------


def _check(data: bytes, low: int = 150, high: int = 1400) -> Image.Image:
    """What every picture must be: a PNG, phone-friendly in shape, small enough to send.
    The table and standings are 1200 px wide; a reveal is one column 800 px wide, at most
    twice as tall as wide."""
    assert len(data) <= MAX_BYTES
    image = open_png(data)
    width, height = image.size
    assert width in (1200, br.REVEAL_W)
    assert low <= height <= (high if width == 1200 else min(high + 200, 2 * width))
    return image.convert("RGB")


def _said(draw: Any, low: int = 150, high: int = 1400) -> tuple[Image.Image, list[str]]:
    """The checked picture ``draw()`` makes, and the strings drawn on it in order."""
    data, texts = drawn(br, draw)
    return _check(data, low, high), [t.text for t in texts]


def _run(said: list[str], *texts: str) -> bool:
    """``texts`` drawn one right after another."""
    n = len(texts)
    return any(tuple(said[i:i + n]) == texts for i in range(len(said) - n + 1))


def _square_spot(slot: int, index: int) -> tuple[int, int]:
    """A point in the background of a board's ``index``-th square (right of any text)."""
    x, y = br.BOARD_XY[slot]
    _x0, y0, x1, y1 = br._square_boxes()[index]
    return x + x1 - 12, y + (y0 + y1) // 2


# -- the table ---------------------------------------------------------------------------


def test_table_at_the_start() -> None:
    view = _views(FOUR)[0]
    assert view["phase"] == "place" and view["last_reveal"] is None
    image = _check(render_table(view), 1000)
    # Every square is still free: green ones tinted green, red ones tinted red.
    assert image.getpixel(_square_spot(1, 0)) == br.GOOD_TINT
    assert image.getpixel(_square_spot(1, 3)) == br.BAD_TINT


def test_table_in_the_middle_with_the_veto_window_open() -> None:
    views = _views(FOUR)
    middle = [v for v in views[len(views) // 3:] if v["phase"] == "veto"]
    assert middle, "the seeded game has a veto window after its first third"
    view = middle[0]
    assert view["veto_window"]["waiting"]
    image = _check(render_table(view), 1000)
    placement = view["placement"]
    if placement["kind"] == "square":
        # The square just taken is highlighted until the card is revealed.
        board = view["slots"][placement["slot"] - 1]
        index = next(i for i, sq in enumerate(board["squares"])
                     if sq["color"] == placement["color"]
                     and sq["points"] == placement["points"])
        assert image.getpixel(_square_spot(placement["slot"], index)) == kit.HIGHLIGHT
    assert colour_count(image, kit.HIGHLIGHT) > 2000


def test_who_objected_changes_the_table() -> None:
    first = _stacked(["ann", "bob", "cy"], [("ann", {"type": "place", "slot": 1,
                                                     "color": "green",
                                                     "points": _first_points("green")})])
    objected = _stacked(["ann", "bob", "cy"], [("ann", {"type": "place", "slot": 1,
                                                        "color": "green",
                                                        "points": _first_points("green")}),
                                               ("bob", {"type": "veto"})])
    assert first["veto_window"]["waiting"] == ["bob", "cy"]
    assert objected["veto_window"]["objectors"] == ["bob"]
    a, b = render_table(first), render_table(objected)
    _check(a), _check(b)
    assert a != b


def test_table_at_the_end() -> None:
    views = _views(FOUR)
    end = views[-1]
    assert end["phase"] == "over" and end["winners"]
    png = render_table(end)
    _check(png, 1000)
    assert png != render_table(views[-2])


def test_each_move_changes_the_picture() -> None:
    views = _views(FOUR)[:12]
    pictures = [render_table(v) for v in views]
    for before, after in itertools.pairwise(pictures):
        assert before != after


def test_the_same_view_gives_the_same_picture() -> None:
    view = _views(FOUR)[9]
    assert render_table(view) == render_table(copy.deepcopy(view))


def test_rendering_leaves_the_view_untouched() -> None:
    view = _views(FOUR)[9]
    before = copy.deepcopy(view)
    render_table(view)
    render_reveal(view)
    assert view == before


@pytest.mark.parametrize("players", [["ann", "bob"], ["ann", "bob", "cy", "dee", "eve", "fay"]])
def test_two_and_six_players(players: list[str]) -> None:
    views = _views(players, seed=2)
    sizes = set()
    for view in (views[0], views[len(views) // 2], views[-1]):
        image = _check(render_table(view), 1000)
        sizes.add(image.size)
    assert len(sizes) == 1, "the table keeps its size through a game"
    for steps in _game(tuple(players), 2)[1:]:
        for name, png in render_extras(*steps):
            _check(png)
            assert name.startswith(("reveal-", "final"))


def test_more_players_make_a_taller_score_table() -> None:
    two = open_png(render_table(_views(["ann", "bob"], 2)[0]))
    six = open_png(render_table(_views(["ann", "bob", "cy", "dee", "eve", "fay"], 2)[0]))
    assert six.height > two.height


def test_a_replaced_board_and_replaceable_boards_are_marked() -> None:
    found: dict[str, View] = {}
    for players in (FOUR, ["ann", "bob"], ["ann", "bob", "cy", "dee", "eve", "fay"]):
        for view in _views(players, 2):
            if view["replaced_slot"] and "replaced" not in found:
                found["replaced"] = view
            if any(b["replaceable"] for b in view["slots"]) and "replaceable" not in found:
                found["replaceable"] = view
    assert set(found) == {"replaced", "replaceable"}
    for view in found.values():
        plain = copy.deepcopy(view)
        plain["replaced_slot"] = None
        for board in plain["slots"]:
            board["replaceable"] = False
        assert render_table(view) != render_table(plain)


def test_the_end_trigger_is_shown() -> None:
    views = [v for v in _views(["ann", "bob", "cy", "dee", "eve", "fay"], 1)
             if v["end_triggered"] and v["phase"] != "over"]
    assert views
    view = views[0]
    quiet = copy.deepcopy(view)
    quiet["end_triggered"] = False
    assert render_table(view) != render_table(quiet)


def test_no_free_square_lays_the_city_beside_the_board() -> None:
    view = _stacked(["ann", "bob", "cy"], [("ann", {"type": "no_free_square"})])
    assert view["phase"] == "veto" and view["beside_board"]
    _image, said = _said(lambda: render_table(view))
    assert _run(said, "São José do", "Rio Preto", "beside the board")
    assert _run(said, "ann", "put São José do Rio Preto ", "beside the board: no free square")
    assert _run(said, "May object: ", "bob", "cy")
    assert any(s.endswith("beside the board: São José do Rio Preto") for s in said)


def test_a_view_without_optional_keys_still_renders() -> None:
    view = _views(FOUR)[5]
    for key in ("last_reveal", "piles", "veto_window", "beside_board", "turns", "winners",
                "first_player", "replaced_slot", "veto_seconds"):
        view.pop(key, None)
    _image, said = _said(lambda: render_table(view))
    scores = said[said.index("vetoes left") + 1:]
    assert scores == [str(x) for p in FOUR for x in (p, view["scores"][p])]
    _image, said = _said(lambda: render_reveal(view), 100)
    assert said == ["No city has been revealed yet", "Round 1 is in play"]


# -- hidden facts ----------------------------------------------------------------------


def test_the_table_never_needs_the_hidden_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the current city's name is in a view; the table draws from the view alone."""
    view = _views(FOUR)[0]
    assert set(view["city"]) == {"id", "name"}

    def hidden(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the table looked at a city card")

    for name in ("card", "facts", "truth", "_by_id", "_cards", "find_city", "name"):
        monkeypatch.setattr(content, name, hidden)
    # A city the deck does not even hold: nothing can be looked up about it.
    view["city"] = {"id": "chihuahua", "name": "Chihuahua"}
    png = render_table(view)
    _check(png)
    assert png != render_table({**view, "city": {"id": "x", "name": "Honolulu"}})
    assert not hasattr(br, "content")


def test_the_table_shows_the_same_whatever_the_city_card_says() -> None:
    """Two cards with the same name but different facts: the table cannot tell."""
    view = _views(FOUR)[0]
    with_facts = copy.deepcopy(view)
    with_facts["city"] = {**view["city"], "facts": {"population": {"value": 1, "true": False}}}
    assert render_table(with_facts) == render_table(view)


# -- reveals ---------------------------------------------------------------------------


def _verdict_colour(png: bytes) -> kit.RGB:
    """The colour of the RIGHT / WRONG label at the top left of a reveal."""
    pixel = open_png(png).convert("RGB").getpixel((br.MARGIN + 6, 40))
    assert isinstance(pixel, tuple) and len(pixel) == 3
    return int(pixel[0]), int(pixel[1]), int(pixel[2])


def test_a_right_reveal() -> None:
    red = _first_points("red")
    view = _stacked(["ann", "bob", "cy"], [("ann", {"type": "place", "slot": 1, "color": "red",
                                                    "points": red}),
                                           ("bob", {"type": "no_veto"}),
                                           ("cy", {"type": "no_veto"})])
    reveal = view["last_reveal"]
    assert reveal["right"] and reveal["points"]["ann"] == red
    png = render_reveal(view)
    _check(png, 600)
    assert _verdict_colour(png) == kit.GOOD


def test_a_wrong_reveal_with_an_objection() -> None:
    green = _first_points("green")
    view = _stacked(["ann", "bob", "cy"], [("ann", {"type": "place", "slot": 1, "color": "green",
                                                    "points": green}),
                                           ("bob", {"type": "veto"}),
                                           ("cy", {"type": "no_veto"})])
    reveal = view["last_reveal"]
    assert not reveal["right"] and reveal["objectors"] == ["bob"]
    assert reveal["points"]["bob"] == 3
    png = render_reveal(view)
    _check(png, 600)
    assert _verdict_colour(png) == kit.BAD
    # The objector's points differ from a reveal where nobody objected.
    quiet = copy.deepcopy(view)
    quiet["last_reveal"]["objectors"] = []
    quiet["last_reveal"]["points"]["bob"] = 0
    assert render_reveal(quiet) != png


def test_a_reveal_on_a_risk_field_highlights_both_statements() -> None:
    view = _stacked(["ann", "bob"], [("ann", {"type": "place", "risk": "1-2", "color": "red"}),
                                     ("bob", {"type": "no_veto"})])
    reveal = view["last_reveal"]
    assert len(reveal["checked"]) == 2
    one = _check(render_reveal(view), 600)
    single = copy.deepcopy(view)
    single["last_reveal"]["checked"] = reveal["checked"][:1]
    two_rows = colour_count(one, kit.HIGHLIGHT)
    one_row = colour_count(open_png(render_reveal(single)), kit.HIGHLIGHT)
    assert two_rows > one_row > 0


def test_a_reveal_of_there_is_no_free_square() -> None:
    view = _stacked(["ann", "bob", "cy"], [("ann", {"type": "no_free_square"}),
                                           ("bob", {"type": "no_veto"}),
                                           ("cy", {"type": "veto"})])
    reveal = view["last_reveal"]
    assert reveal["placement"]["kind"] == "no_free_square"
    assert not reveal["right"] and reveal["free_squares_right"]
    wrong = render_reveal(view)
    _check(wrong, 600)
    # The same declaration proved right: no free square would have been correct.
    right = copy.deepcopy(view)
    right["last_reveal"].update(right=True, free_squares_right=[],
                                points={"ann": 8, "bob": 0, "cy": -3})
    png = render_reveal(right)
    _check(png, 600)
    assert open_png(png).height < open_png(wrong).height  # one line instead of a list
    assert _verdict_colour(png) == kit.GOOD


def test_the_reveal_shows_every_fact_with_its_symbol() -> None:
    view = _stacked(["ann", "bob"], [("ann", {"type": "place", "risk": "1-2", "color": "red"}),
                                     ("bob", {"type": "no_veto"})])
    facts = view["last_reveal"]["city"]["facts"]
    assert set(facts) == set(br.FACT_ORDER)
    texts = {s: br.fact_text(s, f["value"], view["last_reveal"]["city"])
             for s, f in facts.items()}
    assert texts["population"] == "480 393"
    assert texts["coast"] == "inland"
    assert texts["south"].endswith("S")
    assert texts["airport"] == "none"
    changed = copy.deepcopy(view)
    changed["last_reveal"]["city"]["facts"]["elevation"]["value"] = 1200
    assert render_reveal(changed) != render_reveal(view)


def test_fact_values_read_like_the_card() -> None:
    card = {"country": "France"}
    assert br.fact_text("founded", -250, card) == "250 BC"
    assert br.fact_text("timezones", 5.5, card) == "4.5 h apart (UTC+5:30)"
    assert br.fact_text("timezones", -3.5, card) == "4.5 h apart (UTC−3:30)"
    assert br.fact_text("capital", True, card) == "capital of France"
    assert br.fact_text("area", 1234.5, card) == "1 234 km²"
    assert br.fact_text("temperature", 10.5, card) == "10.5 °C"
    assert br.fact_text("south", -33.87, card) == "33.9° S"


def test_before_any_reveal_there_is_a_short_notice() -> None:
    view = _views(FOUR)[0]
    image = _check(render_reveal(view), 100, 300)
    assert image.height < 300


# -- extras ----------------------------------------------------------------------------


def test_extras_give_a_reveal_for_each_reveal_event() -> None:
    steps = _game(tuple(FOUR))
    with_reveal = [(v, e) for v, e in steps if any(x["type"] == "reveal" for x in e)]
    assert with_reveal
    seen = []
    for view, events in with_reveal:
        extras = render_extras(view, events)
        names = [name for name, _png in extras]
        assert names[0].startswith("reveal-")
        assert extras[0][1] == render_reveal(view)
        seen.append(names[0])
    assert len(set(seen)) == len(seen), "each reveal has its own name"
    quiet = [(v, e) for v, e in steps[1:] if not any(x["type"] in ("reveal", "game_over")
                                                     for x in e)]
    assert quiet and render_extras(*quiet[0]) == []


def test_extras_add_the_final_standings_at_the_end() -> None:
    view, events = _game(tuple(FOUR))[-1]
    assert any(e["type"] == "game_over" for e in events)
    names = [name for name, _png in render_extras(view, events)]
    assert "final" in names
    final = dict(render_extras(view, events))["final"]
    _check(final, 200, 900)


# -- names -----------------------------------------------------------------------------

ODD_NAMES = ["Ann 🦩🦩", "ᏣᎳᎩᎯ", "A very very long display name that goes on and on", "Zoë 🇫🇷"]


def test_odd_names_render() -> None:
    steps = _game(tuple(ODD_NAMES), 7)
    for view, events in (steps[0], steps[len(steps) // 2], steps[-1]):
        _image, said = _said(lambda view=view: render_table(view))
        table = said[said.index("vetoes left") + 1:]  # names, scores, vetoes used, ★
        names = [s for s in table if s in ("Ann 🦩🦩", "Player 2", "Zoë 🇫🇷") or s.startswith("A ")]
        assert names[:2] == ["Ann 🦩🦩", "Player 2"] and names[3] == "Zoë 🇫🇷"  # ᏣᎳᎩᎯ: its seat
        assert names[2].startswith("A very") and names[2].endswith("…")
        assert not any(ch in "".join(said) for ch in "ᏣᎳᎩᎯ")
        for _name, png in render_extras(view, events):
            _check(png)
    _image, said = _said(lambda: render_reveal(steps[-1][0]))
    assert {"Ann 🦩🦩", "Player 2", "Zoë 🇫🇷"} <= set(said)
    assert any(s.startswith("A very") and s.endswith("…") for s in said)
    assert not any(ch in "".join(said) for ch in "ᏣᎳᎩᎯ")


def test_what_no_font_draws_is_dropped_cleanly() -> None:
    view = _views(FOUR)[9]
    # a private character, and a skin tone with no emoji to colour
    fancy = renamed(view, {"ann": "ann \ue000", "cy": "cy \U0001f3fd"})
    assert render_table(fancy) == render_table(view)
    assert render_reveal(fancy) == render_reveal(view)


def test_long_names_are_cut_to_the_same_picture() -> None:
    view = _views(FOUR)[9]
    long = renamed(view, {"bob": "bob" + "o" * 60})
    longer = renamed(view, {"bob": "bob" + "o" * 90})
    assert render_table(long) == render_table(longer)
    assert render_table(long) != render_table(view)
    _check(render_reveal(long))


def test_unreadable_names_fall_back_to_seat_numbers() -> None:
    view = _views(FOUR)[9]
    cjk = renamed(view, {"bob": "ᏣᎳᎩ"})
    seat = renamed(view, {"bob": "Player 2"})
    assert render_table(cjk) == render_table(seat)


def test_long_city_names_fit() -> None:
    view = _stacked(["ann", "bob"], [])
    assert view["city"]["name"] == "São José do Rio Preto"
    _check(render_table(view))
    for board in view["slots"]:
        for square in board["squares"]:
            square["city"] = {"id": "x", "name": "São José do Rio Preto"}
    data, texts = drawn(br, lambda: render_table(view))
    _check(data)
    # the name is written whole on every square of the four boards, inside its square
    names = [t.box for t in texts if t.text == "São José do Rio Preto"]
    assert len(names) == 16
    squares = br._square_boxes()
    for x0, y0, x1, y1 in names:
        assert any(sx0 <= x0 and x1 <= sx1 and sy0 <= y0 and y1 <= sy1
                   for sx0, sy0, sx1, sy1 in squares), (x0, y0, x1, y1)


# -- symbols ---------------------------------------------------------------------------


def test_every_statement_has_its_own_symbol() -> None:
    statements = json.loads((content.DATA_DIR / "statements.json").read_text("utf-8"))
    masks = []
    for statement in statements:
        assert br.SYMBOLS[statement["id"]] == statement["symbol"]
        mask = br.symbol_mask(statement["symbol"], 44)
        inked = sum(mask.histogram()[129:])
        assert 150 < inked < 44 * 44 * 0.7, statement["symbol"]
        masks.append(mask.tobytes())
    assert len(set(masks)) == len(masks)
    assert br.symbol_mask("unknown", 44).getbbox() is not None
