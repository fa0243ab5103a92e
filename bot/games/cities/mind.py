"""The Cities computer player's ``Mind``: one decision's worth of valuation for one
player. It values a neighbourhood by its valuation terms (``valuation.py``), finds the
best place for a tile, features and pieces by trying them, and judges every slot of the
four rows for the take.
"""

from __future__ import annotations

import marshal

from bot.core.engine import JSON

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
from .estimates import card_hope, progress
from .memo import _MEMO, Known, Outlook, _recall
from .neighbourhood import ROTATIONS, Limit, Neighbourhood, Space, TilePos, adjacent
from .valuation import (
    ACHIEVEMENT_CHANGES,
    ACHIEVEMENT_HOPE,
    ALL_CHANGES,
    AREA_HOPE,
    BEST_WEIGHT,
    BUILDING,
    EMPTY_SPACE,
    EMPTY_SPACES,
    GREY,
    LEAD_WEIGHT,
    MEAN_HINT,
    PARTIAL,
    PIECE,
    SHORTLIST,
    STAR_BONUS,
    STOREY,
    TILE,
    WATER_PARK,
    Facts,
    Term,
    card_changes,
)

_LAYOUTS: dict[str, list[tuple[int, str]]] = {}


def _layouts(tile_id: str) -> list[tuple[int, str]]:
    """Each rotation of a tile with its four codes in reading order (a table as small as
    the content: one entry per tile)."""
    found = _LAYOUTS.get(tile_id)
    if found is None:
        tile = CONTENT.tiles[tile_id]
        found = _LAYOUTS[tile_id] = [(r, "".join(tile.layout(r))) for r in ROTATIONS]
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

