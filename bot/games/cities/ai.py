"""The computer player: a greedy drafter that places everything where it scores most.

It values a neighbourhood by the score it would have if the game ended now (held scoring
cards, water and park areas, monuments, the open achievements it meets) plus a light,
fading estimate of what is still to come (half-built towers for held cards, room for more
feature kinds in an area, empty city spaces, progress toward open achievements). Each item
on the board is worth the value its best placement adds; a scoring card is worth what it
scores now plus its calibrated average (``ai_hint_card_mean_vp``) times the share of the
game still to play. It takes from the row where its favourite's lead over the runner-up,
plus 0.7 x the favourite's worth, is largest; then it places each thing where it gains
most and removes what gains nothing. It reads only the public table.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final, TypeVar

from bot.core.engine import JSON
from bot.core.rng import peek

from . import scoring
from .content import COLOURS, CONTENT, Achievement, ScoringCard
from .engine import (
    ROWS,
    STAR_SLOT,
    city_of,
    limit_of,
    slot_available,
    workers_left,
    workers_per_row,
)
from .neighbourhood import (
    CITY_CODES,
    ROTATIONS,
    Limit,
    Neighbourhood,
    Space,
    TilePos,
    adjacent,
)

if TYPE_CHECKING:
    from .engine import CitiesEngine

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


def choose_action(engine: CitiesEngine, state: JSON, player: str) -> JSON:
    """The move for ``player``, deterministic for a given state."""
    if state["phase"] == "start_tiles":
        tiles = state["start_tiles"]
        # The four starting tiles are of equal value (content design 1.1): pick any.
        pick = peek(state["seed"], "start tile", player).randrange(len(tiles))
        return {"type": "choose_start_tile", "tile": tiles[pick]}
    mind = Mind(state, player)
    pending = state["pending"]
    if pending is None:
        return mind.choose_take()
    if pending["row"] == "tiles":
        _, at, rotation = mind.best_tile(pending["items"][0], PLACE_SHORTLIST)
        return {"type": "place_tile", "at": [at[0], at[1]], "rotation": rotation}
    if pending["row"] == "features":
        feature_id, space = mind.next_feature(pending["items"])
        if space is None:
            return {"type": "discard_feature", "feature": feature_id}
        return {"type": "place_feature", "feature": feature_id, "space": [space[0], space[1]]}
    colour, spot = mind.next_piece(pending["items"])
    if spot is None:
        return {"type": "discard_piece", "color": colour}
    return {"type": "place_piece", "color": colour, "space": [spot[0], spot[1]]}


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
K = TypeVar("K")
V = TypeVar("V")


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


class Known:
    """What the Minds of one search have worked out for one neighbourhood seen with one
    outlook (the same cards, open achievements and game left): the same inputs give the
    same values, so the first Mind's are reused."""

    __slots__ = ("cards", "features", "first_pieces", "next_features", "next_pieces", "runs", "tiles",
                 "worth")

    def __init__(self) -> None:
        self.cards: dict[str, float] = {}
        self.tiles: dict[tuple[str, int | None], tuple[float, TilePos, int]] = {}
        self.features: dict[str, tuple[float, Space | None]] = {}
        self.first_pieces: dict[str, tuple[float, Space | None]] = {}
        self.runs: dict[str, list[float]] = {}
        self.next_features: dict[tuple[str, ...], tuple[str, Space | None]] = {}
        self.next_pieces: dict[tuple[str, ...], tuple[str, Space | None]] = {}
        self.worth: list[float] = []


MEMO_LIMIT: Final = 20_000
"""Neighbourhoods, outlooks and pairs of both a memo keeps at most; beyond, it starts that
table afresh (the values are worked out again, the same). A 4-player hard search meets a
few hundred pairs."""

Outlook = tuple[float, tuple[str, ...], tuple[tuple[str, int], ...]]


class Memo:
    """Valuations shared by the Minds of one decision (a hard search values the same
    neighbourhoods over and over: its play-outs start from the same table). Keyed by all
    a value depends on: the neighbourhood's JSON, in order (dict order decides ties and the
    order of sums), the size limit, and the outlook."""

    __slots__ = ("hoods", "known", "outlooks")

    def __init__(self) -> None:
        self.hoods: dict[bytes, Neighbourhood] = {}
        self.outlooks: dict[Outlook, dict[str, list[Term]]] = {}
        self.known: dict[tuple[bytes, Limit, Outlook], Known] = {}

    def hood(self, key: bytes, data: JSON) -> Neighbourhood:
        """A fresh working copy of the neighbourhood, parsed once. Its areas are found
        before the copy so that every copy shares them; a Mind finds them before any trial
        tile anyway, so the areas it grows from are the same."""
        def parsed() -> Neighbourhood:
            hood = Neighbourhood.from_state(data)
            hood.areas("W")
            return hood

        return _kept(self.hoods, key, parsed).copy()

    def terms_for(self, outlook: Outlook, make: Callable[[], dict[str, list[Term]]]) -> dict[str, list[Term]]:
        return _kept(self.outlooks, outlook, make)

    def known_for(self, key: tuple[bytes, Limit, Outlook]) -> Known:
        return _kept(self.known, key, Known)


def _kept(table: dict[K, V], key: K, make: Callable[[], V]) -> V:
    """``table[key]``, made and kept the first time; a full table starts afresh."""
    found = table.get(key)
    if found is None:
        if len(table) >= MEMO_LIMIT:
            table.clear()
        found = table[key] = make()
    return found


# Per thread and task: the bot decides in a pool of threads.
_MEMO: ContextVar[Memo | None] = ContextVar("cities_memo", default=None)


@contextmanager
def memo() -> Iterator[None]:
    """Share valuations among every Mind made inside (one decision: nothing outlives it,
    so a long-running bot does not grow)."""
    token = _MEMO.set(_MEMO.get() or Memo())
    try:
        yield
    finally:
        _MEMO.reset(token)


def _recall(table: dict[K, V] | None, key: K, work: Callable[[], V]) -> V:
    """``work()``, looked up in ``table`` first (and kept there) when there is one."""
    if table is None:
        return work()
    found = table.get(key)
    if found is None:
        found = table[key] = work()
    return found


class Mind:
    """One decision's worth of valuation for one player."""

    def __init__(self, state: JSON, player: str) -> None:
        self.state = state
        self.player = player
        self.limit: Limit = limit_of(state)
        held: list[str] = state["cards_held"][player]
        self.cards: list[ScoringCard] = [CONTENT.cards[c] for c in held]
        n = len(state["players"])
        self.open: list[tuple[Achievement, int]] = []
        for achievement in city_of(state).achievements:
            rings = state["rings"][achievement.id]
            if player not in rings and None in rings:
                self.open.append((achievement, achievement.ring_values(n)[rings.index(None)]))
        per_round = len(ROWS) * workers_per_row(state)
        total = state["rounds"] * per_round
        rows = state["rows"]
        used = (state["round"] - 1) * per_round + sum(
            1 for row in ROWS for slot in rows[row] if slot["taken_by"] == player
        )
        self.left = max(0.0, 1.0 - used / total)
        self.last_round = state["round"] >= state["rounds"]
        self._edges: list[tuple[TilePos, list[list[tuple[str, str | None]]]]] | None = None
        self._base: dict[str, float] = {}
        self.scenic = any(card.type == "features_adjacent" for card in self.cards)
        data = state["neighbourhoods"][player]
        shared = _MEMO.get()
        self.known: Known | None = None
        if shared is None:
            self.hood = Neighbourhood.from_state(data)
            self.terms = self._make_terms()
            return
        outlook: Outlook = (self.left, tuple(held), tuple((a.id, vp) for a, vp in self.open))
        # Version 2: no back-references, so equal JSON gives equal bytes.
        key = marshal.dumps(data, 2)
        self.hood = shared.hood(key, data)
        # The terms read only the outlook (never the state or the neighbourhood they were
        # made with), so a Mind with the same outlook may use the first one's.
        self.terms = shared.terms_for(outlook, self._make_terms)
        self.known = shared.known_for((key, self.limit, outlook))

    def _make_terms(self) -> dict[str, list[Term]]:
        self.terms = {kind: [] for kind in ALL_CHANGES}
        self._add_term(EMPTY_SPACES, self.space_hope)
        self._add_term(frozenset({WATER_PARK, TILE}), self.area_value)
        self._add_term(frozenset({GREY}), lambda facts: scoring.monument_total(facts.hood))
        for card in self.cards:
            self._add_term(card_changes(card), self.card_term(card))
        for achievement, vp in self.open:
            self._add_term(ACHIEVEMENT_CHANGES[achievement.type], self.achievement_term(achievement, vp))
        return self.terms

    def _add_term(self, changes: frozenset[str], term: Term) -> None:
        for kind in changes:
            self.terms[kind].append(term)

    def card_term(self, card: ScoringCard) -> Term:
        left = self.left
        p = card.params
        if card.type in ("buildings", "buildings_adjacent") and p.get("adjacent_to") in (None, "water", "park"):
            return self._building_card_term(card)
        if card.type == "buildings_adjacent" and p["adjacent_to"] == "same_colour_building":
            return self._quarter_term(card)

        def term(facts: Facts) -> float:
            hope = left * card_hope(facts, card) if left else 0.0
            return scoring.card_points(facts.hood, card) + hope

        return term

    def _building_card_term(self, card: ScoringCard) -> Term:
        """Score and promise of a tower, waterfront or parkside card in one pass (the same
        count as ``scoring.card_points``, plus ``card_hope``'s part-credit)."""
        left, vp, p = self.left, card.vp, card.params
        wanted, low, high = p["colour"], p["min_height"], p["max_height"]
        code = {"water": "W", "park": "P"}.get(p.get("adjacent_to") or "")
        storeys_short = [vp * PARTIAL ** (low - h) for h in range(low)]
        empty_worth = vp * PARTIAL ** low

        def term(facts: Facts) -> float:
            hood = facts.hood
            touches = hood.touches
            count, hope = 0, 0.0
            for space, (colour, h) in hood.buildings.items():
                if wanted != "any" and colour != wanted:
                    continue
                if code is not None and not touches(space, code):
                    continue
                if h < low:
                    hope += storeys_short[h]
                elif h <= high:
                    count += 1
            if left:
                for space, k in facts.empties:
                    if (wanted == "any" or k == wanted or k == "*") and (code is None or touches(space, code)):
                        hope += empty_worth
            return vp * count + left * hope

        return term

    def _quarter_term(self, card: ScoringCard) -> Term:
        """A Quarter card's score (as ``scoring.card_points``) and promise in one pass."""
        left, vp, p = self.left, card.vp, card.params
        wanted, low, high = p["colour"], p["min_height"], p["max_height"]

        def term(facts: Facts) -> float:
            buildings = facts.hood.buildings
            count, hope = 0, 0.0
            room: set[Space] | None = None
            for space, (colour, h) in buildings.items():
                if colour != wanted or not low <= h <= high:
                    continue
                around = adjacent(space)
                if any((b := buildings.get(n)) is not None and b[0] == colour for n in around):
                    count += 1
                elif left:
                    if room is None:
                        room = facts.empty_for(wanted)
                    if any(n in room for n in around):
                        hope += 0.45 * vp
            return vp * count + left * hope

        return term

    def achievement_term(self, achievement: Achievement, vp: int) -> Term:
        hope = self.left * ACHIEVEMENT_HOPE * vp

        def term(facts: Facts) -> float:
            if scoring.achieved(facts.hood, achievement):
                return float(vp)
            return hope * progress(facts, achievement) ** 2 if hope else 0.0

        return term

    # ------------------------------------------------------------- valuation ---

    def value(self, hood: Neighbourhood, change: str, empties: list[tuple[Space, str]] | None = None) -> float:
        """The neighbourhood's worth, counting only what a ``change`` can alter (``empties``:
        its empty city spaces, when already known)."""
        facts = Facts(hood, empties)
        return sum(term(facts) for term in self.terms[change])

    def worth(self) -> float:
        """Every term of the valuation once: the neighbourhood's whole worth."""
        if self.known is not None and self.known.worth:
            return self.known.worth[0]
        facts = Facts(self.hood)
        terms = {id(term): term for kind in self.terms.values() for term in kind}
        found = sum(term(facts) for term in terms.values())
        if self.known is not None:
            self.known.worth.append(found)
        return found

    def space_hope(self, facts: Facts) -> float:
        """Room for pieces to come: empty city spaces and buildings, fading over the game."""
        if not self.left:
            return 0.0
        value = EMPTY_SPACE * len(facts.empties)
        for _, h in facts.hood.buildings.values():
            value += BUILDING + STOREY * (h - 1)
        return self.left * value

    def area_value(self, facts: Facts) -> float:
        """Water and park areas: their sets now, and room for more feature kinds."""
        hood = facts.hood
        vp = CONTENT.area_vp
        top = len(vp) - 1
        features = hood.features
        value = 0.0
        for code in ("W", "P"):
            for area in hood.areas(code):
                found = {features[s].kind for s in area if s in features}
                step = min(len(found), top)
                value += vp[step]
                if self.left:
                    free = len(area) - sum(1 for s in area if s in features)
                    weight = self.left * AREA_HOPE
                    while free > 0 and step < top:
                        value += weight * (vp[step + 1] - vp[step])
                        step, free, weight = step + 1, free - 1, weight * 0.5
        return value

    # ------------------------------------------------------------- placement ---

    def tile_edges(self) -> list[tuple[TilePos, list[list[tuple[str, str | None]]]]]:
        """For each legal spot, what lies next to each of its four spaces (kind, building
        colour), in the order top-left, top-right, bottom-left, bottom-right."""
        if self._edges is None:
            hood = self.hood
            kinds, buildings = hood.kinds, hood.buildings
            self._edges = []
            for at in hood.tile_spots(self.limit):
                r, c = 2 * at[0], 2 * at[1]
                corners = []
                for space in ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)):
                    outside = []
                    for n in adjacent(space):
                        kind = kinds.get(n)
                        if kind is not None:
                            building = buildings.get(n)
                            outside.append((kind, building[0] if building else None))
                    corners.append(outside)
                self._edges.append((at, corners))
        return self._edges

    def tile_shortlist(self, tile_id: str, keep: int | None) -> list[tuple[float, TilePos, int]]:
        """Every legal (spot, rotation), best first by a quick look at the new edges (joining
        water to water, park to park, a colour to its colour, water or park to buildings);
        the ``keep`` most promising (all when None) are then valued in full."""
        layouts = _layouts(tile_id)
        found = []
        for at, corners in self.tile_edges():
            for rotation, codes in layouts:
                quick = 0.0
                for code, outside in zip(codes, corners, strict=True):
                    for kind, colour in outside:
                        if code == kind:
                            quick += 1.0 if code in "WP" else 0.4
                        if colour is not None and (code in "WP" or code == colour):
                            quick += 0.6
                found.append((quick, at, rotation))
        found.sort(key=lambda f: -f[0])
        return found if keep is None else found[:keep]

    def base(self, change: str) -> float:
        """``value(self.hood, change)``, worked out once per decision."""
        found = self._base.get(change)
        if found is None:
            found = self._base[change] = self.value(self.hood, change)
        return found

    def best_tile(self, tile_id: str, keep: int | None = None) -> tuple[float, TilePos, int]:
        tiles = None if self.known is None else self.known.tiles
        return _recall(tiles, (tile_id, keep), lambda: self._best_tile(tile_id, keep))

    def _best_tile(self, tile_id: str, keep: int | None) -> tuple[float, TilePos, int]:
        hood = self.hood
        base = self.base(TILE)
        best: tuple[float, TilePos, int] | None = None
        for _, at, rotation in self.tile_shortlist(tile_id, keep):
            hood.place_tile(tile_id, at, rotation)
            gain = self.value(hood, TILE) - base
            hood.remove_tile(at)
            if best is None or gain > best[0]:
                best = (gain, at, rotation)
        assert best is not None, "a city tile always has a legal place (D2)"
        return best

    def best_feature_spot(
        self, hood: Neighbourhood, feature_id: str, bases: dict[str, float]
    ) -> tuple[float, Space | None]:
        """The best free space for a feature and what it gains there; ``bases`` caches the
        neighbourhood's value before the trials."""
        feature = CONTENT.features[feature_id]
        change = GREY if feature.is_grey else WATER_PARK
        base = bases.get(change)
        if base is None:
            base = bases[change] = self.value(hood, change)
        best: tuple[float, Space | None] = (0.0, None)
        spaces = hood.feature_spaces(feature)
        if not feature.is_grey and not self.scenic:
            # A water or park feature is worth the same on any free space of its area
            # unless a held card looks at its neighbours (Scenic Views): try one per area.
            free = set(spaces)
            spaces = [
                next(s for s in area if s in free)
                for area in hood.areas(feature.space_code or "")
                if not free.isdisjoint(area)
            ]
        for space in spaces:
            hood.place_feature(feature, space)
            gain = self.value(hood, change) - base
            hood.remove_feature(space)
            if (best[1] is None and gain >= -0.05) or gain > best[0]:
                best = (gain, space)
        return best

    def plan_features(
        self, feature_ids: list[str], steps: int = 99
    ) -> tuple[float, list[tuple[str, Space | None]]]:
        """Greedy: place the feature that gains most, then the next; remove the useless."""
        hood = self.hood.copy()
        remaining = list(feature_ids)
        total, plan = 0.0, list[tuple[str, Space | None]]()
        while remaining and len(plan) < steps:
            if plan:
                bases: dict[str, float] = {}
                options = [(self.best_feature_spot(hood, f, bases), f) for f in remaining]
            else:  # the neighbourhood as it is: the spots slot_worths may have found
                options = [(self.feature_spot(f), f) for f in remaining]
            # A feature with a useful spot first; the best gain among those.
            (gain, space), feature_id = max(options, key=lambda o: (o[0][1] is not None, o[0][0]))
            remaining.remove(feature_id)
            plan.append((feature_id, space))
            if space is not None:
                hood.place_feature(CONTENT.features[feature_id], space)
                total += gain
        return total, plan

    def next_feature(self, feature_ids: list[str]) -> tuple[str, Space | None]:
        plans = None if self.known is None else self.known.next_features
        return _recall(plans, tuple(feature_ids), lambda: self.plan_features(feature_ids, steps=1)[1][0])

    def feature_spot(self, feature_id: str) -> tuple[float, Space | None]:
        """``best_feature_spot`` in the neighbourhood as it is."""
        spots = None if self.known is None else self.known.features
        return _recall(spots, feature_id, lambda: self.best_feature_spot(self.hood, feature_id, self._base))

    def piece_gains(self, hood: Neighbourhood, colour: str, base: float) -> tuple[float, Space | None]:
        best: tuple[float, Space | None] = (0.0, None)
        # A piece fills at most the one space it goes on: the others stay as they were.
        empties = Facts(hood).empties
        for space in hood.piece_spaces(colour):
            before = hood.place_piece(colour, space)
            left = empties if before is not None else [e for e in empties if e[0] != space]
            gain = self.value(hood, PIECE, left) - base
            hood.undo_piece(space, before)
            if (best[1] is None and gain >= -0.05) or gain > best[0]:
                best = (gain, space)
        return best

    def plan_pieces(
        self, colours: list[str], steps: int = 99
    ) -> tuple[float, list[tuple[str, Space | None]]]:
        """Greedy: place the piece that gains most, then the next; remove the useless."""
        hood = self.hood.copy()
        remaining = list(colours)
        total, plan = 0.0, list[tuple[str, Space | None]]()
        while remaining and len(plan) < steps:
            if plan:
                base = self.value(hood, PIECE)
                options = [(self.piece_gains(hood, c, base), c) for c in dict.fromkeys(remaining)]
            else:  # the neighbourhood as it is: a colour's first piece, as colour_runs has it
                options = [(self.first_piece(c), c) for c in dict.fromkeys(remaining)]
            placeable = [o for o in options if o[0][1] is not None]
            if not placeable:
                plan.extend((c, None) for c in remaining)
                break
            (gain, space), colour = max(placeable, key=lambda o: o[0][0])
            assert space is not None
            remaining.remove(colour)
            plan.append((colour, space))
            hood.place_piece(colour, space)
            total += gain
        return total, plan

    def next_piece(self, colours: list[str]) -> tuple[str, Space | None]:
        plans = None if self.known is None else self.known.next_pieces
        return _recall(plans, tuple(colours), lambda: self.plan_pieces(colours, steps=1)[1][0])

    def first_piece(self, colour: str) -> tuple[float, Space | None]:
        """``piece_gains`` of a piece of ``colour`` in the neighbourhood as it is."""
        firsts = None if self.known is None else self.known.first_pieces
        return _recall(firsts, colour, lambda: self.piece_gains(self.hood, colour, self.base(PIECE)))

    def colour_runs(self, counts: dict[str, int]) -> dict[str, list[float]]:
        """For each colour, the gains of placing 1, 2, ... pieces of it one after another."""
        return {colour: self.colour_run(colour, n) for colour, n in counts.items()}

    def colour_run(self, colour: str, n: int) -> list[float]:
        if self.known is None:
            return self._colour_run(colour, n)
        # A run is greedy, piece after piece: a shorter one is the start of a longer one.
        runs = self.known.runs
        found = runs.get(colour)
        if found is None or len(found) < n:
            found = runs[colour] = self._colour_run(colour, n)
        return found[:n]

    def _colour_run(self, colour: str, n: int) -> list[float]:
        hood = self.hood.copy()
        gains: list[float] = []
        for i in range(n):
            if i == 0:
                gain, space = self.first_piece(colour)
            else:
                gain, space = self.piece_gains(hood, colour, self.value(hood, PIECE))
            if space is None:
                break
            hood.place_piece(colour, space)
            gains.append(gain)
        return gains + [0.0] * (n - len(gains))

    # --------------------------------------------------------------- drafting ---

    def card_worth(self, card_id: str) -> float:
        worths = None if self.known is None else self.known.cards
        return _recall(worths, card_id, lambda: self._card_worth(card_id))

    def _card_worth(self, card_id: str) -> float:
        card = CONTENT.cards[card_id]
        now = scoring.card_points(self.hood, card)
        hope = card_hope(Facts(self.hood), card)
        return now + self.left * (hope + CONTENT.card_hints.get(card_id, MEAN_HINT))

    def slot_worths(self, row: str) -> list[tuple[float, int]]:
        state = self.state
        slots = [s for s in state["rows"][row] if slot_available(state, row, s)]
        worths: list[tuple[float, int]] = []
        if row == "cards":
            for slot in slots:
                if slot["hidden"][0]:
                    worths.append((self.left * MEAN_HINT + 0.5, slot["slot"]))
                else:
                    worths.append((self.card_worth(slot["items"][0]), slot["slot"]))
        elif row == "tiles":
            shown = [
                (self.best_tile(s["items"][0], SHORTLIST)[0], s["slot"]) for s in slots if not s["hidden"][0]
            ]
            worths.extend(shown)
            guess = sum(w for w, _ in shown) / len(shown) - 0.3 if shown else 1.0
            worths.extend((guess, s["slot"]) for s in slots if s["hidden"][0])
        elif row == "features":
            # Tiles of one kind are interchangeable: value each kind once.
            alone: dict[str, float] = {}
            for slot in slots:
                worth = 0.0
                for feature_id, hidden in zip(slot["items"], slot["hidden"], strict=True):
                    if hidden:
                        worth += 0.6 + 0.6 * self.left
                        continue
                    kind = CONTENT.features[feature_id].kind
                    if kind not in alone:
                        alone[kind] = self.feature_spot(feature_id)[0]
                    worth += alone[kind]
                worths.append((worth, slot["slot"]))
        else:
            counts: dict[str, int] = {}
            for slot in slots:
                for colour in COLOURS:
                    counts[colour] = max(counts.get(colour, 0), slot["items"].count(colour))
            for colour in COLOURS:
                counts[colour] = max(counts.get(colour, 0), 1)
            runs = self.colour_runs(counts)
            bag = state["bag"]
            for slot in slots:
                if slot.get("star"):
                    if bag:
                        single = sum(runs[c][0] * bag.count(c) for c in COLOURS) / len(bag)
                    else:
                        single = 0.0
                    bonus = 0.0 if self.last_round else STAR_BONUS
                    worths.append((2 * single + bonus, STAR_SLOT))
                    continue
                worth = 0.0
                for colour in COLOURS:
                    worth += sum(runs[colour][: slot["items"].count(colour)])
                worths.append((worth, slot["slot"]))
        return worths

    def choose_take(self) -> JSON:
        best: tuple[float, str, int] | None = None
        for row in ROWS:
            if workers_left(self.state, self.player, row) <= 0:
                continue
            worths = sorted(self.slot_worths(row), key=lambda w: (-w[0], w[1]))
            if not worths:
                continue
            top = worths[0][0]
            runner_up = worths[1][0] if len(worths) > 1 else top
            priority = LEAD_WEIGHT * (top - runner_up) + BEST_WEIGHT * top
            if best is None or priority > best[0]:
                best = (priority, row, worths[0][1])
        assert best is not None, "a player with workers always has something to take"
        return {"type": "take", "row": best[1], "slot": best[2]}


# ------------------------------------------------------------------ estimates ---


_LAYOUTS: dict[str, list[tuple[int, str]]] = {}


def _layouts(tile_id: str) -> list[tuple[int, str]]:
    """Each rotation of a tile with its four codes in reading order (a table as small as
    the content: one entry per tile)."""
    found = _LAYOUTS.get(tile_id)
    if found is None:
        tile = CONTENT.tiles[tile_id]
        found = _LAYOUTS[tile_id] = [(r, "".join(tile.layout(r))) for r in ROTATIONS]
    return found


def _colour_ok(wanted: str, colour: str) -> bool:
    return wanted == "any" or wanted == colour


def card_hope(facts: Facts, card: ScoringCard) -> float:
    """Part-credit for what a held card may still score (before the fade by game left)."""
    hood = facts.hood
    p, vp, kind = card.params, card.vp, card.type
    buildings, kinds = hood.buildings, hood.kinds
    value = 0.0
    if kind in ("buildings", "buildings_adjacent"):
        target = p.get("adjacent_to")
        wanted, low = p["colour"], p["min_height"]
        if target == "same_colour_building":
            near_empty = {s for s, k in facts.empties if k == wanted or k == "*"}
            if not near_empty:
                return 0.0
            for space, (colour, _) in buildings.items():
                if colour != wanted:
                    continue
                around = adjacent(space)
                if any((b := buildings.get(n)) is not None and b[0] == colour for n in around):
                    continue
                if any(n in near_empty for n in around):
                    value += 0.45 * vp
            return value
        if target == "monument":
            return 0.0
        code = {"water": "W", "park": "P"}.get(target or "")
        for space, (colour, h) in buildings.items():
            if h < low and wanted in ("any", colour) and (code is None or hood.touches(space, code)):
                value += vp * PARTIAL ** (low - h)
        empty_worth = vp * PARTIAL ** low
        for space, printed in facts.empties:
            fitting = wanted in ("any", printed) or printed == "*"
            if fitting and (code is None or hood.touches(space, code)):
                value += empty_worth
        return value
    if kind == "colour_sets":
        counts = dict.fromkeys(COLOURS, 0.0)
        for colour, h in buildings.values():
            counts[colour] += 1.0 if h >= p["min_height"] else 0.4
        sets = min(counts.values())
        return 0.25 * vp * sum(min(1.0, c - sets) for c in counts.values() if c > sets)
    if kind == "runs":
        return 0.35 * vp * sum(1 for n in scoring._runs(hood) if n == p["min_length"] - 1)
    if kind == "areas":
        code = "W" if p["area"] == "water" else "P"
        return sum(
            vp * (0.4 if len(a) == p["min_size"] - 1 else 0.1)
            for a in hood.areas(code) if len(a) < p["min_size"]
        )
    if kind == "features_adjacent":
        low = p["min_height"]
        for space, (_, h) in buildings.items():
            if h < low - 1:
                continue
            for n in adjacent(space):
                if kinds.get(n) in ("W", "P"):
                    has_feature = n in hood.features
                    if (h >= low and not has_feature) or (h == low - 1 and has_feature):
                        value += 0.4 * vp
        return value
    if kind == "twin_pairs":
        low = p["min_height"] - 1
        for (r, c), (_, h) in buildings.items():
            for n in ((r + 1, c), (r, c + 1)):
                other = buildings.get(n)
                if other is not None and abs(other[1] - h) == 1 and max(h, other[1]) >= low:
                    value += 0.3 * vp
        return value
    if kind == "dense_buildings":
        low, needed = p["min_height"], p["min_neighbours"]
        for space, (_, h) in buildings.items():
            neighbours = sum(1 for n in adjacent(space) if n in buildings)
            if h < low and neighbours >= needed:
                value += vp * PARTIAL ** (low - h)
            elif h >= low and neighbours == needed - 1:
                value += 0.3 * vp
        return value
    if kind == "stepped_buildings":
        for space, (_, h) in buildings.items():
            heights = {b[1] for n in adjacent(space) if (b := buildings.get(n)) is not None}
            if (h - 1 in heights) != (h + 1 in heights):
                value += 0.15 * vp
        return value
    if kind == "mixed_neighbours":
        empty = {s for s, _ in facts.empties}
        for space, (colour, _) in buildings.items():
            around = adjacent(space)
            others = {b[0] for n in around if (b := buildings.get(n)) is not None} - {colour}
            if len(others) == p["min_other_colours"] - 1 and any(n in empty for n in around):
                value += 0.3 * vp
        return value
    return 0.0


def progress(facts: Facts, achievement: Achievement) -> float:
    """How far toward an achievement, 0..1 (only where a measure is obvious)."""
    hood = facts.hood
    p, kind = achievement.params, achievement.type
    if kind == "line":
        longest = max(scoring._runs(hood, p["min_height"]), default=0)
        return min(1.0, longest / p["length"])
    if kind in ("area_size", "area_features", "area_size_features"):
        code = "W" if p["area"] == "water" else "P"
        best = 0.0
        for area in hood.areas(code):
            parts = []
            if "size" in p:
                parts.append(min(1.0, len(area) / p["size"]))
            if "distinct" in p:
                parts.append(min(1.0, len(hood.area_kinds(area)) / p["distinct"]))
            best = max(best, sum(parts) / len(parts))
        return best
    if kind in ("count_buildings", "count_buildings_adjacent"):
        beside = {"water": "W", "park": "P"}.get(p.get("adjacent_to") or "")
        done = 0.0
        for space, (colour, h) in hood.buildings.items():
            if not _colour_ok(p["colour"], colour):
                continue
            if beside is not None and not hood.touches(space, beside):
                continue
            done += min(1.0, h / p["min_height"])
        return min(1.0, done / p["count"])
    if kind == "all_colours":
        tops = dict.fromkeys(COLOURS, 0)
        for colour, h in hood.buildings.values():
            tops[colour] = max(tops[colour], h)
        return sum(min(1.0, t / p["min_height"]) for t in tops.values()) / 4
    if kind == "monument_adjacent":
        code = "W" if p["target"] == "water" else "P"
        best = 0.0
        kinds = hood.kinds
        for space in hood.monuments():
            near = sum(1 for n in adjacent(space) if kinds.get(n) == code)
            best = max(best, min(1.0, near / p["count"]))
        for space, _ in facts.empties:
            near = sum(1 for n in adjacent(space) if kinds.get(n) == code)
            best = max(best, 0.5 * min(1.0, near / p["count"]))
        return best
    if kind == "monument_buildings":
        best = 0.0
        for space in hood.monuments():
            near = sum(min(1.0, b[1] / p["min_height"]) for n in adjacent(space) if (b := hood.buildings.get(n)))
            best = max(best, min(1.0, near / p["count"]))
        return best
    return 0.0
