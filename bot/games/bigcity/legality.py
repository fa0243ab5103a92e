"""Where a building, park, factory or neighbourhood may go.

Each check returns None when the move is allowed, else the sentence that refuses it (a
``Sentence``: English to compare, the reader's language when shown).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bot.core.i18n import Words
from bot.games.bigcity.city import City
from bot.games.bigcity.content import (
    BUILDINGS,
    NEIGHBORHOODS,
    PROPERTIES,
    SPECIAL_CARDS,
    Card,
    category,
    double_numbered,
    neighborhood_grid,
    piece_title,
)
from bot.games.bigcity.geometry import (
    ROTATIONS,
    Cell,
    has_shape,
    internal_streets,
    neighborhood_layout,
    neighbors,
    rotate,
    shape_sites,
)
from bot.games.bigcity.saying import (
    Capitalised,
    Sentence,
    a_building,
    shape_text,
    some_buildings,
    title_text,
)
from bot.games.bigcity.saying import sentence as _l

_ = Words("bot.games.bigcity")

SPECIAL_BUILDINGS = ("city_hall", "church", "cinema", "post_office", "bank", "shopping_center")


def a_or_an(title: str) -> str:
    """ "A double residence", "An ..." at the start of a sentence."""
    word = title.lower()
    return ("An " if word[0] in "aeiou" else "A ") + word


def site_problem(city: City, props: list[int]) -> Sentence | None:
    """Properties that exist, lie in the city, are free and distinct."""
    if len(set(props)) != len(props):
        return _l("Name each property once.")
    for prop in props:
        if prop not in PROPERTIES:
            return _l("There is no property {property}.", property=prop)
        if not city.in_city(prop):
            return _l("Property {property} is not in the city yet.", property=prop)
        if not city.is_free(prop):
            return _l("Property {property} is already built on.", property=prop)
    return None


def streetcar_under(city: City, props: list[int]) -> Sentence | None:
    """ "Streetcars may not be placed across a property or a building": a piece covering two
    properties covers the street between them, so it cannot go over a streetcar there."""
    for street in internal_streets([city.cell_of[p] for p in props]):
        if street in city.streetcars:
            return _l("A streetcar runs between those properties; nothing may be built over "
                      "it.")
    return None


def build_problem(city: City, hand: Iterable[Card], building: str,
                  props: list[int]) -> Sentence | None:
    """Why ``building`` may not stand on ``props`` for a player holding ``hand`` (None: it may)."""
    if building not in BUILDINGS:
        return _l("There is no building called {name!r}.", name=building)
    count, size, _kind, _title = BUILDINGS[building]
    a = Capitalised(a_building(building))
    if len(props) != size:
        if size == 1:
            return _l("{a_building} needs 1 property.", a_building=a)
        return _l("{a_building} needs {n} properties.", a_building=a, n=size)
    problem = site_problem(city, props)
    if problem:
        return problem
    held = set(hand)
    for prop in props:
        if prop not in held:
            return _l("You do not hold the card for property {property}.", property=prop)
    # "If there are no more buildings of the type desired, the building may not be placed."
    if _left(city, building, count) <= 0:
        if count == 1:
            return _l("{building} is already built.", building=title_text(building))
        return _l("No {buildings} are left.", buildings=some_buildings(building))
    if building in SPECIAL_BUILDINGS and building != "city_hall" and not city.has_city_hall():
        return _l("{a_building} can only be built after city hall.", a_building=a)
    cells = [city.cell_of[p] for p in props]
    if size == 2 and not has_shape(cells, "pair"):
        return _l("{a_building} must stand on two adjacent properties.", a_building=a)
    if size == 3 and not has_shape(cells, "line3"):
        return _l("{a_building} must stand on three properties in a straight line.",
                  a_building=a)
    problem = streetcar_under(city, props)
    if problem:
        return problem
    return _prerequisite_problem(city, building, props)


def _left(city: City, building: str, count: int) -> int:
    return count - sum(1 for piece in city.pieces if piece["building"] == building)


def _prerequisite_problem(city: City, building: str, props: list[int]) -> Sentence | None:
    adjacent = city.adjacent_pieces(props)
    kinds = [category(p["building"]) for p in adjacent]
    residences = kinds.count("residence")
    businesses = kinds.count("business")
    if building == "city_hall":
        if city.on_outskirts(props):
            return _l("City hall must be built in the center of the city, not on the "
                      "outskirts.")
    elif building == "church":
        # "It may be built only as the last building in a neighborhood and only on a
        # property with a double number (e.g. 11, 33, 88, etc.)."
        if not double_numbered(props[0]):
            return _l("A church must stand on a double-numbered property (11, 22, … 88).")
        if not city.neighborhood_complete_but(props[0]):
            return _l("A church must be the last free property of its neighborhood.")
    elif building == "cinema":
        # "A double residence does not count as two residences for this prerequisite."
        if residences < 2:
            return _l("A cinema must be next to two separate residences.")
    elif building == "bank":
        if businesses < 2:
            return _l("A bank must be next to two separate businesses.")
    elif building == "post_office":
        if residences < 1 or businesses < 1:
            return _l("A post office must be next to a residence and a business.")
    elif building == "shopping_center":
        # "at least one residence, one business, one special building, and the streetcar
        # line must be adjacent to the properties ... to either"
        missing = [
            word
            for word, ok in (
                (_l("a residence"), residences >= 1),
                (_l("a business"), businesses >= 1),
                (_l("a special building"), "special" in kinds),
                (_l("the streetcar line"), city.streetcar_along(props)),
            )
            if not ok
        ]
        if missing:
            return _l("A shopping center must be next to {things}.", things=Joined(missing))
    return None


@dataclass(frozen=True)
class Joined:
    """"a, b and c", said later in the reader's language."""

    words: list[Sentence]

    def __str__(self) -> str:
        words = [str(w) for w in self.words]
        if len(words) == 1:
            return words[0]
        return _("{first} and {last}", first=", ".join(words[:-1]), last=words[-1])


def special_problem(city: City, card: str, props: list[int]) -> Sentence | None:
    """Why the park or factory of ``card`` may not go on ``props`` (None: it may)."""
    if card not in SPECIAL_CARDS:
        return _l("There is no park or factory card called {name!r}.", name=card)
    _stack, kind, shape, _title = SPECIAL_CARDS[card]
    name = title_text(card)
    if any(piece["building"] == card for piece in city.pieces):
        return _l("{card} is already in the city.", card=name)
    if not city.has_city_hall():
        return _l("Parks and factories can only be placed after city hall.")
    problem = site_problem(city, props)
    if problem:
        return problem
    if not has_shape([city.cell_of[p] for p in props], shape):
        return _l("{card} needs {shape}.", card=name, shape=shape_text(shape))
    problem = streetcar_under(city, props)
    if problem:
        return problem
    on_edge = sum(1 for p in props if p in city.outskirts())
    if kind == "park" and on_edge > 1:
        return _l("A park may have at most one property on the outskirts.")
    if kind == "factory" and on_edge < 2:
        return _l("A factory must have at least two properties on the outskirts.")
    return None


def placement_problem(city: City, number: int, at: Cell, rotation: int) -> Sentence | None:
    """Why a neighbourhood may not be placed there (None: it may).

    "Each new neighborhood must be placed so that at least two properties on the new
    neighborhood are adjacent to two properties already in the city. Neighborhoods may
    not overlap."
    """
    if number not in NEIGHBORHOODS:
        return _l("There is no neighborhood {number}.", number=number)
    if number in city.placed:
        return _l("Neighborhood {number} is already in the city.", number=number)
    if rotation not in ROTATIONS:
        return _l("A neighborhood turns by 0, 90, 180 or 270 degrees.")
    cells = list(neighborhood_layout(number, at, rotation).values())
    return _fit_problem(city, cells)


def _fit_problem(city: City, cells: list[Cell]) -> Sentence | None:
    occupied = city.property_at
    if not occupied.keys().isdisjoint(cells):
        return _l("Neighborhoods may not overlap.")
    new = set(cells)
    touching_new: set[Cell] = set()
    touching_old: set[Cell] = set()
    for c in cells:
        for n in neighbors(c):
            if n in occupied and n not in new:
                touching_new.add(c)
                touching_old.add(n)
    if len(touching_new) < 2 or len(touching_old) < 2:
        return _l("At least two of its properties must be next to two properties of the city.")
    return None


def placement_options(city: City, number: int) -> list[tuple[Cell, int]]:
    """Every legal (at, rotation) for an unplaced neighbourhood."""
    if number in city.placed:
        return []
    shape = neighborhood_grid(number)
    fits = city.fits.get(shape)
    if fits is None:
        fits = city.fits[shape] = _fits(city, *shape)
    return list(fits)


def _fits(city: City, columns: int, rows: int) -> list[tuple[Cell, int]]:
    """Every (at, rotation) where a neighbourhood of ``columns`` by ``rows`` may go. (Runs
    on every look at the map, for each shape: ~1 ms of a Big City turn before it was made
    set-wise.)"""
    occupied = city.property_at
    # empty cells next to the city, each with the city cells it touches
    frontier: dict[Cell, set[Cell]] = {}
    for cell in occupied:
        for n in neighbors(cell):
            if n not in occupied:
                frontier.setdefault(n, set()).add(cell)
    options: list[tuple[Cell, int]] = []
    for rotation in ROTATIONS:
        offsets = [rotate(k % columns, k // columns, rotation) for k in range(columns * rows)]
        # a fit needs two of its cells on the frontier, so only anchors reached twice qualify
        hits = Counter([(fx - dx, fy - dy) for fx, fy in frontier for dx, dy in offsets])
        # and none on the city
        overlapping = {(ox - dx, oy - dy) for ox, oy in occupied for dx, dy in offsets}
        for ax, ay in sorted([a for a, count in hits.items()
                              if count >= 2 and a not in overlapping]):
            # "At least two of its properties must be next to two properties of the city."
            touched: set[Cell] = set()
            for dx, dy in offsets:
                near = frontier.get((ax + dx, ay + dy))
                if near:
                    touched |= near
                    if len(touched) >= 2:
                        options.append(((ax, ay), rotation))
                        break
    return options


def building_sites(city: City, hand: Iterable[Card]) -> list[tuple[str, list[int]]]:
    """Every (building, properties) the hand allows now."""
    held = sorted(c for c in hand if isinstance(c, int) and city.is_free(c))
    cells = {city.cell_of[p]: p for p in held}
    groups: list[list[int]] = [[p] for p in held]
    for p in held:
        x, y = city.cell_of[p]
        for dx, dy in ((1, 0), (0, 1)):
            second = cells.get((x + dx, y + dy))
            if second is not None:
                groups.append(sorted([p, second]))
                third = cells.get((x + 2 * dx, y + 2 * dy))
                if third is not None:
                    groups.append(sorted([p, second, third]))
    sites: list[tuple[str, list[int]]] = []
    for group in groups:
        for building, (_count, size, _kind, _title) in BUILDINGS.items():
            if size == len(group) and build_problem(city, held, building, group) is None:
                sites.append((building, group))
    return sites


def special_sites(city: City, card: str) -> list[list[int]]:
    """Every legal site for the park or factory of ``card``."""
    if card not in SPECIAL_CARDS or not city.has_city_hall():
        return []
    free_cells = [city.cell_of[p] for p in city.free_properties()]
    sites: list[list[int]] = []
    for site in shape_sites(free_cells, SPECIAL_CARDS[card][2]):
        props = sorted(city.property_at[c] for c in site)
        if special_problem(city, card, props) is None:
            sites.append(props)
    return sites


def useless_cards(city: City, hand: Iterable[Card]) -> list[Card]:
    """Property cards whose property is covered by a park or factory."""
    result: list[Card] = []
    for card in hand:
        if not isinstance(card, int) or card not in city.occupant:
            continue
        if category(city.pieces[city.occupant[card]]["building"]) in ("park", "factory"):
            result.append(card)
    return result


def building_label(building: str, props: list[int]) -> str:
    return f"{piece_title(building)} on {'+'.join(str(p) for p in props)}"
