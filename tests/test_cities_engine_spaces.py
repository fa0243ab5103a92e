"""A neighbourhood's spaces: where tiles, features and pieces may go and why not, its water
and park areas as tiles come and go, and what a saved neighbourhood keeps."""

from __future__ import annotations

import pytest

from bot.games.cities import neighbourhood, scoring
from bot.games.cities.content import CONTENT
from bot.games.cities.neighbourhood import (
    STANDARD_LIMIT,
    VARIANT_LIMIT,
    Neighbourhood,
    adjacent,
    fits,
    parse_key,
    space_key,
)

MONUMENT = CONTENT.features["F37"]
WILD = CONTENT.features["F45"]
SAILBOAT = CONTENT.features["F01"]
FERRY = CONTENT.features["F06"]
KAYAKS = CONTENT.features["F11"]
FOUNTAIN = CONTENT.features["F19"]
PLAYGROUND = CONTENT.features["F24"]


def test_spaces_are_written_row_comma_column_and_read_back() -> None:
    assert space_key((-2, 3)) == "-2,3"
    assert parse_key("-2,3") == (-2, 3)
    assert parse_key(space_key((4, -1))) == (4, -1)


def test_adjacent_means_orthogonal_not_diagonal(monkeypatch: pytest.MonkeyPatch) -> None:
    # "'Adjacent' means orthogonal not diagonal."
    # The answers are kept once worked out; with nothing kept yet, each one is worked out
    # here by the rule, not read back from an earlier test's game.
    monkeypatch.setattr(neighbourhood, "_ADJACENT", {})
    for space in ((2, 5), (57, -31), (0, 0)):
        r, c = space
        found = adjacent(space)
        assert len(found) == 4 and set(found) == {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}
        assert adjacent(space) is found  # kept: asked again, the same answer


@pytest.mark.parametrize(
    ("height", "width", "limit", "ok"),
    [
        (3, 3, STANDARD_LIMIT, True), (1, 3, STANDARD_LIMIT, True), (4, 1, STANDARD_LIMIT, False),
        (1, 4, STANDARD_LIMIT, False), (3, 5, VARIANT_LIMIT, True), (5, 3, VARIANT_LIMIT, True),
        (4, 4, VARIANT_LIMIT, False), (1, 6, VARIANT_LIMIT, False), (6, 1, VARIANT_LIMIT, False),
        (4, 3, VARIANT_LIMIT, True), (3, 4, VARIANT_LIMIT, True),
    ],
)
def test_a_neighbourhood_fits_its_limit_either_way_round(height: int, width: int, limit: tuple[int, int], ok: bool) -> None:
    assert fits(height, width, limit) is ok


def test_size_and_bounds_follow_tiles_on_every_side() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_tile("C01", (-1, 0), 0)
    hood.place_tile("C02", (0, -1), 0)
    hood.place_tile("C03", (0, 1), 0)
    assert hood.tile_bounds() == (-1, 0, -1, 1)
    assert hood.size() == (2, 3)
    assert list(hood.spaces())[:2] == [(-2, 0), (-2, 1)]
    assert len(list(hood.spaces())) == 16


def test_tile_refusals_name_the_limit_of_the_variant() -> None:
    hood = Neighbourhood.starting("S1")
    for i, tile in enumerate(["C01", "C02", "C03", "C04"], start=1):
        hood.place_tile(tile, (0, i), 0)
    assert hood.tile_refusal((0, 5), VARIANT_LIMIT) == "Your neighbourhood may never exceed 3 x 5 tiles."
    assert hood.tile_refusal((0, -1), VARIANT_LIMIT) == "Your neighbourhood may never exceed 3 x 5 tiles."
    assert hood.tile_refusal((0, 2), VARIANT_LIMIT) == "A tile is already there."
    assert hood.tile_refusal((2, 0), VARIANT_LIMIT) == (
        "A city tile must share a whole edge with a tile of your neighbourhood."
    )
    # 1 x 5: every spot above or below the row is open, and nothing at either end.
    assert hood.tile_spots(VARIANT_LIMIT) == [(-1, i) for i in range(5)] + [(1, i) for i in range(5)]
    assert hood.tile_spots(STANDARD_LIMIT) == []
    hood.place_tile("C05", (1, 0), 0)
    hood.place_tile("C06", (2, 0), 0)
    assert hood.tile_refusal((3, 0), VARIANT_LIMIT) == "Your neighbourhood may never exceed 3 x 5 tiles."
    assert hood.tile_refusal((-1, 0), VARIANT_LIMIT) == "Your neighbourhood may never exceed 3 x 5 tiles."
    assert hood.tile_refusal((2, 4), VARIANT_LIMIT) == (
        "A city tile must share a whole edge with a tile of your neighbourhood."
    )


def test_a_tile_at_the_corner_of_the_three_by_three_still_fits() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_tile("C01", (0, 1), 0)
    hood.place_tile("C02", (1, 1), 0)
    assert hood.tile_refusal((1, 2), STANDARD_LIMIT) is None
    assert hood.tile_refusal((2, 1), STANDARD_LIMIT) is None
    assert hood.tile_refusal((-1, 1), STANDARD_LIMIT) is None
    assert hood.tile_refusal((1, 0), STANDARD_LIMIT) is None
    hood.place_tile("C03", (-1, 1), 0)
    assert hood.tile_refusal((2, 1), STANDARD_LIMIT) == (
        "Your neighbourhood may never exceed 3 tiles in length and 3 in width."
    )
    assert hood.tile_spots(STANDARD_LIMIT) == [(-1, 0), (-1, 2), (0, -1), (0, 2), (1, 0), (1, 2)]


def test_feature_refusals_say_which_space_a_feature_needs() -> None:
    # "Feature tiles with a blue background are placed on water spaces; tiles with a green
    # background are placed on park spaces; and tiles with a grey background are placed on
    # building spaces with no building pieces on them. Only 1 feature tile may be placed per
    # space."
    hood = Neighbourhood.starting("S1")  # R W / P B
    assert hood.feature_refusal(SAILBOAT, (5, 5)) == "That space is not in your neighbourhood."
    assert hood.feature_refusal(MONUMENT, (-1, 0)) == "That space is not in your neighbourhood."
    assert hood.feature_refusal(SAILBOAT, (0, 0)) == "Sailboat goes on a water space."
    assert hood.feature_refusal(FOUNTAIN, (0, 1)) == "Fountain goes on a park space."
    assert hood.feature_refusal(MONUMENT, (0, 1)) == "Monument (Statue) goes on a city space."
    assert hood.feature_refusal(WILD, (1, 0)) == "Wild tile goes on a city space."
    assert hood.feature_refusal(SAILBOAT, (0, 1)) is None
    assert hood.feature_refusal(FOUNTAIN, (1, 0)) is None
    assert hood.feature_refusal(WILD, (1, 1)) is None
    hood.place_piece("B", (1, 1))
    assert hood.feature_refusal(WILD, (1, 1)) == "Wild tile goes on a city space without building pieces."
    hood.place_feature(FOUNTAIN, (1, 0))
    assert hood.feature_refusal(PLAYGROUND, (1, 0)) == "That space already has a feature tile."
    hood.place_feature(MONUMENT, (0, 0))
    assert hood.feature_refusal(WILD, (0, 0)) == "That space already has a feature tile."
    assert hood.feature_spaces(WILD) == []
    assert hood.feature_spaces(PLAYGROUND) == []
    assert hood.feature_spaces(FERRY) == [(0, 1)]
    hood.remove_feature((1, 0))
    assert hood.feature_spaces(PLAYGROUND) == [(1, 0)]
    assert hood.feature_refusal(PLAYGROUND, (1, 0)) is None


def test_feature_spaces_list_every_free_space_of_the_type_in_order() -> None:
    hood = Neighbourhood.starting("S2")  # G W / P Y
    hood.place_tile("C20", (0, 1), 0)  # Y Y / W W
    hood.place_tile("C17", (-1, 0), 0)  # R R / W W
    assert hood.feature_spaces(KAYAKS) == [(-1, 0), (-1, 1), (0, 1), (1, 2), (1, 3)]
    assert hood.feature_spaces(MONUMENT) == [(-2, 0), (-2, 1), (0, 0), (0, 2), (0, 3), (1, 1)]
    hood.place_feature(KAYAKS, (0, 1))
    hood.place_piece("Y", (0, 2))
    hood.place_feature(WILD, (0, 3))
    assert hood.feature_spaces(SAILBOAT) == [(-1, 0), (-1, 1), (1, 2), (1, 3)]
    assert hood.feature_spaces(MONUMENT) == [(-2, 0), (-2, 1), (0, 0), (1, 1)]


def test_piece_refusals_and_spaces() -> None:
    # "Each building piece can be placed on a building space of the corresponding color or
    # can be stacked on top of a piece of the same color (up to 4 pieces high)."
    hood = Neighbourhood.starting("S1")  # R W / P B
    hood.place_tile("C01", (0, 1), 0)  # R B / P W
    assert hood.piece_refusal("R", (9, 9)) == "That space is not in your neighbourhood."
    assert hood.piece_refusal("B", (1, 0)) == "Building pieces go on city spaces only."
    assert hood.piece_refusal("B", (1, 3)) == "Building pieces go on city spaces only."
    assert hood.piece_spaces("R") == [(0, 0), (0, 2)]
    assert hood.piece_spaces("B") == [(0, 3), (1, 1)]
    hood.place_feature(MONUMENT, (0, 2))
    assert hood.piece_spaces("R") == [(0, 0)]
    assert hood.piece_refusal("R", (0, 2)) == "No building pieces may be placed on a feature tile."
    for _ in range(3):
        hood.place_piece("R", (0, 0))
    assert hood.piece_spaces("R") == [(0, 0)]
    assert hood.piece_refusal("R", (0, 0)) is None
    hood.place_piece("R", (0, 0))
    assert hood.piece_spaces("R") == []  # the tower is 4 high
    assert hood.piece_refusal("R", (0, 0)) == "Buildings are at most 4 pieces high."
    assert hood.piece_refusal("B", (0, 0)) == "Only pieces of the building's colour may be stacked on it."
    hood.place_feature(WILD, (1, 1))
    assert hood.piece_spaces("G") == [(1, 1)]
    assert hood.piece_spaces("B") == [(0, 3), (1, 1)]
    hood.place_piece("G", (1, 1))
    assert hood.piece_spaces("G") == [(1, 1)]
    assert hood.piece_spaces("B") == [(0, 3)]
    assert hood.height((1, 1)) == 1 and hood.height((0, 3)) == 0 and hood.height((0, 0)) == 4


def test_a_piece_put_back_leaves_the_building_as_it_was() -> None:
    hood = Neighbourhood.starting("S1")
    assert hood.place_piece("R", (0, 0)) is None
    assert hood.place_piece("R", (0, 0)) == ("R", 1)
    before = hood.place_piece("R", (0, 0))
    assert before == ("R", 2)
    hood.undo_piece((0, 0), before)
    assert hood.buildings == {(0, 0): ("R", 2)}
    hood.undo_piece((1, 1), hood.place_piece("B", (1, 1)))
    assert hood.buildings == {(0, 0): ("R", 2)}


def test_an_empty_city_space_may_hold_an_unbuilt_wild_tile() -> None:
    # "A special feature tile counts as an empty city space of any color for the purposes of
    # achievements." A monument is "not an empty city space" (design D7).
    hood = Neighbourhood.starting("S1")  # R W / P B
    hood.place_tile("C01", (0, 1), 0)  # R B / P W
    hood.place_feature(WILD, (0, 0))
    hood.place_feature(MONUMENT, (0, 2))
    hood.place_piece("B", (1, 1))
    empty = [s for s in hood.spaces() if hood.is_empty_city(s)]
    assert empty == [(0, 0), (0, 3)]
    hood.place_piece("R", (0, 0))
    assert not hood.is_empty_city((0, 0))
    assert not hood.is_empty_city((7, 7))
    assert hood.monuments() == [(0, 2)]


def test_touching_follows_the_spaces_that_join_and_leave() -> None:
    hood = Neighbourhood.starting("S1")  # R W / P B
    assert hood.touches((0, 0), "W") and hood.touches((0, 0), "P")
    assert not hood.touches((0, 0), "B")
    assert not hood.touches((0, 1), "W")
    assert not hood.touches((1, 1), "Y")
    hood.place_tile("C20", (0, 1), 270)  # Y Y / W W turned 270: Y W / Y W
    assert hood.touches((1, 1), "Y")  # the new tile's yellow space lies beside it
    assert hood.touches((0, 1), "Y")
    hood.remove_tile((0, 1))
    assert not hood.touches((1, 1), "Y")
    assert not hood.touches((0, 1), "Y")


def test_areas_grow_and_merge_as_tiles_join() -> None:
    # "An 'area' means a group of orthogonally connected spaces."
    hood = Neighbourhood.starting("S1")  # R W / P B
    assert hood.areas("W") == [[(0, 1)]] and hood.areas("P") == [[(1, 0)]]
    hood.place_tile("C20", (0, 1), 180)  # W W / Y Y: water beside the start tile's
    assert hood.areas("W") == [[(0, 1), (0, 2), (0, 3)]]
    hood.place_tile("C32", (1, 1), 0)  # W W / G P, below: its water touches no water
    assert sorted(hood.areas("W")) == [[(0, 1), (0, 2), (0, 3)], [(2, 2), (2, 3)]]
    hood.place_tile("C02", (1, 0), 90)  # R W / P B turned 90: P R / B W
    assert sorted(hood.areas("P")) == [[(1, 0), (2, 0)], [(3, 3)]]
    hood.place_tile("C17", (-1, 0), 0)  # R R / W W, above: joins the long water
    assert sorted(hood.areas("W")) == [[(-1, 0), (-1, 1), (0, 1), (0, 2), (0, 3)], [(2, 2), (2, 3)], [(3, 1)]]
    fresh = Neighbourhood.from_state(hood.to_state())
    for code in "WP":
        assert sorted(fresh.areas(code)) == sorted(hood.areas(code))
    # The scores read the same areas: water 2 areas with one kind each.
    hood.place_feature(SAILBOAT, (0, 2))
    hood.place_feature(FERRY, (-1, 0))
    hood.place_feature(KAYAKS, (2, 2))
    assert sorted(len(hood.area_kinds(a)) for a in hood.areas("W")) == [0, 1, 2]
    long = next(a for a in hood.areas("W") if (0, 2) in a)
    assert hood.area_kinds(long) == {"Sailboat", "Ferry"}
    assert scoring.total(hood, [], 0) == 3 + 1  # 1/3/6/10 for 1/2/3/4 kinds in an area


def test_a_tile_placed_before_the_areas_are_asked_for_is_counted() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_tile("C20", (0, 1), 180)
    assert hood.areas("W") == [[(0, 1), (0, 2), (0, 3)]]
    hood.remove_tile((0, 1))
    assert hood.areas("W") == [[(0, 1)]]
    assert (0, 2) not in hood.kinds and hood.tiles == {(0, 0): ("S1", 0)}
    hood.place_tile("C20", (0, 1), 180)
    hood.place_tile("C17", (1, 1), 0)  # R R / W W below: a second water area
    hood.remove_tile((1, 1))
    assert hood.areas("W") == [[(0, 1), (0, 2), (0, 3)]]


def test_a_copy_is_a_separate_neighbourhood() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_tile("C20", (0, 1), 180)
    assert hood.touches((0, 0), "W")
    assert hood.areas("W") == [[(0, 1), (0, 2), (0, 3)]]
    other = hood.copy()
    assert other.areas("W") == hood.areas("W") and other.touches((0, 0), "W")
    other.place_tile("C17", (-1, 0), 0)  # R R / W W above
    other.place_feature(SAILBOAT, (0, 1))
    other.place_piece("R", (0, 0))
    assert other.touches((-2, 0), "R")
    assert sorted(other.areas("W")) == [[(-1, 0), (-1, 1), (0, 1), (0, 2), (0, 3)]]
    other.remove_tile((-1, 0))
    assert other.areas("W") == [[(0, 1), (0, 2), (0, 3)]]
    assert hood.tiles == {(0, 0): ("S1", 0), (0, 1): ("C20", 180)}
    assert (-1, 0) not in hood.kinds
    assert hood.features == {} and hood.buildings == {}
    assert hood.areas("W") == [[(0, 1), (0, 2), (0, 3)]]


def test_a_saved_neighbourhood_keeps_negative_positions_features_and_buildings() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_tile("C01", (-1, 0), 90)
    hood.place_tile("C02", (0, -1), 0)
    hood.place_feature(MONUMENT, (0, -2))
    hood.place_feature(SAILBOAT, (0, 1))
    hood.place_piece("B", (-1, 1))
    hood.place_piece("B", (-1, 1))
    hood.place_piece("R", (0, 0))
    data = hood.to_state()
    assert data == {
        "tiles": [
            {"tile": "S1", "at": [0, 0], "rotation": 0},
            {"tile": "C01", "at": [-1, 0], "rotation": 90},
            {"tile": "C02", "at": [0, -1], "rotation": 0},
        ],
        "features": {"0,-2": "F37", "0,1": "F01"},
        "buildings": {"-1,1": {"color": "B", "height": 2}, "0,0": {"color": "R", "height": 1}},
    }
    again = Neighbourhood.from_state(data)
    assert again.tiles == hood.tiles and again.kinds == hood.kinds
    assert again.features == {(0, -2): MONUMENT, (0, 1): SAILBOAT}
    assert again.buildings == {(-1, 1): ("B", 2), (0, 0): ("R", 1)}
    assert scoring.total(again, [], 0) == scoring.total(hood, [], 0) == 2 + 1  # monument, Sailboat


def test_the_score_sheet_lists_areas_from_the_top_left_each_in_reading_order() -> None:
    hood = Neighbourhood.starting("S3")  # Y R / W P
    hood.place_tile("C32", (0, 1), 0)  # W W / G P
    hood.place_tile("C20", (1, 0), 0)  # Y Y / W W
    hood.place_feature(SAILBOAT, (3, 1))
    hood.place_feature(FOUNTAIN, (1, 3))
    sheet = scoring.breakdown(Neighbourhood.from_state(hood.to_state()), [], [])
    assert [a["spaces"] for a in sheet["water_areas"]] == [[[0, 2], [0, 3]], [[1, 0]], [[3, 0], [3, 1]]]
    assert [a["vp"] for a in sheet["water_areas"]] == [0, 0, 1]
    assert [a["spaces"] for a in sheet["park_areas"]] == [[[1, 1]], [[1, 3]]]
