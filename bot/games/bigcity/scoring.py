"""Points for a building at the moment it is placed, with a sum a player can follow.

"The value of a building is determined at the time it is placed. Later placements do not
credit or debit the player who placed the building."
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.bigcity.city import City
from bot.games.bigcity.content import BASE_VALUE, BUILDINGS, category, piece_title


@dataclass(frozen=True)
class Score:
    points: int
    explanation: str


def score_building(city: City, building: str, props: list[int]) -> Score:
    """The points ``building`` on ``props`` would score now (the site is assumed legal)."""
    kind = category(building)
    if kind in ("residence", "business"):
        return _score_home_or_business(city, building, props)
    if building in ("cinema", "post_office", "bank"):
        streetcar = city.streetcar_along(props)
        city_hall = city.city_hall_adjacent(props)
        return _multiplied(5, [], streetcar, city_hall, building_word=piece_title(building).lower())
    if building == "church":
        # "A church always scores 15 points ... no bonuses and suffers no penalties"
        return Score(15, "15 church")
    if building == "shopping_center":
        return Score(30, "30 shopping center")
    # city hall, parks and factories score nothing
    name = piece_title(building) if kind in ("park", "factory") else piece_title(building).lower()
    return Score(0, f"0 {name}")


def _score_home_or_business(city: City, building: str, props: list[int]) -> Score:
    size = BUILDINGS[building][1]
    base = BASE_VALUE[size]
    adjacent = [category(p["building"]) for p in city.adjacent_pieces(props)]
    terms: list[tuple[int, str]] = []
    # Park +1 and factory −2 apply once however many ("only two points are subtracted if a
    # residence is adjacent to both factories").
    if "park" in adjacent:
        terms.append((1, "park"))
    outskirts = city.on_outskirts(props)
    if category(building) == "residence":
        if outskirts:
            terms.append((1, "outskirts"))
        multiplier_city_hall = False  # "city hall does not have influence on residences"
    else:
        if not outskirts:
            terms.append((1, "center"))
        multiplier_city_hall = city.city_hall_adjacent(props)
    if "factory" in adjacent:
        terms.append((-2, "factory"))
    return _multiplied(base, terms, city.streetcar_along(props), multiplier_city_hall)


def _multiplied(
    base: int,
    terms: list[tuple[int, str]],
    streetcar: bool,
    city_hall: bool,
    building_word: str = "",
) -> Score:
    """base + terms, then × 2 for the streetcar or city hall, × 3 for both.

    "If a single residence or business is placed adjacent to a factory, the value could be
    0 ... Should this occur, the player receives 1 point total. He may not apply any
    multiplier that might otherwise be allowed."
    """
    text = str(base) + (f" {building_word}" if building_word else "")
    subtotal = base
    for value, word in terms:
        text += f" {'+' if value > 0 else '−'} {abs(value)} {word}"
        subtotal += value
    if terms:
        text += f" = {subtotal}"
    if subtotal <= 0:
        return Score(1, f"{text}, counts as 1")
    if streetcar and city_hall:
        factor, why = 3, "city hall and streetcar"
    elif streetcar:
        factor, why = 2, "streetcar"
    elif city_hall:
        factor, why = 2, "city hall"
    else:
        return Score(subtotal, text)
    points = subtotal * factor
    return Score(points, f"{text}{',' if terms else ''} × {factor} {why} = {points}")
