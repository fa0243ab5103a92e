"""The content of Cities, loaded once from ``bot/data/cities/``.

The tiles, feature tiles, scoring cards and city achievement boards are Cityhall's own
design (``../shared/cities-content.md``), not the publisher's: the rulebook does not list
its components. The JSON files are the single source; this module only gives them types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from bot.data import data_path

DATA_DIR: Final = data_path("cities")
CONTENT_FILES: Final = ("tiles", "features", "scoring_cards", "cities", "scoring")

COLOURS: Final = ("R", "B", "G", "Y")
"""Building colours, in the order they are listed everywhere (red, blue, green, yellow)."""
COLOUR_NAMES: Final = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
SPACE_NAMES: Final = {
    "R": "red city space",
    "B": "blue city space",
    "G": "green city space",
    "Y": "yellow city space",
    "P": "park",
    "W": "water",
}
PIECES_PER_COLOUR: Final = 25


@dataclass(frozen=True)
class Tile:
    """A 2x2 tile as printed: ``rows[0]`` = top-left + top-right, ``rows[1]`` = bottom."""

    id: str
    start: bool
    rows: tuple[str, str]

    def layout(self, rotation: int) -> tuple[str, str]:
        """The two rows after turning the tile clockwise by ``rotation`` degrees.

        "Rotating 90° clockwise turns ``a b / c d`` into ``c a / d b``."
        """
        top, bottom = self.rows
        a, b, c, d = top[0], top[1], bottom[0], bottom[1]
        for _ in range((rotation // 90) % 4):
            a, b, c, d = c, a, d, b
        return a + b, c + d

    def label(self, rotation: int = 0) -> str:
        top, bottom = self.layout(rotation)
        return f"{top[0]} {top[1]} / {bottom[0]} {bottom[1]}"


@dataclass(frozen=True)
class Feature:
    id: str
    background: str  # "water" | "park" | "grey"
    kind: str  # Sailboat, ..., Monument, Wild
    art: str | None = None

    @property
    def is_monument(self) -> bool:
        return self.kind == "Monument"

    @property
    def is_wild(self) -> bool:
        return self.kind == "Wild"

    @property
    def is_grey(self) -> bool:
        return self.background == "grey"

    @property
    def space_code(self) -> str | None:
        """The space type a water or park feature needs (None: any empty city space)."""
        return {"water": "W", "park": "P"}.get(self.background)

    @property
    def name(self) -> str:
        return self.art if self.art and self.is_monument else self.kind

    @property
    def label(self) -> str:
        if self.is_monument:
            return f"Monument ({self.art})" if self.art else "Monument"
        if self.is_wild:
            return "Wild tile"
        return self.kind


@dataclass(frozen=True)
class ScoringCard:
    id: str
    name: str
    vp: int
    type: str
    params: MappingProxyType[str, Any]
    text: str
    counting: str


@dataclass(frozen=True)
class Achievement:
    id: str
    name: str
    display_name: str
    rings: tuple[int, int, int]
    type: str
    params: MappingProxyType[str, Any]
    text: str
    tier: str

    def ring_values(self, players: int) -> tuple[int, ...]:
        """The ring spaces in use: "In 2-player games the middle space ... is not used"."""
        if players == 2:
            return (self.rings[0], self.rings[2])
        return self.rings


@dataclass(frozen=True)
class City:
    code: str
    name: str
    board_side: str
    achievements: tuple[Achievement, ...]


@dataclass(frozen=True)
class Content:
    tiles: dict[str, Tile]
    features: dict[str, Feature]
    cards: dict[str, ScoringCard]
    cities: dict[str, City]
    area_vp: tuple[int, ...]
    monument_vp: int
    card_hints: dict[str, float]

    @property
    def starting_tiles(self) -> list[str]:
        return [t.id for t in self.tiles.values() if t.start]

    @property
    def city_tiles(self) -> list[str]:
        return [t.id for t in self.tiles.values() if not t.start]

    def city(self, name_or_code: str) -> City | None:
        """A city by its name or three-letter code, case and spacing ignored."""
        wanted = " ".join(name_or_code.split()).casefold()
        for city in self.cities.values():
            if wanted in (city.name.casefold(), city.code.casefold()):
                return city
        return None

    def achievement(self, achievement_id: str) -> Achievement:
        for city in self.cities.values():
            for achievement in city.achievements:
                if achievement.id == achievement_id:
                    return achievement
        raise KeyError(achievement_id)


def read_raw(directory: Path = DATA_DIR) -> dict[str, Any]:
    """The files combined into one object keyed by file name (what schema.json describes)."""
    return {
        name: json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
        for name in CONTENT_FILES
    }


def load(directory: Path = DATA_DIR) -> Content:
    raw = read_raw(directory)
    tiles = {t["id"]: Tile(t["id"], bool(t["start"]), (t["rows"][0], t["rows"][1])) for t in raw["tiles"]}
    features = {
        f["id"]: Feature(f["id"], f["background"], f["kind"], f.get("art")) for f in raw["features"]
    }
    cards = {
        c["id"]: ScoringCard(
            c["id"], c["name"], int(c["vp"]), c["type"], MappingProxyType(dict(c["params"])),
            c["text"], c["counting"],
        )
        for c in raw["scoring_cards"]
    }
    cities: dict[str, City] = {}
    for c in raw["cities"]:
        achievements = tuple(
            Achievement(
                a["id"], a["name"], a.get("display_name", a["name"]),
                (int(a["rings"][0]), int(a["rings"][1]), int(a["rings"][2])),
                a["type"], MappingProxyType(dict(a["params"])), a["text"], a["tier"],
            )
            for a in c["achievements"]
        )
        cities[c["name"]] = City(c["code"], c["name"], c["board_side"], achievements)
    scoring = raw["scoring"]
    return Content(
        tiles=tiles,
        features=features,
        cards=cards,
        cities=cities,
        area_vp=tuple(int(v) for v in scoring["area_vp"]),
        monument_vp=int(scoring["monument_vp"]),
        card_hints={k: float(v) for k, v in scoring.get("ai_hint_card_mean_vp", {}).items()},
    )


CONTENT: Final = load()
