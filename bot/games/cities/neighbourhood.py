"""A player's neighbourhood: tiles on a tile grid, their spaces, features and buildings.

Coordinates (replays and tests depend on them):
- A space is ``(row, col)``, rows downward; the starting tile covers rows 0-1, cols 0-1.
- A tile sits at a tile-grid position ``(tile_row, tile_col)`` and covers the spaces
  ``2*tile_row .. 2*tile_row+1`` x ``2*tile_col .. 2*tile_col+1``; the starting tile is at
  ``(0, 0)`` and negative positions are allowed.
- In JSON a space is ``"row,col"`` as a key and ``[row, col]`` elsewhere.

Space codes: ``R B G Y`` city spaces of that colour, ``P`` park, ``W`` water.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from bot.core.i18n import Text, Words

from .content import CONTENT, Feature
from .data_words import feature_label

_ = Words("bot.games.cities")
_l = _.lazy

Space = tuple[int, int]
TilePos = tuple[int, int]
Limit = tuple[int, int]
"""(short, long): the neighbourhood's tiles must fit in short x long, either way round."""

STANDARD_LIMIT: Limit = (3, 3)
VARIANT_LIMIT: Limit = (3, 5)
ROTATIONS = (0, 90, 180, 270)
CITY_CODES = frozenset("RBGY")


def _english(text: Text) -> str:
    """A Text's English, without a catalog or the language context (cheap: refusals are
    made by the thousand when the computer player weighs its spots)."""
    message = text.plural if text.plural is not None and text.count != 1 else text.message
    params = {k: _english(v) if isinstance(v, Text) else v for k, v in text.params.items()}
    return message.format(**params) if params else message


class Refusal(str):
    """Why a placement is not allowed: its English words (the string itself, for the
    computer player, tests and logs) and ``text``, said in the reader's language when the
    engine's refusal reaches a person."""

    text: Text

    def __new__(cls, text: Text) -> Refusal:
        refusal = super().__new__(cls, _english(text))
        refusal.text = text
        return refusal


def space_key(space: Space) -> str:
    return f"{space[0]},{space[1]}"


def parse_key(key: str) -> Space:
    row, col = key.split(",")
    return int(row), int(col)


_ADJACENT: dict[Space, tuple[Space, Space, Space, Space]] = {}


def adjacent(space: Space) -> tuple[Space, Space, Space, Space]:
    """The four orthogonal neighbours: "'Adjacent' means orthogonal not diagonal"."""
    found = _ADJACENT.get(space)
    if found is None:
        r, c = space
        found = _ADJACENT[space] = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
    return found


def tile_spaces(tile_id: str, at: TilePos, rotation: int) -> dict[Space, str]:
    """The four spaces a tile covers at ``at`` turned clockwise by ``rotation``."""
    top, bottom = CONTENT.tiles[tile_id].layout(rotation)
    r, c = 2 * at[0], 2 * at[1]
    return {(r, c): top[0], (r, c + 1): top[1], (r + 1, c): bottom[0], (r + 1, c + 1): bottom[1]}


def fits(height: int, width: int, limit: Limit) -> bool:
    short, long = limit
    return min(height, width) <= short and max(height, width) <= long


class Neighbourhood:
    """A mutable working copy of one neighbourhood (the state keeps plain JSON).

    ``kinds`` maps every space to its printed code, ``features`` to the feature tile on
    it, ``buildings`` to ``(colour, height)`` of the pieces on it.
    """

    __slots__ = ("_areas", "_touching", "_undo", "buildings", "features", "kinds", "tiles")

    def __init__(self) -> None:
        self.tiles: dict[TilePos, tuple[str, int]] = {}
        self.kinds: dict[Space, str] = {}
        self.features: dict[Space, Feature] = {}
        self.buildings: dict[Space, tuple[str, int]] = {}
        self._areas: dict[str, list[list[Space]]] | None = None
        self._touching: dict[tuple[Space, str], bool] = {}
        self._undo: dict[TilePos, tuple[dict[str, list[list[Space]]] | None, dict[tuple[Space, str], bool]]] = {}

    # ----------------------------------------------------------------- state ---

    @classmethod
    def starting(cls, tile_id: str) -> Neighbourhood:
        hood = cls()
        hood.place_tile(tile_id, (0, 0), 0)
        return hood

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> Neighbourhood:
        hood = cls()
        for placed in data["tiles"]:
            at = (placed["at"][0], placed["at"][1])
            hood.tiles[at] = (placed["tile"], placed["rotation"])
            hood.kinds.update(tile_spaces(placed["tile"], at, placed["rotation"]))
        for key, feature_id in data["features"].items():
            hood.features[parse_key(key)] = CONTENT.features[feature_id]
        for key, building in data["buildings"].items():
            hood.buildings[parse_key(key)] = (building["color"], building["height"])
        return hood

    def to_state(self) -> dict[str, Any]:
        return {
            "tiles": [
                {"tile": tile, "at": [at[0], at[1]], "rotation": rotation}
                for at, (tile, rotation) in self.tiles.items()
            ],
            "features": {space_key(s): f.id for s, f in sorted(self.features.items())},
            "buildings": {
                space_key(s): {"color": colour, "height": height}
                for s, (colour, height) in sorted(self.buildings.items())
            },
        }

    def copy(self) -> Neighbourhood:
        other = Neighbourhood()
        other.tiles = dict(self.tiles)
        other.kinds = dict(self.kinds)
        other.features = dict(self.features)
        other.buildings = dict(self.buildings)
        other._areas = self._areas
        other._touching = self._touching
        other._undo = {}
        return other

    # ----------------------------------------------------------------- tiles ---

    def tile_bounds(self) -> tuple[int, int, int, int]:
        rows = [at[0] for at in self.tiles]
        cols = [at[1] for at in self.tiles]
        return min(rows), max(rows), min(cols), max(cols)

    def size(self) -> tuple[int, int]:
        """Height and width of the neighbourhood in tiles."""
        r0, r1, c0, c1 = self.tile_bounds()
        return r1 - r0 + 1, c1 - c0 + 1

    def tile_refusal(self, at: TilePos, limit: Limit) -> Refusal | None:
        """Why a tile may not go at ``at`` (None when it may)."""
        if at in self.tiles:
            return Refusal(_l("A tile is already there."))
        r, c = at
        if not any(n in self.tiles for n in adjacent(at)):
            return Refusal(_l("A city tile must share a whole edge with a tile of your neighbourhood."))
        r0, r1, c0, c1 = self.tile_bounds()
        height = max(r1, r) - min(r0, r) + 1
        width = max(c1, c) - min(c0, c) + 1
        if not fits(height, width, limit):
            short, long = limit
            if short == long:
                return Refusal(_l("Your neighbourhood may never exceed {short} tiles in length and "
                                  "{short} in width.", short=short))
            return Refusal(_l("Your neighbourhood may never exceed {short} x {long} tiles.",
                              short=short, long=long))
        return None

    def tile_spots(self, limit: Limit) -> list[TilePos]:
        """Every tile-grid position where the next city tile may go, sorted."""
        candidates = {n for at in self.tiles for n in adjacent(at)} - set(self.tiles)
        return sorted(at for at in candidates if self.tile_refusal(at, limit) is None)

    def place_tile(self, tile_id: str, at: TilePos, rotation: int) -> None:
        new = tile_spaces(tile_id, at, rotation)
        self._undo[at] = (self._areas, self._touching)
        self.tiles[at] = (tile_id, rotation)
        self.kinds.update(new)
        if self._areas is not None:
            self._areas = {code: self._grown_areas(code, new) for code in ("W", "P")}
        self._touching = {}

    def remove_tile(self, at: TilePos) -> None:
        """Undo the latest ``place_tile`` (only for the computer player's trials)."""
        del self.tiles[at]
        r, c = 2 * at[0], 2 * at[1]
        for space in ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)):
            del self.kinds[space]
        self._areas, self._touching = self._undo.pop(at, (None, {}))

    def _grown_areas(self, code: str, new: dict[Space, str]) -> list[list[Space]]:
        """The areas of ``code`` once the spaces ``new`` joined; only the old areas the new
        spaces touch are filled again (the old lists stay untouched)."""
        assert self._areas is not None
        areas = self._areas[code]
        added = [s for s, k in new.items() if k == code]
        if not added:
            return areas
        owner = {s: i for i, area in enumerate(areas) for s in area}
        touched = {owner[n] for s in added for n in adjacent(s) if n in owner}
        pool = set(added).union(*(areas[i] for i in touched))
        return [a for i, a in enumerate(areas) if i not in touched] + _fill(pool)

    # -------------------------------------------------------------- features ---

    def feature_refusal(self, feature: Feature, space: Space) -> Refusal | None:
        """Why ``feature`` may not go on ``space``: "Only 1 feature tile may be placed per
        space"; blue on water, green on park, grey "on building spaces with no building
        pieces on them"."""
        kind = self.kinds.get(space)
        if kind is None:
            return Refusal(_l("That space is not in your neighbourhood."))
        if space in self.features:
            return Refusal(_l("That space already has a feature tile."))
        needed = feature.space_code
        label = feature_label(feature, lazy=True)
        if needed == "W" and kind != "W":
            return Refusal(_l("{feature} goes on a water space.", feature=label))
        if needed == "P" and kind != "P":
            return Refusal(_l("{feature} goes on a park space.", feature=label))
        if needed is None:
            if kind not in CITY_CODES:
                return Refusal(_l("{feature} goes on a city space.", feature=label))
            if space in self.buildings:
                return Refusal(_l("{feature} goes on a city space without building pieces.", feature=label))
        return None

    def feature_spaces(self, feature: Feature) -> list[Space]:
        needed = feature.space_code
        if needed is None:
            return sorted(
                s for s, k in self.kinds.items()
                if k in CITY_CODES and s not in self.features and s not in self.buildings
            )
        return sorted(s for s, k in self.kinds.items() if k == needed and s not in self.features)

    def place_feature(self, feature: Feature, space: Space) -> None:
        self.features[space] = feature

    def remove_feature(self, space: Space) -> None:
        del self.features[space]

    # ---------------------------------------------------------------- pieces ---

    def piece_refusal(self, colour: str, space: Space) -> Refusal | None:
        """Why a piece of ``colour`` may not go on ``space`` (None when it may)."""
        kind = self.kinds.get(space)
        if kind is None:
            return Refusal(_l("That space is not in your neighbourhood."))
        if kind not in CITY_CODES:
            return Refusal(_l("Building pieces go on city spaces only."))
        feature = self.features.get(space)
        if feature is not None and not feature.is_wild:
            return Refusal(_l("No building pieces may be placed on a feature tile."))
        building = self.buildings.get(space)
        if building is None:
            if feature is None and kind != colour:
                return Refusal(_l("A building piece goes on a city space of its own colour."))
            return None
        if building[0] != colour:
            return Refusal(_l("Only pieces of the building's colour may be stacked on it."))
        if building[1] >= 4:
            return Refusal(_l("Buildings are at most 4 pieces high."))
        return None

    def piece_spaces(self, colour: str) -> list[Space]:
        spaces = []
        for space, kind in self.kinds.items():
            if kind not in CITY_CODES:
                continue
            building = self.buildings.get(space)
            if building is not None:
                if building[0] == colour and building[1] < 4:
                    spaces.append(space)
                continue
            feature = self.features.get(space)
            if feature is None:
                if kind == colour:
                    spaces.append(space)
            elif feature.is_wild:
                spaces.append(space)
        return sorted(spaces)

    def place_piece(self, colour: str, space: Space) -> tuple[str, int] | None:
        """Put a piece on ``space``; returns what was there for ``undo_piece``."""
        before = self.buildings.get(space)
        self.buildings[space] = (colour, before[1] + 1 if before else 1)
        return before

    def undo_piece(self, space: Space, before: tuple[str, int] | None) -> None:
        if before is None:
            del self.buildings[space]
        else:
            self.buildings[space] = before

    # --------------------------------------------------------------- queries ---

    def height(self, space: Space) -> int:
        building = self.buildings.get(space)
        return building[1] if building else 0

    def is_empty_city(self, space: Space) -> bool:
        """A city space with no pieces and no feature; an unbuilt wild space counts."""
        if self.kinds.get(space) not in CITY_CODES or space in self.buildings:
            return False
        feature = self.features.get(space)
        return feature is None or feature.is_wild

    def monuments(self) -> list[Space]:
        return [s for s, f in self.features.items() if f.is_monument]

    def touches(self, space: Space, code: str) -> bool:
        """Whether ``space`` has an orthogonal neighbour of type ``code`` (W, P, R...)."""
        key = (space, code)
        found = self._touching.get(key)
        if found is None:
            kinds = self.kinds
            found = self._touching[key] = any(kinds.get(n) == code for n in adjacent(space))
        return found

    def areas(self, code: str) -> list[list[Space]]:
        """Maximal orthogonally connected groups of water (``W``) or park (``P``) spaces."""
        if self._areas is None:
            self._areas = {"W": self._find_areas("W"), "P": self._find_areas("P")}
        return self._areas[code]

    def _find_areas(self, code: str) -> list[list[Space]]:
        return _fill({s for s, k in self.kinds.items() if k == code})

    def area_kinds(self, area: Iterable[Space]) -> set[str]:
        """The different feature kinds on an area's spaces."""
        features = self.features
        return {features[s].kind for s in area if s in features}

    def spaces(self) -> Iterator[Space]:
        return iter(sorted(self.kinds))


def _fill(todo: set[Space]) -> list[list[Space]]:
    """Split spaces into orthogonally connected groups (each sorted, groups by first space)."""
    found = []
    while todo:
        start = min(todo)
        todo.discard(start)
        area, stack = [start], [start]
        while stack:
            for n in adjacent(stack.pop()):
                if n in todo:
                    todo.discard(n)
                    area.append(n)
                    stack.append(n)
        found.append(sorted(area))
    return found
