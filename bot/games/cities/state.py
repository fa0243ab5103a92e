"""Reading a Cities state: its constants, the small questions every part of the game asks
of it (whose city, how many workers are left, what a player has scored so far) and the
labels of the board's items. The rules (``engine``), the table (``view``) and the
computer player all read the state through these, so none of them imports another.
"""

from __future__ import annotations

import marshal
from typing import Any, Final

from bot.core.engine import JSON

from . import scoring
from .content import COLOUR_NAMES, CONTENT, City
from .neighbourhood import STANDARD_LIMIT, VARIANT_LIMIT, Limit, Neighbourhood

ROWS: Final = ("cards", "tiles", "features", "pieces")
ROW_NAMES: Final = {
    "cards": "scoring card",
    "tiles": "city tile",
    "features": "feature tile",
    "pieces": "building piece",
}
FEATURE_GROUPS: Final = (2, 1, 1, 2)
"""Feature tiles per group; "the last group's second tile face-down"."""
PIECE_GROUPS: Final = (4, 3, 3)
"""Pieces per group in the fourth row; the fourth space is the star space."""
STAR_PIECES: Final = 2
STAR_SLOT: Final = 4
OPTION_KEYS: Final = (
    "city", "first_player", "variant", "scoring_cards", "city_tiles", "feature_tiles", "bag",
)
REMOVED_LIST: Final = {"cards": "scoring_cards", "tiles": "city_tiles", "features": "feature_tiles"}
"""Board row -> where its face-up leftovers are listed once removed."""


def copy_json(value: Any) -> Any:
    """A deep copy of plain JSON data: marshal round-trips dicts, lists, strings, numbers,
    booleans and None exactly, several times faster than ``copy.deepcopy``."""
    return marshal.loads(marshal.dumps(value))


def limit_of(state: JSON) -> Limit:
    return VARIANT_LIMIT if state["variant"] == "3x5" else STANDARD_LIMIT


def workers_per_row(state: JSON) -> int:
    """"In a 3-4 player game, each player may place only 1 worker per row each round. In a
    2-player game, they must place 2 workers per row over the course of the round.\""""
    return 2 if len(state["players"]) == 2 else 1


def city_of(state: JSON) -> City:
    return CONTENT.cities[state["city"]]


def hood_of(state: JSON, player: str) -> Neighbourhood:
    return Neighbourhood.from_state(state["neighbourhoods"][player])


def workers_left(state: JSON, player: str, row: str) -> int:
    used = sum(1 for slot in state["rows"][row] if slot["taken_by"] == player)
    return workers_per_row(state) - used


def slot_available(state: JSON, row: str, slot: JSON) -> bool:
    if slot["taken_by"] is not None:
        return False
    if slot.get("star"):
        # D10: the star space opens once the start player has finished the round's first
        # turn ("After the start player's first turn of the round, they place the star
        # token on the indicated bottom right space on the board").
        return bool(state["star_on_board"])
    return bool(slot["items"])


def ring_points(state: JSON, player: str) -> list[tuple[str, int]]:
    """The achievements ``player`` claimed, with the VP printed under their ring."""
    claimed = []
    for achievement in city_of(state).achievements:
        values = achievement.ring_values(len(state["players"]))
        for i, holder in enumerate(state["rings"][achievement.id]):
            if holder == player:
                claimed.append((achievement.id, values[i]))
    return claimed


def breakdown_of(state: JSON, player: str, hood: Neighbourhood | None = None) -> JSON:
    hood = hood or hood_of(state, player)
    return scoring.breakdown(hood, state["cards_held"][player], ring_points(state, player))


def score_of(state: JSON, player: str, hood: Neighbourhood | None = None) -> int:
    vp = sum(v for _, v in ring_points(state, player))
    return scoring.total(hood or hood_of(state, player), state["cards_held"][player], vp)


# ---------------------------------------------------------------- labels ---


def _take_label(row: str, slot: JSON) -> str:
    if slot.get("star"):
        return "Star: 2 random pieces, first next round"
    if row == "pieces":
        return "Pieces: " + ", ".join(COLOUR_NAMES[c] for c in slot["items"])
    shown = [
        "face-down" if hidden else item_label(row, item)
        for item, hidden in zip(slot["items"], slot["hidden"], strict=True)
    ]
    prefix = {"cards": "Card", "tiles": "Tile", "features": "Features" if len(shown) > 1 else "Feature"}
    return f"{prefix[row]}: " + " + ".join(shown)


def item_label(row: str, item: str) -> str:
    """A card, tile, feature or piece colour on the board, as a move's label names it."""
    if row == "cards":
        card = CONTENT.cards[item]
        return f"{card.name} ({card.vp} VP)"
    if row == "tiles":
        return f"{item} ({CONTENT.tiles[item].label()})"
    if row == "features":
        return CONTENT.features[item].label
    return COLOUR_NAMES[item]
