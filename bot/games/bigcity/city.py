"""A read-only picture of the city, built from the state: where every property lies, what
stands on it, the outskirts and the streetcar line. Every rule check and score reads it."""

from __future__ import annotations

from typing import Any

from bot.games.bigcity.content import category, neighborhood_properties
from bot.games.bigcity.geometry import (
    Cell,
    Segment,
    internal_streets,
    neighborhood_layout,
    neighbors,
    normalize_segment,
    outskirts_cells,
    segment_cells,
    sides,
)

JSON = dict[str, Any]


class City:
    """Geometry and occupation of the placed neighbourhoods in one state."""

    def __init__(self, state: JSON) -> None:
        self.cell_of: dict[int, Cell] = {}
        self.property_at: dict[Cell, int] = {}
        self.placed: list[int] = []
        for entry in state["neighborhoods"]:
            self.add_neighborhood(
                entry["number"], (entry["at"][0], entry["at"][1]), entry["rotation"]
            )
        self.pieces: list[JSON] = state["buildings"]
        self.occupant: dict[int, int] = {}
        for index, piece in enumerate(self.pieces):
            for prop in piece["properties"]:
                self.occupant[prop] = index
        self.streetcars: set[Segment] = set()
        for raw in state["streetcars"]:
            segment = normalize_segment(raw)
            assert segment is not None
            self.streetcars.add(segment)
        self._outskirts: set[int] | None = None
        self._covered: set[Segment] | None = None
        # Where a neighbourhood of each shape (columns, rows) fits: every unplaced one of a
        # shape fits in the same places (legality.placement_options).
        self.fits: dict[tuple[int, int], list[tuple[Cell, int]]] = {}

    def add_neighborhood(self, number: int, at: Cell, rotation: int) -> None:
        for prop, cell in neighborhood_layout(number, at, rotation).items():
            self.cell_of[prop] = cell
            self.property_at[cell] = prop
        self.placed.append(number)
        self._outskirts = None
        self.fits = {}

    # --- properties -------------------------------------------------------------------

    def in_city(self, prop: int) -> bool:
        return prop in self.cell_of

    def is_free(self, prop: int) -> bool:
        return prop in self.cell_of and prop not in self.occupant

    def free_properties(self) -> list[int]:
        return sorted(p for p in self.cell_of if p not in self.occupant)

    def outskirts(self) -> set[int]:
        """Properties with a side on the city's outer edge (holes inside the city do not count)."""
        if self._outskirts is None:
            cells = outskirts_cells(self.property_at)
            self._outskirts = {self.property_at[c] for c in cells}
        return self._outskirts

    def on_outskirts(self, props: list[int]) -> bool:
        """A group is on the outskirts when any side of any of its properties is."""
        outskirts = self.outskirts()
        return any(p in outskirts for p in props)

    def adjacent_properties(self, prop: int) -> list[int]:
        return [self.property_at[n] for n in neighbors(self.cell_of[prop]) if n in self.property_at]

    def neighbors_of_group(self, props: list[int]) -> set[int]:
        """Properties adjacent to the group, outside it."""
        group = set(props)
        return {n for p in props for n in self.adjacent_properties(p) if n not in group}

    def adjacent_pieces(self, props: list[int]) -> list[JSON]:
        """Pieces (buildings, parks, factories) on properties adjacent to the group, each once."""
        indexes = sorted(
            {self.occupant[n] for n in self.neighbors_of_group(props) if n in self.occupant}
        )
        return [self.pieces[i] for i in indexes]

    def neighborhood_complete_but(self, prop: int) -> bool:
        """Whether ``prop`` is the last free property of its neighbourhood."""
        return all(p == prop or p in self.occupant for p in neighborhood_properties(prop // 10))

    def has_city_hall(self) -> bool:
        return any(piece["building"] == "city_hall" for piece in self.pieces)

    def city_hall_adjacent(self, props: list[int]) -> bool:
        return any(piece["building"] == "city_hall" for piece in self.adjacent_pieces(props))

    def complete(self) -> bool:
        """All eight neighbourhoods placed and every property built on."""
        return len(self.placed) == 8 and len(self.occupant) == len(self.cell_of)

    # --- streets ----------------------------------------------------------------------

    def is_street(self, segment: Segment) -> bool:
        """A street of the city: at least one property borders it (the outer edge too)."""
        a, b = segment_cells(segment)
        return a in self.property_at or b in self.property_at

    def streets(self) -> set[Segment]:
        return {s for cell in self.property_at for s in sides(cell)}

    def covered_streets(self) -> set[Segment]:
        """Streets under a multi-property piece (no streetcar may run there)."""
        if self._covered is None:
            covered: set[Segment] = set()
            for piece in self.pieces:
                if len(piece["properties"]) > 1:
                    covered.update(internal_streets([self.cell_of[p] for p in piece["properties"]]))
            self._covered = covered
        return self._covered

    def streetcar_along(self, props: list[int]) -> bool:
        """A streetcar runs along a side of one of the properties (ending at it or touching a
        corner does not count)."""
        return any(s in self.streetcars for p in props for s in sides(self.cell_of[p]))

    def segment_borders_building(self, segment: Segment) -> bool:
        """Whether a street runs along a building (residence, business or special building)."""
        for cell in segment_cells(segment):
            prop = self.property_at.get(cell)
            if prop is None or prop not in self.occupant:
                continue
            if category(self.pieces[self.occupant[prop]]["building"]) not in ("park", "factory"):
                return True
        return False

    def describe_segment(self, segment: Segment) -> str:
        """A street in words: "between 14 and 17" or "west of 11"."""
        a, b = segment_cells(segment)
        pa, pb = self.property_at.get(a), self.property_at.get(b)
        if pa is not None and pb is not None:
            return f"{pa}–{pb}"
        horizontal = segment[0][1] == segment[1][1]
        if pb is not None:  # only the cell below / east of the street is a property
            return f"{'north' if horizontal else 'west'} of {pb}"
        if pa is not None:
            return f"{'south' if horizontal else 'east'} of {pa}"
        return f"({segment[0][0]},{segment[0][1]})–({segment[1][0]},{segment[1][1]})"
