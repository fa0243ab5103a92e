"""The components of Big City: neighbourhoods, property cards, buildings and streetcars.

Where the rulebook is silent the issue decided (docs/bigcity.md lists every decision):
- neighbourhoods 1, 3, 5, 7 are 3×3 grids (properties n1–n9), 2, 4, 6, 8 are 2 rows ×
  4 columns (n1–n8); properties are numbered row by row from the top-left corner;
- one card stack per neighbourhood, nine cards each: its property cards plus, in the even
  stacks, one park or factory card;
- 52 buildings and 17 streetcars in the counts below.
"""

from __future__ import annotations

from typing import Final, Literal

Card = int | str
"""A property card is its property number (e.g. 14); a park or factory card is its name."""

NEIGHBORHOODS: Final[tuple[int, ...]] = (1, 2, 3, 4, 5, 6, 7, 8)


def neighborhood_grid(number: int) -> tuple[int, int]:
    """(columns, rows) of an unrotated neighbourhood."""
    return (3, 3) if number % 2 == 1 else (4, 2)


def neighborhood_properties(number: int) -> list[int]:
    """The property numbers of a neighbourhood, n1 first."""
    columns, rows = neighborhood_grid(number)
    return [number * 10 + k for k in range(1, columns * rows + 1)]


PROPERTIES: Final[tuple[int, ...]] = tuple(
    p for n in NEIGHBORHOODS for p in neighborhood_properties(n)
)
"""All 68 properties."""

SpecialKind = Literal["park", "factory"]

SPECIAL_CARDS: Final[dict[str, tuple[int, SpecialKind, str, str]]] = {
    # card: (stack, kind, shape, title)
    "lincoln_park": (2, "park", "pair", "Lincoln Park"),
    "central_park": (4, "park", "line3", "Central Park"),
    "stanford_corporation": (6, "factory", "l3", "Stanford Corporation"),
    "rockwell_industries": (8, "factory", "square", "Rockwell Industries"),
}

SHAPE_WORDS: Final[dict[str, str]] = {
    "pair": "two adjacent properties",
    "line3": "three properties in a line",
    "l3": "three properties in an L",
    "square": "four properties in a square",
}


def stack_cards(number: int) -> list[Card]:
    """The nine cards of a stack, in a fixed order (before shuffling)."""
    cards: list[Card] = list(neighborhood_properties(number))
    cards.extend(name for name, info in SPECIAL_CARDS.items() if info[0] == number)
    return cards


ALL_CARDS: Final[tuple[Card, ...]] = tuple(c for n in NEIGHBORHOODS for c in stack_cards(n))
"""The 72 property cards."""


def stack_of(card: Card) -> int:
    """The stack (= neighbourhood number on the card's back) a card belongs to."""
    if isinstance(card, str):
        return SPECIAL_CARDS[card][0]
    return card // 10


def is_card(value: object) -> bool:
    """Whether ``value`` names one of the 72 cards."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value in PROPERTIES
    return isinstance(value, str) and value in SPECIAL_CARDS


def card_label(card: Card) -> str:
    if isinstance(card, str):
        return SPECIAL_CARDS[card][3]
    return str(card)


Category = Literal["residence", "business", "special", "park", "factory"]

# building id: (count, number of properties, category, title)
BUILDINGS: Final[dict[str, tuple[int, int, Category, str]]] = {
    "single_residence": (9, 1, "residence", "Single residence"),
    "double_residence": (6, 2, "residence", "Double residence"),
    "triple_residence": (4, 3, "residence", "Triple residence"),
    "single_business": (9, 1, "business", "Single business"),
    "double_business": (6, 2, "business", "Double business"),
    "triple_business": (4, 3, "business", "Triple business"),
    "city_hall": (1, 1, "special", "City hall"),
    "church": (2, 1, "special", "Church"),
    "cinema": (3, 1, "special", "Cinema"),
    "post_office": (3, 1, "special", "Post office"),
    "bank": (3, 1, "special", "Bank"),
    "shopping_center": (2, 2, "special", "Shopping center"),
}
assert sum(info[0] for info in BUILDINGS.values()) == 52

STREETCARS: Final = 17

BASE_VALUE: Final[dict[int, int]] = {1: 2, 2: 6, 3: 10}
"""Base value of a residence or business by its number of properties."""


def category(piece: str) -> Category:
    """What a building or park/factory piece is: residence, business, special, park, factory."""
    if piece in SPECIAL_CARDS:
        return SPECIAL_CARDS[piece][1]
    return BUILDINGS[piece][2]


def piece_title(piece: str) -> str:
    if piece in SPECIAL_CARDS:
        return SPECIAL_CARDS[piece][3]
    return BUILDINGS[piece][3]


def starting_neighborhoods(players: int) -> list[int]:
    """Neighbourhoods of the starting city: 1–5 (2 players), 1–4, 1–5, 1–6 (5 players)."""
    last = {2: 5, 3: 4, 4: 5, 5: 6}[players]
    return list(range(1, last + 1))


def hand_size(players: int) -> int:
    """Five cards in hand, six with five players."""
    return 6 if players == 5 else 5


def dealt_stacks(players: int) -> list[int]:
    """Each player starts with one card from stacks 1–5, and from stack 6 with five players."""
    return list(range(1, hand_size(players) + 1))


def double_numbered(prop: int) -> bool:
    """11, 22, ..., 88: the only properties a church may stand on."""
    return prop // 10 == prop % 10
