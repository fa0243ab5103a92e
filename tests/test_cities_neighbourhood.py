"""Spaces, tile placement and rotation, and where features and pieces may go."""

from __future__ import annotations

import pytest

from bot.games.cities.content import CONTENT
from bot.games.cities.neighbourhood import (
    STANDARD_LIMIT,
    VARIANT_LIMIT,
    Neighbourhood,
    tile_spaces,
)

# the features the spaces tests place, the same tiles here
from tests.test_cities_engine_spaces import FOUNTAIN, MONUMENT, SAILBOAT, WILD


def test_rotating_clockwise_turns_a_b_c_d_into_c_a_d_b() -> None:
    tile = CONTENT.tiles["C01"]  # R B / P W
    assert tile.layout(0) == ("RB", "PW")
    assert tile.layout(90) == ("PR", "WB")
    assert tile.layout(180) == ("WP", "BR")
    assert tile.layout(270) == ("BW", "RP")


def test_a_tile_covers_two_rows_and_two_columns_from_twice_its_grid_position() -> None:
    assert tile_spaces("C01", (0, 1), 0) == {(0, 2): "R", (0, 3): "B", (1, 2): "P", (1, 3): "W"}
    assert tile_spaces("C01", (-1, 0), 90) == {(-2, 0): "P", (-2, 1): "R", (-1, 0): "W", (-1, 1): "B"}


def test_the_starting_tile_covers_rows_and_columns_0_and_1() -> None:
    hood = Neighbourhood.starting("S2")  # G W / P Y
    assert hood.kinds == {(0, 0): "G", (0, 1): "W", (1, 0): "P", (1, 1): "Y"}
    assert hood.size() == (1, 1)


def test_a_city_tile_must_share_a_whole_edge() -> None:
    hood = Neighbourhood.starting("S1")
    assert hood.tile_spots(STANDARD_LIMIT) == [(-1, 0), (0, -1), (0, 1), (1, 0)]
    assert "whole edge" in (hood.tile_refusal((1, 1), STANDARD_LIMIT) or "")  # corner only
    assert "already" in (hood.tile_refusal((0, 0), STANDARD_LIMIT) or "")


def test_a_neighbourhood_never_exceeds_three_by_three_tiles() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_tile("C01", (0, 1), 0)
    hood.place_tile("C02", (0, 2), 0)
    refusal = hood.tile_refusal((0, 3), STANDARD_LIMIT)
    assert refusal == "Your neighbourhood may never exceed 3 tiles in length and 3 in width."
    assert hood.tile_refusal((0, -1), STANDARD_LIMIT) is not None
    assert hood.tile_refusal((1, 0), STANDARD_LIMIT) is None
    hood.place_tile("C03", (1, 0), 0)
    hood.place_tile("C04", (2, 0), 0)
    assert hood.tile_refusal((3, 0), STANDARD_LIMIT) is not None
    assert hood.tile_refusal((-1, 0), STANDARD_LIMIT) is not None
    assert set(hood.tile_spots(STANDARD_LIMIT)) == {(1, 1), (1, 2), (2, 1)}


def test_the_variant_allows_three_by_five_either_way_round() -> None:
    row = Neighbourhood.starting("S1")
    for i, tile in enumerate(["C01", "C02", "C03", "C04"], start=1):
        assert row.tile_refusal((0, i), VARIANT_LIMIT) is None
        row.place_tile(tile, (0, i), 0)
    assert row.size() == (1, 5)
    assert row.tile_refusal((0, 5), VARIANT_LIMIT) is not None
    assert row.tile_refusal((1, 0), VARIANT_LIMIT) is None
    column = Neighbourhood.starting("S1")
    for i, tile in enumerate(["C01", "C02", "C03"], start=1):
        column.place_tile(tile, (i, 0), 0)
    column.place_tile("C05", (0, 1), 0)
    column.place_tile("C06", (0, 2), 0)
    assert column.size() == (4, 3)
    # 4 tall and 3 wide: growing wider would make 4 x 4.
    assert column.tile_refusal((0, 3), VARIANT_LIMIT) is not None
    assert column.tile_refusal((4, 0), VARIANT_LIMIT) is None


def test_features_go_on_their_own_type_of_free_space() -> None:
    hood = Neighbourhood.starting("S1")  # R W / P B
    assert hood.feature_spaces(SAILBOAT) == [(0, 1)]
    assert hood.feature_spaces(FOUNTAIN) == [(1, 0)]
    assert hood.feature_spaces(MONUMENT) == [(0, 0), (1, 1)]
    assert hood.feature_refusal(SAILBOAT, (1, 0)) == "Sailboat goes on a water space."
    assert hood.feature_refusal(FOUNTAIN, (0, 0)) == "Fountain goes on a park space."
    assert hood.feature_refusal(MONUMENT, (0, 1)) is not None
    hood.place_feature(SAILBOAT, (0, 1))
    assert hood.feature_refusal(CONTENT.features["F06"], (0, 1)) == "That space already has a feature tile."
    hood.place_piece("R", (0, 0))
    assert "without building pieces" in (hood.feature_refusal(MONUMENT, (0, 0)) or "")
    assert hood.feature_spaces(WILD) == [(1, 1)]


def test_pieces_go_on_their_colour_and_stack_up_to_four() -> None:
    hood = Neighbourhood.starting("S1")  # R W / P B
    assert hood.piece_spaces("R") == [(0, 0)]
    assert hood.piece_spaces("G") == []
    assert hood.piece_refusal("B", (0, 0)) == "A building piece goes on a city space of its own colour."
    assert hood.piece_refusal("R", (0, 1)) == "Building pieces go on city spaces only."
    for height in range(1, 5):
        assert hood.piece_refusal("R", (0, 0)) is None
        hood.place_piece("R", (0, 0))
        assert hood.height((0, 0)) == height
    assert hood.piece_refusal("R", (0, 0)) == "Buildings are at most 4 pieces high."


def test_a_monument_blocks_its_space_and_a_wild_space_takes_any_first_colour() -> None:
    hood = Neighbourhood.starting("S1")
    hood.place_feature(MONUMENT, (0, 0))
    assert hood.piece_refusal("R", (0, 0)) == "No building pieces may be placed on a feature tile."
    hood.place_feature(WILD, (1, 1))  # a blue space
    assert hood.piece_spaces("G") == [(1, 1)]
    hood.place_piece("G", (1, 1))
    assert hood.piece_refusal("B", (1, 1)) == "Only pieces of the building's colour may be stacked on it."
    assert hood.piece_refusal("G", (1, 1)) is None


def test_state_round_trip_keeps_everything() -> None:
    hood = Neighbourhood.starting("S3")
    hood.place_tile("C10", (-1, 0), 270)
    hood.place_feature(SAILBOAT, (1, 0))
    hood.place_piece("Y", (0, 0))
    hood.place_piece("Y", (0, 0))
    again = Neighbourhood.from_state(hood.to_state())
    assert again.kinds == hood.kinds
    assert again.features == hood.features
    assert again.buildings == {(0, 0): ("Y", 2)}
    assert again.to_state() == hood.to_state()


@pytest.mark.parametrize("tile_id", sorted(CONTENT.tiles))
def test_every_rotation_is_a_permutation_of_the_printed_spaces(tile_id: str) -> None:
    tile = CONTENT.tiles[tile_id]
    printed = sorted("".join(tile.rows))
    for rotation in (0, 90, 180, 270):
        assert sorted("".join(tile.layout(rotation))) == printed
    assert tile.layout(360) == tile.layout(0)


def test_areas_follow_tiles_placed_and_taken_back() -> None:
    hood = Neighbourhood.starting("S1")  # R W / P B
    assert hood.areas("W") == [[(0, 1)]]
    for at, tile, rotation in [((0, 1), "C17", 180), ((1, 0), "C32", 0), ((-1, 0), "C31", 90), ((1, 1), "C18", 0)]:
        before = {code: list(hood.areas(code)) for code in "WP"}
        hood.place_tile(tile, at, rotation)
        again = Neighbourhood.from_state(hood.to_state())
        for code in "WP":
            assert sorted(hood.areas(code)) == sorted(again.areas(code))
        hood.remove_tile(at)
        assert {code: hood.areas(code) for code in "WP"} == before
        hood.place_tile(tile, at, rotation)
    assert sorted(map(len, hood.areas("W"))) == [1, 2, 2, 3]
