"""The Cities computer player's estimates of what is still to come: part-credit for what a
held scoring card may yet score (``card_hope``) and how far a neighbourhood is toward an
open achievement (``progress``), both read from a trial's ``Facts``.
"""

from __future__ import annotations

from . import scoring
from .content import COLOURS, Achievement, ScoringCard
from .neighbourhood import adjacent
from .valuation import PARTIAL, Facts


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
