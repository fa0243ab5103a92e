"""Every counting rule of every scoring card and achievement, on hand-built neighbourhoods.

A neighbourhood is drawn as rows of space tokens (rows downward, columns left to right):
``R`` an empty red city space, ``R3`` a red building 3 high, ``W``/``P`` water/park,
``W:sailboat`` a water space with a Sailboat, ``R:monument`` a monument on a red space,
``G:wild`` an unbuilt wild space, ``G:wild=R2`` a wild space under a red building 2 high,
``.`` no space. Spaces of different tiles behave exactly like spaces of one tile.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from bot.games.cities import scoring
from bot.games.cities.content import CONTENT, Achievement, ScoringCard
from bot.games.cities.neighbourhood import Neighbourhood

FEATURE_IDS = {
    "sailboat": "F01", "ferry": "F06", "kayaks": "F11", "swimmers": "F15",
    "fountain": "F19", "playground": "F24", "picnic": "F29", "bandstand": "F33",
    "monument": "F37", "wild": "F45",
}


def hood_from(drawing: str) -> Neighbourhood:
    hood = Neighbourhood()
    for r, line in enumerate(drawing.strip().splitlines()):
        for c, token in enumerate(line.split()):
            if token == ".":
                continue
            token, _, feature = token.partition(":")
            code, height = token[0], token[1:]
            hood.kinds[(r, c)] = code
            if height:
                hood.buildings[(r, c)] = (code, int(height))
            if feature:
                feature, _, built = feature.partition("=")
                hood.features[(r, c)] = CONTENT.features[FEATURE_IDS[feature]]
                if built:
                    hood.buildings[(r, c)] = (built[0], int(built[1:]))
    return hood


def points(card_id: str, drawing: str) -> int:
    return scoring.card_points(hood_from(drawing), CONTENT.cards[card_id])


def recolour(drawing: str, colour: str) -> str:
    """The same drawing with red (R) swapped for ``colour`` and vice versa."""
    if colour == "R":
        return drawing
    swap: dict[str, str | int | None] = {"R": colour, colour: "R"}
    return drawing.translate(str.maketrans(swap))


COLOUR_CARDS = {"R": 0, "B": 1, "G": 2, "Y": 3}


# ---------------------------------------------------------------- colour cards ---


@pytest.mark.parametrize("colour", "RBGY")
def test_towers_count_each_building_of_the_colour_three_or_more_high(colour: str) -> None:
    card = f"K0{1 + COLOUR_CARDS[colour]}"
    drawing = recolour("R3 R4 R2 B3\nR1 . R3 W", colour)
    assert CONTENT.cards[card].vp == 3
    assert points(card, drawing) == 3 * 3  # R3, R4, R3 — not R2, R1 or the other colour


@pytest.mark.parametrize("colour", "RBGY")
def test_waterfront_counts_buildings_two_high_next_to_water_once_each(colour: str) -> None:
    card = f"K0{5 + COLOUR_CARDS[colour]}"
    drawing = recolour(
        "R2 W  R3 B2\n"
        "R1 R2 W  P\n"
        "R4 P  R2 .",
        colour,
    )
    # R2(0,0) W right; R3(0,2) W left and below: counts once; R2(1,1) W above and right;
    # R1 too low; R4 only park; R2(2,2) W above. The blue B2 is another colour.
    assert points(card, drawing) == 4 * 2


@pytest.mark.parametrize("colour", "RBGY")
def test_parkside_counts_buildings_two_high_next_to_a_park(colour: str) -> None:
    card = f"K{9 + COLOUR_CARDS[colour]:02d}"
    drawing = recolour("R2 P R1\nW R4 P\nR3 W B2", colour)
    # R2 park right; R1 too low; R4 parks above and right; R3 only water.
    assert points(card, drawing) == 2 * 2


@pytest.mark.parametrize("colour", "RBGY")
def test_quarter_counts_every_building_of_a_connected_same_colour_group(colour: str) -> None:
    card = f"K{13 + COLOUR_CARDS[colour]}"
    drawing = recolour("R1 R2 R3 . R1\nB1 . R1 . .\nR4 B2 . . R2", colour)
    # The group R1 R2 R3 + R1 below = 4; the lone R1, R4 (blue next) and R2 do not count.
    assert CONTENT.cards[card].vp == 3
    assert points(card, drawing) == 4 * 3
    assert points(card, recolour("R1 R1", colour)) == 2 * 3  # both of a pair count


# ------------------------------------------------------------- colour-free cards ---


def test_skyscrapers_count_buildings_exactly_four_high() -> None:
    assert points("K17", "R4 B4 G3\nY4 . P") == 3 * 2


def test_scenic_views_counts_water_and_park_features_next_to_a_tall_building() -> None:
    drawing = (
        "W:sailboat R3 P:fountain G2 W:ferry\n"
        "W          B4 P          .  R:monument\n"
        "P:picnic   .  Y4         .  R1"
    )
    # Sailboat (next to R3), Fountain (R3 and B4: once); the empty water does not count;
    # Ferry only touches G2; Picnic touches nothing; the monument is grey and never counts.
    assert points("K18", drawing) == 2 * 1


def test_townhouses_count_buildings_exactly_two_high() -> None:
    assert points("K19", "R2 B2 G3\nY1 Y2 .") == 3 * 1


def test_cottages_count_low_buildings_without_building_neighbours() -> None:
    drawing = (
        "R1 W  B2 R\n"
        "P  G3 .  R:monument\n"
        "Y1 Y2 .  B1"
    )
    # R1 (water/park around), B2 (water, empty), B1 (empty, monument) count; G3 too high;
    # Y1 and Y2 touch each other.
    assert points("K20", drawing) == 3 * 1


def test_colourful_streets_count_complete_sets_of_four_colours() -> None:
    assert points("K21", "R1 B4 G2 Y1\nR1 B1 G1 .") == 1 * 3
    assert points("K21", "R1 B4 G2 Y1\nR1 B1 G1 Y3") == 2 * 3
    # Worked example: red 1, 2, 3 and blue 4 high, nothing else: no set.
    assert points("K21", "R1 R2 R3 B4") == 0


def test_colourful_skyline_counts_sets_of_buildings_two_or_more_high() -> None:
    # Worked example: red x3, blue x2, green x2, yellow x1 of height 2+ = 1 set (5 VP).
    drawing = "R2 R3 R4 B2 B2\nG2 G3 Y2 Y1 Y1"
    assert points("K22", drawing) == 5
    assert points("K22", "R2 B2 G2 Y1") == 0


def test_avenues_count_maximal_straight_runs_of_three_or_more_buildings() -> None:
    assert points("K23", "R1 B2 G3 Y4 R1") == 1 * 2  # a run of 5 counts once
    assert points("K23", "R1 B1\nR1 .\nR1 .") == 1 * 2  # a vertical run of 3
    assert points("K23", "R1 R1 R1\nR1 . .\nR1 . .") == 2 * 2  # one row + one column
    assert points("K23", "R1 R1 R:monument R1 R1") == 0  # a monument breaks the run
    assert points("K23", "R1 R1 R R1 R1") == 0  # so does an empty space


def test_avenues_runs_are_consecutive_and_maximal_in_columns_too() -> None:
    # "Each straight run of 3 or more orthogonally consecutive buildings ... Only maximal
    # runs count: a run of 5 counts once".
    assert points("K23", "R1 . R1 R1") == 0  # a gap: a run of 1 and a run of 2
    assert points("K23", "R1\n.\nR1\nR1") == 0  # the same down a column
    assert points("K23", "R1\nB1") == 0  # a column of 2 is too short
    assert points("K23", "R1\nB1\nG1\nY1") == 1 * 2  # a column of 4 counts once


def test_monument_view_counts_buildings_next_to_a_monument_once_each() -> None:
    drawing = "R1 R:monument B2\nG:monument Y3 .\n. . R1"
    # R1 (two monuments: once), B2, Y3 (two monuments: once); the lower R1 touches none.
    assert points("K24", drawing) == 3 * 1


def test_lakes_and_green_belt_count_areas_of_three_or_more_spaces() -> None:
    drawing = "W W P P\nR W P R\nW W R P"
    # Water: (0,0)(0,1)(1,1)(2,1)(2,0) is one area of 5. Park: (0,2)(0,3)(1,2) = 3; (2,3) = 1.
    assert points("K25", drawing) == 1 * 3
    assert points("K26", drawing) == 1 * 3
    assert points("K25", "W W R W W W") == 1 * 3
    # Lakes count only water, Green Belt only park.
    assert points("K25", "P P P R W") == 0
    assert points("K26", "P P P R W") == 1 * 3
    assert points("K26", "W W W R P") == 0


def test_harbour_and_park_towers_count_four_high_buildings_by_water_or_park() -> None:
    drawing = "W R4 P\nB4 R3 G4\nP . W"
    # R4: water and park. B4: water above? no, (0,0) is W above B4 -> water and park below.
    # R3 too low. G4: park above, water below.
    assert points("K27", drawing) == 3 * 3
    assert points("K28", drawing) == 3 * 3
    assert points("K27", "R4 P") == 0
    assert points("K28", "R4 W") == 0


def test_mixed_use_counts_buildings_touching_two_other_colours() -> None:
    drawing = "B1 R2 G1\n. Y3 .\n. R1 ."
    # R2 touches B, G, Y: counts. Y3 touches R (twice): 1 other colour. B1, G1 touch R only.
    assert points("K29", drawing) == 1 * 2
    assert points("K29", "R1 B2\n. R3") == 0  # R touches B only; B touches R only
    # Exactly two other colours is enough, and each such building counts.
    assert points("K29", "B1 R2 G1 . B1 R2 G1") == 2 * 2


def test_twin_towers_count_adjacent_pairs_of_equal_height_two_or_more() -> None:
    assert points("K30", "R2 B2\nG2 Y2") == 4 * 2  # a 2x2 block of equal height = 4 pairs
    assert points("K30", "R1 B1 G3 Y3") == 1 * 2  # height 1 pairs do not count
    assert points("K30", "R2 B3") == 0


def test_downtown_counts_tall_buildings_with_two_building_neighbours() -> None:
    drawing = "R1 B3 G1\n. Y4 .\n. R1 ."
    # B3: R1, G1, Y4 around. Y4: B3, R1. R1 and G1 too low.
    assert points("K31", drawing) == 2 * 3
    assert points("K31", "R3 B1 W") == 0


def test_hillside_counts_buildings_between_one_lower_and_one_higher() -> None:
    assert points("K32", "R1 B2 G3 Y4") == 2 * 5  # the 2 and the 3
    assert points("K32", "R1 B2\n. G3") == 1 * 5  # an L-shape is fine
    assert points("K32", "R1 B3 G2") == 0


def test_worked_example_row_of_r1_r2_r3_b3() -> None:
    drawing = "R1 R2 R3 B3"
    assert points("K23", drawing) == 2  # Avenues: 1 run of 4
    assert points("K32", drawing) == 5  # Hillside: the r2
    assert points("K30", drawing) == 2  # Twin Towers: r3-b3
    assert points("K13", drawing) == 9  # Red Quarter: 3 red buildings
    assert points("K29", drawing) == 0  # Mixed Use: r3 touches only blue


def test_wild_space_with_pieces_is_a_building_of_its_pieces_colour() -> None:
    drawing = "G:wild=R3 R1\nB:wild G"
    assert points("K01", drawing) == 3  # a red tower on a green printed space
    assert points("K13", drawing) == 2 * 3  # red next to red
    assert points("K03", drawing) == 0
    # An unbuilt wild space and a monument are never buildings.
    assert points("K20", "R1 B:wild R1") == 2
    assert points("K19", "R2 G:wild") == 1


def test_every_card_type_in_the_content_has_a_counting_rule() -> None:
    assert {c.type for c in CONTENT.cards.values()} <= set(scoring.CARD_RULES)
    hood = hood_from("R1 B2 W:sailboat\nP:fountain G3 Y4")
    for card in CONTENT.cards.values():
        assert scoring.card_points(hood, card) >= 0


# ------------------------------------------------------------------ achievements ---

ACHIEVEMENTS = {
    # id: (met, not met)
    "NYC1": ("P:fountain P:picnic\nP P", "P:fountain P:fountain\nP P"),
    "NYC2": ("R1 B2 G3 Y1", "R1 B2 R G3 Y1"),
    "NYC3": ("R4 W B4", "R4 B3"),
    "RIO1": ("P R:monument P", "P R:monument W"),
    "RIO2": ("P P P\nP P R", "P P P\nP R R\nR P P"),
    "RIO3": (
        "P:fountain P:picnic\nW:sailboat W:ferry",
        "P:fountain P:picnic R\nR R W:sailboat\nR R W:ferry",
    ),
    "VEN1": ("W:sailboat W W:kayaks", "W:sailboat R W:kayaks"),
    "VEN2": ("R2 B2 G2\nW W W\nY2 R3 .", "R2 B2 G2\nW W W\nY2 R1 ."),
    "VEN3": ("W W W\nW W W", "W W W\nW W R\nR R W"),
    "BCN1": ("R1 G:monument B1", "R1 G:monument W"),
    "BCN2": ("R1 B2\nG3 Y1", "R1 B2\nG3 Y"),
    "BCN3": ("R3 B4 G3 Y3", "R3 B4 G3 Y2"),
    "BUE1": ("R:monument B3", "R:monument B2"),
    "BUE2": ("R1 B1 G1\n. . Y1", "R1 B1 G1 Y\n. . . Y1"),
    "BUE3": ("R1\nB1\nG1\nY1\nR1", "R1 B1 G1 Y1 W R1"),
    "LIS1": ("Y1 W Y2\nY4 . .", "Y1 W Y2\nR4 . ."),
    "LIS2": ("R1 B2\n. G3", "R1 B2 G4"),
    "LIS3": ("B1 W B2\nB1 W B3", "B1 W B2\nB1 P B3"),
    "SYD1": ("W R:monument W", "W R:monument P"),
    "SYD2": ("R3 W B4\n. W G3", "R3 W B4\n. P G3"),
    "SYD3": (
        "W:sailboat W:ferry W:kayaks W W",
        "W:sailboat W:ferry W:ferry W W",
    ),
    "MEX1": ("R1 R1 R1 R1\nB1 B1 B1 B1\nG1 G1 G1 .", "R1 R1 R1 R1\nB1 B1 B1 B1\nG1 G1 . ."),
    "MEX2": ("R2 Y B2\n. G3 .", "R2 Y:monument B2\n. G3 ."),
    "MEX3": (
        "P:fountain P:picnic P:bandstand P P",
        "P:fountain P:picnic P:fountain P P",
    ),
}


def test_every_achievement_of_every_city_is_tested() -> None:
    every = {a.id for city in CONTENT.cities.values() for a in city.achievements}
    assert every == set(ACHIEVEMENTS)
    assert {a.type for city in CONTENT.cities.values() for a in city.achievements} <= set(
        scoring.ACHIEVEMENT_RULES
    )


@pytest.mark.parametrize("achievement_id", sorted(ACHIEVEMENTS))
def test_achievement_met_and_not_met(achievement_id: str) -> None:
    achievement = CONTENT.achievement(achievement_id)
    met, missed = ACHIEVEMENTS[achievement_id]
    assert scoring.achieved(hood_from(met), achievement), met
    assert not scoring.achieved(hood_from(missed), achievement), missed


def test_zocalo_counts_an_unbuilt_wild_space_as_empty() -> None:
    zocalo = CONTENT.achievement("MEX2")
    assert scoring.achieved(hood_from("R2 Y:wild B2\n. G3 ."), zocalo)
    assert not scoring.achieved(hood_from("R2 Y:wild=R1 B2\n. G3 ."), zocalo)
    assert not scoring.achieved(hood_from("R2 Y B1\n. G3 ."), zocalo)


def test_copacabana_needs_a_water_area_of_two_kinds() -> None:
    copacabana = CONTENT.achievement("RIO3")
    # The park area has its two kinds, but the water beside it has only sailboats.
    assert not scoring.achieved(hood_from("P:fountain P:picnic\nW:sailboat W:sailboat"), copacabana)


def test_copacabana_looks_at_every_park_area() -> None:
    # The first park area (top left) has one kind; the second has two and lies by the water.
    drawing = "P:fountain R P:fountain P:picnic\nR R W:sailboat W:ferry"
    assert len(hood_from(drawing).areas("P")) == 2
    assert scoring.achieved(hood_from(drawing), CONTENT.achievement("RIO3"))


def test_copacabana_needs_a_park_area_of_two_kinds() -> None:
    """"One park area containing at least 2 different park feature kinds" beside "one water
    area containing at least 2 different water feature kinds": the water has its two kinds,
    but the park beside it only fountains."""
    copacabana = CONTENT.achievement("RIO3")
    assert not scoring.achieved(hood_from("P:fountain P:fountain\nW:sailboat W:ferry"), copacabana)
    assert not scoring.achieved(hood_from("P:fountain P\nW:sailboat W:ferry"), copacabana)
    assert scoring.achieved(hood_from("P:fountain P:picnic\nW:sailboat W:ferry"), copacabana)


@pytest.mark.parametrize("drawing", [
    "R1 B1\nG1 .",     # an L of three: the fourth corner is no space at all
    "R1 B1\nG1 Y",     # the fourth corner is an empty city space
    "R1 .\nG1 Y1",
    ". B1\nG1 Y1",
    "R1 B1\n. Y1",
    "R1 B1 G1 Y1",     # four in a row
    "R1 B1 .\n. G1 Y1",  # four, touching only at a corner
])
def test_eixample_needs_all_four_corners_of_a_2x2_square(drawing: str) -> None:
    """"Four buildings forming a 2x2 square": three of its corners are not enough, whichever
    corner is missing, and four buildings in another shape are not a square."""
    assert not scoring.achieved(hood_from(drawing), CONTENT.achievement("BCN2")), drawing


def test_eixample_finds_the_square_anywhere_in_the_neighbourhood() -> None:
    """A square lower right, straddling tile edges, with other buildings before it."""
    drawing = "R1 . B1\nW G1 Y1\n. R2 B3"
    assert scoring.achieved(hood_from(drawing), CONTENT.achievement("BCN2"))


def _achievement(kind: str, **params: object) -> Achievement:
    return Achievement(id="X1", name="Test", display_name="Test", rings=(8, 5, 3), type=kind,
                       params=MappingProxyType(params), text="", tier="easy")


def test_achievement_parameters_no_city_uses_yet_still_count() -> None:
    """The content is data (bot/data/cities/); a parameter the shipped cities leave at one
    value must still mean what the content design says: "Height N or more includes N"."""
    tall_line = _achievement("line", length=3, min_height=2)
    assert scoring.achieved(hood_from("R2 B3 G2"), tall_line)
    assert not scoring.achieved(hood_from("R2 B1 G2 Y2"), tall_line)  # the 1 breaks it
    one_kind = _achievement("area_features", area="water", distinct=1)
    assert scoring.achieved(hood_from("W:sailboat W"), one_kind)
    assert not scoring.achieved(hood_from("W W"), one_kind)
    neighbours = _achievement("count_buildings_adjacent", colour="any", min_height=1,
                              adjacent_to="same_colour_building", count=2)
    assert scoring.achieved(hood_from("R1 R1 B1"), neighbours)
    assert not scoring.achieved(hood_from("R1 B1 R1"), neighbours)


def test_an_unknown_adjacency_target_in_the_content_is_named() -> None:
    card = ScoringCard(id="K99", name="Test", vp=1, type="buildings_adjacent",
                       params=MappingProxyType({"colour": "any", "min_height": 1,
                                                "max_height": 4, "adjacent_to": "lava"}),
                       text="", counting="")
    with pytest.raises(ValueError, match="unknown adjacency target 'lava'"):
        scoring.card_points(hood_from("R1 B1"), card)


def test_requirements_are_minimums() -> None:
    assert scoring.achieved(hood_from("R1 B1 G1 Y1 R1 B1"), CONTENT.achievement("NYC2"))
    assert scoring.achieved(hood_from("R4 B4 G4"), CONTENT.achievement("NYC3"))


# ------------------------------------------------------------ areas and monuments ---


@pytest.mark.parametrize(
    ("drawing", "vp"),
    [
        ("W W W W W", 0),
        ("W:sailboat W W", 1),
        ("W:sailboat W:sailboat W", 1),  # duplicates add nothing
        ("W:sailboat W:ferry", 3),
        ("W:sailboat W:ferry W:kayaks", 6),
        ("W:sailboat W:ferry W:kayaks W:swimmers", 10),
        ("W:sailboat W:ferry W:kayaks W:swimmers W:ferry", 10),
        ("W:sailboat R W:ferry", 2),  # two areas of one kind each: 1 + 1
    ],
)
def test_water_areas_score_1_3_6_10_for_different_features(drawing: str, vp: int) -> None:
    assert scoring.area_total(hood_from(drawing), "W") == vp
    park = drawing.replace("W:sailboat", "P:fountain").replace("W:ferry", "P:picnic")
    park = park.replace("W:kayaks", "P:playground").replace("W:swimmers", "P:bandstand")
    assert scoring.area_total(hood_from(park.replace("W", "P")), "P") == vp


def test_areas_connect_only_orthogonally() -> None:
    hood = hood_from("W:sailboat R\nR W:ferry")
    assert scoring.area_total(hood, "W") == 2
    assert len(hood.areas("W")) == 2


def test_monuments_score_two_each() -> None:
    assert scoring.monument_total(hood_from("R:monument B:monument G:wild")) == 4


# --------------------------------------------------------------------- breakdown ---


def test_breakdown_lists_every_part_and_adds_up() -> None:
    hood = hood_from(
        "R2 W:sailboat W:ferry B3\n"
        "P:fountain R2 G:monument B3"
    )
    result = scoring.breakdown(hood, ["K19", "K02", "K24"], [("NYC1", 5)])
    assert result["water"] == 3
    assert result["park"] == 1
    assert result["monuments"] == 2
    assert result["achievements"] == 5
    by_card = {row["card"]: row for row in result["scoring_cards"]}
    assert by_card["K19"] == {"card": "K19", "name": "Townhouses", "occurrences": 2, "vp": 2}
    assert by_card["K02"]["vp"] == 2 * 3
    assert by_card["K24"]["occurrences"] == 2  # the R2 and the B3 beside the monument
    assert result["cards"] == 2 + 6 + 2
    assert result["total"] == 3 + 1 + 2 + 5 + 10
    assert result["total"] == scoring.total(hood, ["K19", "K02", "K24"], 5)


def test_the_score_sheet_names_every_ring_area_and_card() -> None:
    """Everything the final score sheet shows comes from the breakdown."""
    hood = hood_from(
        "W:sailboat W:ferry W:kayaks W:swimmers\n"
        "P:fountain R2 G:monument B3"
    )
    result = scoring.breakdown(hood, ["K19"], [("NYC1", 5), ("VEN1", 3)])
    assert result == {
        "total": 8 + 10 + 1 + 2 + 1,
        "achievements": 8, "water": 10, "park": 1, "monuments": 2, "cards": 1,
        "achievement_rings": [
            {"achievement": "NYC1", "name": "Central Park", "vp": 5},
            {"achievement": "VEN1", "name": "Gondolas", "vp": 3},
        ],
        "water_areas": [{"spaces": [[0, 0], [0, 1], [0, 2], [0, 3]],
                         "kinds": ["Ferry", "Kayaks", "Sailboat", "Swimmers"], "vp": 10}],
        "park_areas": [{"spaces": [[1, 0]], "kinds": ["Fountain"], "vp": 1}],
        "monument_count": 1,
        "scoring_cards": [{"card": "K19", "name": "Townhouses", "occurrences": 1, "vp": 1}],
    }


def test_winners_tie_break_on_achievements_then_cards_then_shared() -> None:
    def b(total: int, achievements: int, cards: int) -> dict[str, int]:
        return {"total": total, "achievements": achievements, "cards": cards}

    assert scoring.winners({"ann": b(60, 5, 30), "bob": b(61, 0, 40)}) == ["bob"]
    assert scoring.winners({"ann": b(60, 8, 30), "bob": b(60, 5, 40)}) == ["ann"]
    assert scoring.winners({"ann": b(60, 5, 30), "bob": b(60, 5, 35)}) == ["bob"]
    assert scoring.winners({"ann": b(60, 5, 30), "bob": b(60, 5, 30), "cy": b(59, 9, 9)}) == ["ann", "bob"]
