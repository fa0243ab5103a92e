"""What the Cities computer player's valuation is made of: its weights, which kinds of
placement (a piece, a grey tile, a water or park feature, a city tile) can change which
scoring card's or achievement's term, and the ``Facts`` about a trial neighbourhood that
several terms look up. ``mind.py`` builds the valuation from these; ``estimates.py``
holds the part-credit for what is still to come.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .content import CONTENT, ScoringCard
from .neighbourhood import CITY_CODES, Neighbourhood, Space

PARTIAL: Final = 0.45
"""Credit per storey still missing for a building that a held card wants taller."""
EMPTY_SPACE: Final = 0.7
"""Value of a free city space (room for future pieces), fading over the game."""
BUILDING: Final = 0.8
STOREY: Final = 0.25
AREA_HOPE: Final = 0.35
"""Share of the next area step (1/3/6/10) an area with free spaces is credited with."""
ACHIEVEMENT_HOPE: Final = 0.5
STAR_BONUS: Final = 0.8
LEAD_WEIGHT: Final = 1.0
BEST_WEIGHT: Final = 0.7
SHORTLIST: Final = 2
"""Tile placements valued in full when judging a tile on the board..."""
PLACE_SHORTLIST: Final = 10
"""... and when placing the tile taken (the rest are ranked by a quick look only)."""
MEAN_HINT: Final = sum(CONTENT.card_hints.values()) / max(1, len(CONTENT.card_hints))

PIECE: Final = "piece"
GREY: Final = "grey"
"""A monument or wild tile on an empty city space."""
WATER_PARK: Final = "water_park"
"""A water or park feature tile."""
TILE: Final = "tile"
ALL_CHANGES: Final = frozenset({PIECE, GREY, WATER_PARK, TILE})
EMPTY_SPACES: Final = frozenset({PIECE, GREY, TILE})
"""What changes the empty city spaces (pieces and grey tiles fill them, tiles add some)."""

CARD_CHANGES: Final[dict[str, frozenset[str]]] = {
    "buildings": EMPTY_SPACES,
    "colour_sets": frozenset({PIECE}),
    "runs": frozenset({PIECE}),
    "areas": frozenset({TILE}),
    "features_adjacent": frozenset({PIECE, WATER_PARK, TILE}),
    "isolated_buildings": frozenset({PIECE}),
    "mixed_neighbours": EMPTY_SPACES,
    "twin_pairs": frozenset({PIECE}),
    "dense_buildings": frozenset({PIECE}),
    "stepped_buildings": frozenset({PIECE}),
}
"""Which kinds of placement can change a card's score or promise (the others cancel out
when the computer player compares a neighbourhood before and after a trial placement)."""

ACHIEVEMENT_CHANGES: Final[dict[str, frozenset[str]]] = {
    "line": frozenset({PIECE}),
    "area_size": frozenset({TILE}),
    "area_features": frozenset({WATER_PARK, TILE}),
    "area_size_features": frozenset({WATER_PARK, TILE}),
    "count_buildings": frozenset({PIECE}),
    "count_buildings_adjacent": frozenset({PIECE, GREY, TILE}),
    "monument_adjacent": EMPTY_SPACES,
    "monument_buildings": frozenset({PIECE, GREY}),
    "park_water_features": frozenset({WATER_PARK, TILE}),
    "block_2x2": frozenset({PIECE}),
    "all_colours": frozenset({PIECE}),
    "group_all_colours": frozenset({PIECE}),
    "stepped_building": frozenset({PIECE}),
    "plaza": EMPTY_SPACES,
}

Term = Callable[["Facts"], float]


class Facts:
    """What several valuation terms look up, gathered once per valuation of a trial."""

    __slots__ = ("_empties", "_empty_for", "hood")

    def __init__(self, hood: Neighbourhood, empties: list[tuple[Space, str]] | None = None) -> None:
        self.hood = hood
        self._empties = empties
        self._empty_for: dict[str, set[Space]] = {}

    def empty_for(self, colour: str) -> set[Space]:
        """Empty city spaces where a first piece of ``colour`` may go."""
        found = self._empty_for.get(colour)
        if found is None:
            found = self._empty_for[colour] = {s for s, k in self.empties if k == colour or k == "*"}
        return found

    @property
    def empties(self) -> list[tuple[Space, str]]:
        """Empty city spaces with their colour, ``*`` for an unbuilt wild space."""
        if self._empties is None:
            hood = self.hood
            buildings, features = hood.buildings, hood.features
            found = []
            for space, kind in hood.kinds.items():
                if kind in CITY_CODES and space not in buildings:
                    feature = features.get(space)
                    if feature is None:
                        found.append((space, kind))
                    elif feature.is_wild:
                        found.append((space, "*"))
            self._empties = found
        return self._empties


def card_changes(card: ScoringCard) -> frozenset[str]:
    if card.type == "buildings_adjacent":
        target = card.params["adjacent_to"]
        if target == "monument":
            return frozenset({PIECE, GREY})
        return EMPTY_SPACES  # water, park, same colour: empty spaces are part of the promise
    return CARD_CHANGES[card.type]

