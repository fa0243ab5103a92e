"""Big City geometry: placing and turning neighbourhoods, adjacency, outskirts, shapes."""

from __future__ import annotations

import pytest

from bot.games.bigcity.city import City
from bot.games.bigcity.geometry import (
    has_shape,
    neighborhood_layout,
    normalize_segment,
    outside_cells,
    segment_cells,
    shape_sites,
)
from bot.games.bigcity.legality import placement_options, placement_problem
from bot.games.bigcity.scenario import position


def test_neighbourhood_one_lies_unrotated_with_property_11_at_the_origin() -> None:
    layout = neighborhood_layout(1, (0, 0), 0)
    assert layout[11] == (0, 0)
    assert layout[13] == (2, 0)
    assert layout[14] == (0, 1)
    assert layout[19] == (2, 2)


def test_even_neighbourhoods_are_two_rows_of_four() -> None:
    layout = neighborhood_layout(2, (3, 0), 0)
    assert [layout[p] for p in (21, 24, 25, 28)] == [(3, 0), (6, 0), (3, 1), (6, 1)]


@pytest.mark.parametrize(
    ("rotation", "cells"),
    [
        # property 21 stays on the anchor; 24 (end of the first row) and 25 (start of the
        # second row) show which way the neighbourhood turned, clockwise
        (0, {21: (10, 10), 24: (13, 10), 25: (10, 11)}),
        (90, {21: (10, 10), 24: (10, 13), 25: (9, 10)}),
        (180, {21: (10, 10), 24: (7, 10), 25: (10, 9)}),
        (270, {21: (10, 10), 24: (10, 7), 25: (11, 10)}),
    ],
)
def test_rotation_turns_clockwise_around_property_n1(
    rotation: int, cells: dict[int, tuple[int, int]]
) -> None:
    layout = neighborhood_layout(2, (10, 10), rotation)
    for prop, cell in cells.items():
        assert layout[prop] == cell
    assert len(set(layout.values())) == 8


def test_adjacency_crosses_neighbourhoods_but_never_diagonals() -> None:
    city = City(position(neighborhoods=[(2, (3, 0), 0)]))
    assert sorted(city.adjacent_properties(13)) == [12, 16, 21]
    assert 25 in city.adjacent_properties(16)
    assert 25 not in city.adjacent_properties(13)  # diagonal


def test_outskirts_are_properties_on_the_outer_edge() -> None:
    city = City(position())
    assert city.outskirts() == {11, 12, 13, 14, 16, 17, 18, 19}
    assert 15 not in city.outskirts()


def test_a_hole_enclosed_by_the_city_is_not_outskirts() -> None:
    # neighbourhoods 1, 2, 4 and 5 close around the empty cell (3, 2)
    state = position(
        players=["ann", "bob", "cy", "dee"],
        neighborhoods=[(2, (3, 0), 0), (4, (0, 3), 0), (5, (4, 2), 0)],
    )
    city = City(state)
    assert (3, 2) not in city.property_at
    for prop in (19, 25, 51, 44):  # the four properties around the hole
        assert (3, 2) in [
            (city.cell_of[prop][0] + dx, city.cell_of[prop][1] + dy)
            for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1))
        ]
        assert prop not in city.outskirts()
    assert 11 in city.outskirts()
    # the street along the hole is still a street of the city
    assert city.is_street(((3, 2), (4, 2)))


def test_a_gap_open_to_the_outside_only_through_corners_is_enclosed() -> None:
    # (1, 1) has city on all four sides; its diagonal neighbours are open table
    plus = {(1, 0), (0, 1), (2, 1), (1, 2)}
    outside = outside_cells(plus)
    assert (1, 1) not in outside
    assert {(0, 0), (2, 0), (0, 2), (2, 2)} <= outside


def test_streets_are_unit_segments_in_either_order() -> None:
    assert normalize_segment([[1, 1], [0, 1]]) == ((0, 1), (1, 1))
    assert normalize_segment([[0, 0], [1, 1]]) is None
    assert normalize_segment([[0, 0], [2, 0]]) is None
    assert normalize_segment("a street") is None
    assert segment_cells(((0, 1), (1, 1))) == ((0, 0), (0, 1))  # cell above, cell below
    assert segment_cells(((1, 0), (1, 1))) == ((0, 0), (1, 0))  # cell west, cell east


@pytest.mark.parametrize(
    ("cells", "shape", "ok"),
    [
        ([(0, 0), (1, 0)], "pair", True),
        ([(0, 0), (1, 1)], "pair", False),
        ([(0, 0), (1, 0), (2, 0)], "line3", True),
        ([(5, 0), (5, 1), (5, 2)], "line3", True),
        ([(0, 0), (1, 0), (1, 1)], "line3", False),
        ([(0, 0), (1, 0), (1, 1)], "l3", True),
        ([(0, 0), (1, 0), (2, 0)], "l3", False),
        ([(0, 0), (1, 0), (0, 1), (1, 1)], "square", True),
        ([(0, 0), (1, 0), (2, 0), (3, 0)], "square", False),
    ],
)
def test_shapes(cells: list[tuple[int, int]], shape: str, ok: bool) -> None:
    assert has_shape(cells, shape) is ok


def test_shape_sites_finds_every_placement_once() -> None:
    grid = [(x, y) for x in range(3) for y in range(3)]
    assert len(shape_sites(grid, "pair")) == 12
    assert len(shape_sites(grid, "line3")) == 6
    assert len(shape_sites(grid, "l3")) == 16
    assert len(shape_sites(grid, "square")) == 4


def test_a_neighbourhood_must_touch_two_properties_with_two_of_its_own() -> None:
    city = City(position())
    assert placement_problem(city, 2, (3, 0), 0) is None
    # only its property 21 would touch the city (next to 19)
    assert placement_problem(city, 2, (3, 2), 0) == (
        "At least two of its properties must be next to two properties of the city."
    )
    assert placement_problem(city, 2, (3, 3), 0) is not None  # touches 19 at a corner only
    assert placement_problem(city, 2, (2, 0), 0) == "Neighborhoods may not overlap."
    assert placement_problem(city, 2, (30, 0), 0) is not None
    assert placement_problem(city, 1, (3, 0), 0) == "Neighborhood 1 is already in the city."
    assert placement_problem(city, 2, (3, 0), 45) is not None


def test_every_offered_placement_is_legal_and_known_ones_are_offered() -> None:
    city = City(position(neighborhoods=[(2, (3, 0), 0)]))
    options = placement_options(city, 3)
    assert ((0, 3), 0) in options
    assert ((0, 3), 90) not in options  # turned, it spans x -2..0: only 31 would touch 17
    assert all(placement_problem(city, 3, at, rotation) is None for at, rotation in options)
    assert len(set(options)) == len(options)
