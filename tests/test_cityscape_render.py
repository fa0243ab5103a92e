"""Cityscape pictures drawn from real views of games played by the engine."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from PIL import Image

from bot.games.cityscape import ENGINE, GAME
from bot.games.cityscape import render as cr
from bot.games.cityscape.render import constants as layout
from bot.games.cityscape.render import render_scoring, render_table
from bot.render import kit
from tests.pictures import colour_count, drawn, phone_picture, renamed

View = dict[str, Any]
MAX_BYTES = 300_000


def _state(players: list[str], steps: int, seed: int = 7) -> dict[str, Any]:
    state = ENGINE.new(players, {}, seed)
    for _ in range(steps):
        if state["phase"] == "over":
            break
        player = ENGINE.to_act(state)[0]
        state, _events = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    return state


def _view(players: list[str], steps: int, seed: int = 7) -> View:
    return ENGINE.view(_state(players, steps, seed), None)


def _check(data: bytes) -> Image.Image:
    """What every picture must be: a PNG, phone-friendly in shape, small enough to send."""
    return phone_picture(data, MAX_BYTES, (150, 1400))


def _said(draw: Any) -> tuple[Image.Image, list[str]]:
    """The checked picture ``draw()`` makes, and the strings drawn on it in order."""
    data, texts = drawn(cr, draw)
    return _check(data), [t.text for t in texts]


def _pair(said: list[str], first: str, then: str) -> bool:
    """``first`` drawn right before ``then`` (a name and its score, a name and its side)."""
    return any(a == first and b == then for a, b in itertools.pairwise(said))


THREE = ["Ann", "Bob", "Cy"]
ALL_STEPS = 10_000


# -- the table ---------------------------------------------------------------------------


def test_table_at_the_start_while_goals_are_set() -> None:
    view = _view(THREE, 0)
    assert view["phase"] == "goals"
    image = _check(render_table(view))
    # Nothing is built yet, so nothing is highlighted as the last build.
    assert colour_count(image, kit.HIGHLIGHT) == 0


def test_table_in_the_middle_highlights_the_last_build() -> None:
    view = _view(THREE, 3 + 12)
    assert view["phase"] == "building" and view["last_build"]
    image = _check(render_table(view))
    assert colour_count(image, kit.HIGHLIGHT) > 500


def test_table_at_the_end_of_the_game() -> None:
    view = _view(THREE, ALL_STEPS)
    assert view["phase"] == "over" and view["winners"] == ["Bob"]
    _image, said = _said(lambda: render_table(view))
    assert _pair(said, "Game over: ", "Bob") and _pair(said, "Bob", "wins")
    assert "Round 3 of 3 · final city" in said
    for name in THREE:
        assert _pair(said, name, str(view["scores"][name])), name


@pytest.mark.parametrize("steps", [0, 2, 4, 4 + 13, ALL_STEPS])
def test_two_player_table_gives_each_player_two_adjacent_edges(steps: int) -> None:
    view = _view(["Ann", "Bob"], steps)
    assert view["sides"] == {"S": "Ann", "W": "Ann", "N": "Bob", "E": "Bob"}
    image = _check(render_table(view))
    ann, bob = kit.player_style(0).colour, kit.player_style(1).colour
    # Sample each owner band at its plain end, away from letters and names.
    band = layout.GRID + 2 * layout.LABEL
    left, top = layout.MARGIN, layout.BODY
    south = (left + layout.STRIP + band - 40, top + layout.BOARD - layout.STRIP // 2)
    north = (left + layout.STRIP + band - 40, top + layout.STRIP // 2)
    west = (left + layout.STRIP // 2, top + layout.STRIP + 40)  # turned: its free end is on top
    east = (left + layout.BOARD - layout.STRIP // 2, top + layout.STRIP + band - 40)
    assert image.getpixel(south) == ann
    assert image.getpixel(west) == ann
    assert image.getpixel(north) == bob
    assert image.getpixel(east) == bob


def test_four_player_table() -> None:
    view = _view(["Dee", "Eve", "Fay", "Gus"], 4 + 9, seed=3)
    assert view["sides"] == {"S": "Dee", "W": "Eve", "N": "Fay", "E": "Gus"}
    image, said = _said(lambda: render_table(view))
    for side, word in (("S", "south"), ("W", "west"), ("N", "north"), ("E", "east")):
        assert _pair(said, view["sides"][side], f" · {word}"), side
        assert _pair(said, view["sides"][side], "0")  # everyone's score
    assert _pair(said, view["turn"], "to build")
    assert "Round 1 of 4 · 9 of 25 blocks built · Dee builds first" in said
    # each player's colour marks their side of the board
    band = layout.GRID + 2 * layout.LABEL
    left, top = layout.MARGIN, layout.BODY
    south = (left + layout.STRIP + band - 40, top + layout.BOARD - layout.STRIP // 2)
    north = (left + layout.STRIP + band - 40, top + layout.STRIP // 2)
    assert image.getpixel(south) == kit.player_style(0).colour
    assert image.getpixel(north) == kit.player_style(2).colour


def test_an_empty_side_is_drawn_as_nobody_s() -> None:
    view = _view(THREE, 5)
    assert "E" not in view["sides"]
    image = _check(render_table(view))
    east = (layout.MARGIN + layout.BOARD - layout.STRIP // 2, layout.BODY + layout.STRIP + 30)
    assert image.getpixel(east) == kit.PANEL_ALT


def test_the_table_never_shows_secret_goals() -> None:
    """A player's own view carries their codes; the table is public and ignores them."""
    state = _state(THREE, 3 + 5)
    public, private = ENGINE.view(state, None), ENGINE.view(state, "Ann")
    assert "my_goals" in private and "my_goals" not in public
    assert render_table(private) == render_table(public)


def test_a_view_without_optional_keys_still_renders() -> None:
    view = _view(THREE, 3 + 5)
    for key in ("last_build", "round_results", "goals_set", "turn", "winners", "scores"):
        view.pop(key, None)
    _image, said = _said(lambda: render_table(view))
    for name, word in zip(THREE, ("south", "west", "north"), strict=True):
        assert _pair(said, name, f" · {word}")
    assert "Last: " not in said  # no last build to tell of
    _image, said = _said(lambda: render_table({}))
    for word in ("north", "south", "west", "east"):
        assert f"{word} · no player" in said
    assert {f"{c}{r}" for c in "ABCD" for r in "1234"} <= set(said)  # an empty board


def test_rendering_leaves_the_view_untouched() -> None:
    view = _view(THREE, 3 + 20)
    before = copy.deepcopy(view)
    render_table(view)
    render_scoring(ENGINE.view(_state(THREE, ALL_STEPS), None))
    assert view == before


def test_different_boards_give_different_pictures() -> None:
    a, b = _view(THREE, 3 + 10, seed=1), _view(THREE, 3 + 10, seed=2)
    assert a["lots"] != b["lots"]
    assert render_table(a) != render_table(b)


def test_each_build_changes_the_picture() -> None:
    pictures = {render_table(_view(THREE, 3 + n)) for n in range(1, 6)}
    assert len(pictures) == 5


def test_whose_turn_it_is_changes_the_picture() -> None:
    view = _view(THREE, 3 + 4)
    other = copy.deepcopy(view)
    other["turn"] = other["to_act"][0] = next(p for p in THREE if p != view["turn"])
    assert render_table(view) != render_table(other)


def test_very_tall_buildings_fit_the_board() -> None:
    view = _view(THREE, 3 + 2)
    view["lots"]["B2"] = [5] * 15
    view["heights"]["B2"] = 75
    view["lines"] = {side: [[75 if h else 0 for h in line] for line in lines]
                     for side, lines in view["lines"].items()}
    data, texts = drawn(cr, lambda: render_table(view))
    image = _check(data)
    tall = [t.box for t in texts if t.text == "75"]
    grid = layout.MARGIN + layout.STRIP + layout.LABEL, layout.BODY + layout.STRIP + layout.LABEL
    on_board = [(x0, y0, x1, y1) for x0, y0, x1, y1 in tall
                if grid[0] <= x0 and x1 <= grid[0] + layout.GRID
                and grid[1] <= y0 and y1 <= grid[1] + layout.GRID]
    assert on_board, "the height of the tall building is written inside its lot"
    assert all(x0 >= 0 and x1 <= image.width and y0 >= 0 and y1 <= image.height
               for x0, y0, x1, y1 in tall)


# -- names -------------------------------------------------------------------------------

ODD_NAMES = ["Ann 🦩🦩", "ᏣᎳᎩᎯ", "A very very long display name that goes on and on", "Zoë 🇫🇷"]


@pytest.mark.parametrize("steps", [0, 4 + 7, ALL_STEPS])
def test_odd_names_render(steps: int) -> None:
    view = _view(ODD_NAMES, steps)
    pictures = [render_table]
    if view["round_results"]:
        pictures.append(render_scoring)
    for render in pictures:
        _image, said = _said(lambda render=render: render(view))
        text = "\n".join(said)
        assert "Ann 🦩🦩" in said and "Zoë 🇫🇷" in said  # emoji are drawn
        assert "Player 2" in said  # ᏣᎳᎩᎯ (Cherokee): no glyphs
        assert any(s.startswith("A very") and s.endswith("…") for s in said)
        assert not any(ch in text for ch in "ᏣᎳᎩᎯ")


def test_what_no_font_draws_is_dropped_cleanly() -> None:
    view = _view(["Ann", "Bob", "Cy"], 3 + 6)
    # a private character, and a skin tone with no emoji to colour
    fancy = renamed(view, {"Ann": "Ann \ue000", "Cy": "Cy \U0001f3fd"})
    assert render_table(fancy) == render_table(view)


def test_long_names_are_cut_to_the_same_picture() -> None:
    """Past the room a name has, extra letters change nothing: it is ellipsised."""
    view = _view(["Ann", "Bob", "Cy"], 3 + 6)
    long = renamed(view, {"Bob": "Bob" + "o" * 60})
    longer = renamed(view, {"Bob": "Bob" + "o" * 90})
    assert render_table(long) == render_table(longer)
    assert render_table(long) != render_table(view)


def test_unreadable_names_fall_back_to_seat_numbers() -> None:
    view = _view(["Ann", "Bob", "Cy"], 3 + 6)
    cjk = renamed(view, {"Bob": "ᏣᎳᎩ"})
    seat = renamed(view, {"Bob": "Player 2"})
    assert render_table(cjk) == render_table(seat)


# -- scoring -----------------------------------------------------------------------------


def test_scoring_of_the_latest_round_and_of_an_earlier_one() -> None:
    view = _view(THREE, ALL_STEPS)
    assert len(view["round_results"]) == 3
    latest = render_scoring(view)
    assert latest == render_scoring(view, 3)
    first = render_scoring(view, 1)
    assert first != latest
    _check(latest)
    _check(first)


def test_scoring_right_after_a_round_mid_game() -> None:
    view = _view(THREE, 3 + 25)
    assert view["phase"] == "goals" and len(view["round_results"]) == 1
    _image, said = _said(lambda: render_scoring(view))
    assert said[0] == "Round 1 scored: goals revealed"
    words = {"S": "south", "W": "west", "N": "north", "E": "east"}
    for side, result in view["round_results"][0]["sides"].items():
        assert _pair(said, view["sides"][side], f"{words[side]} ({side})")
        assert f"{result['points']} pts" in said, side


def test_two_player_scoring_shows_four_sides() -> None:
    view = _view(["Ann", "Bob"], 4 + 25)
    assert set(view["round_results"][0]["sides"]) == {"S", "W", "N", "E"}
    four = _check(render_scoring(view))
    three = _check(render_scoring(_view(THREE, 3 + 25)))
    assert four.height > three.height


def test_scoring_before_any_round_is_a_short_notice() -> None:
    image, said = _said(lambda: render_scoring(_view(THREE, 3)))
    assert said == ["No round has been scored yet", "Round 1 of 3 is in play"]
    assert image.height < 400


def test_scoring_an_unplayed_round_is_refused() -> None:
    with pytest.raises(ValueError):
        render_scoring(_view(THREE, 3 + 25), 2)


def test_a_shared_win_renders() -> None:
    view = _view(THREE, ALL_STEPS)
    view["winners"] = ["Ann", "Cy"]
    assert render_scoring(view) != render_scoring(_view(THREE, ALL_STEPS))
    _check(render_table(view))


def test_scoring_marks_hits_and_misses() -> None:
    """A scored line shows its ✓ in the success colour; a missed one its ✗."""
    view = _view(THREE, ALL_STEPS)
    result = view["round_results"][-1]
    lines = [line for side in result["sides"].values() for line in side["lines"]]
    image = _check(render_scoring(view))
    assert any(line["points"] for line in lines) == (colour_count(image, kit.GOOD) > 0)
    assert any(not line["points"] for line in lines) == (colour_count(image, kit.BAD) > 0)


def test_a_scored_round_gets_its_own_picture() -> None:
    state = _state(THREE, 3 + 24)
    player = ENGINE.to_act(state)[0]
    state, events = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    view = ENGINE.view(state, None)
    extras = cr.render_extras(view, events)
    assert [name for name, _png in extras] == ["round-1-scoring"]
    assert extras[0][1] == render_scoring(view, 1)
    assert cr.render_extras(view, []) == []
