"""End scoring: areas, monuments, scoring cards, achievements, breakdowns and winners.

General counting rules of the scoring cards (content design, section 3):
1. Each card scores "VP x number of occurrences" on the final neighbourhood, no cap.
2. Cards are independent: one building may be an occurrence for several cards.
3. Only spaces with pieces are buildings; empty, unbuilt wild and monument spaces never are.
4. "Height N or more" includes N; all adjacency is orthogonal, across tile edges.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from .content import COLOURS, CONTENT, Achievement, ScoringCard
from .neighbourhood import Neighbourhood, Space, adjacent

Params = Mapping[str, Any]


def _colour_ok(wanted: str, colour: str) -> bool:
    return wanted == "any" or wanted == colour


def _touches(hood: Neighbourhood, space: Space, target: str, colour: str) -> bool:
    """Whether ``space`` has an orthogonal neighbour of the target kind."""
    if target == "water":
        return hood.touches(space, "W")
    if target == "park":
        return hood.touches(space, "P")
    if target == "monument":
        features = hood.features
        return any((f := features.get(n)) is not None and f.is_monument for n in adjacent(space))
    if target == "same_colour_building":
        buildings = hood.buildings
        return any((b := buildings.get(n)) is not None and b[0] == colour for n in adjacent(space))
    raise ValueError(f"unknown adjacency target {target!r}")


def _runs(hood: Neighbourhood, min_height: int = 1) -> list[int]:
    """Lengths of every maximal horizontal and vertical run of buildings (height >= min)."""
    if min_height <= 1:
        tall: Collection[Space] = hood.buildings.keys()
    else:
        tall = {s for s, (_, h) in hood.buildings.items() if h >= min_height}
    lengths = []
    for r, c in tall:
        if (r, c - 1) not in tall:
            n = 1
            while (r, c + n) in tall:
                n += 1
            lengths.append(n)
        if (r - 1, c) not in tall:
            n = 1
            while (r + n, c) in tall:
                n += 1
            lengths.append(n)
    return lengths


def _building_neighbours(hood: Neighbourhood, space: Space) -> list[tuple[str, int]]:
    buildings = hood.buildings
    return [b for n in adjacent(space) if (b := buildings.get(n)) is not None]


def _is_stepped(hood: Neighbourhood, space: Space, height: int) -> bool:
    """"At least one orthogonally adjacent building exactly 1 storey lower AND at least one
    exactly 1 storey higher (colours irrelevant; the three need not be in a straight line)"."""
    heights = {h for _, h in _building_neighbours(hood, space)}
    return height - 1 in heights and height + 1 in heights


# --------------------------------------------------------------- scoring cards ---


def _buildings(hood: Neighbourhood, p: Params) -> int:
    wanted, low, high = p["colour"], p["min_height"], p["max_height"]
    return sum(
        1 for colour, h in hood.buildings.values()
        if low <= h <= high and (wanted == "any" or wanted == colour)
    )


def _buildings_adjacent(hood: Neighbourhood, p: Params) -> int:
    wanted, low, high, target = p["colour"], p["min_height"], p["max_height"], p["adjacent_to"]
    return sum(
        1 for s, (colour, h) in hood.buildings.items()
        if low <= h <= high and (wanted == "any" or wanted == colour)
        and _touches(hood, s, target, colour)
    )


def _colour_sets(hood: Neighbourhood, p: Params) -> int:
    """"Number of sets = the smallest of the four counts"."""
    counts = dict.fromkeys(COLOURS, 0)
    low = p["min_height"]
    for colour, h in hood.buildings.values():
        if h >= low:
            counts[colour] += 1
    return min(counts.values())


def _run_count(hood: Neighbourhood, p: Params) -> int:
    """"Only maximal runs count: a run of 5 counts once"; rows and columns separately."""
    return sum(1 for n in _runs(hood) if n >= p["min_length"])


def _area_count(hood: Neighbourhood, p: Params) -> int:
    code = "W" if p["area"] == "water" else "P"
    return sum(1 for area in hood.areas(code) if len(area) >= p["min_size"])


def _features_adjacent(hood: Neighbourhood, p: Params) -> int:
    """Water and park feature tiles next to a building of the height; grey tiles never."""
    low = p["min_height"]
    return sum(
        1 for s, f in hood.features.items()
        if not f.is_grey and any(h >= low for _, h in _building_neighbours(hood, s))
    )


def _isolated(hood: Neighbourhood, p: Params) -> int:
    buildings = hood.buildings
    low, high = p["min_height"], p["max_height"]
    return sum(
        1 for s, (_, h) in buildings.items()
        if low <= h <= high and not any(n in buildings for n in adjacent(s))
    )


def _mixed(hood: Neighbourhood, p: Params) -> int:
    count, wanted = 0, p["min_other_colours"]
    for s, (colour, _) in hood.buildings.items():
        others = {c for c, _ in _building_neighbours(hood, s)}
        others.discard(colour)
        if len(others) >= wanted:
            count += 1
    return count


def _twins(hood: Neighbourhood, p: Params) -> int:
    """Unordered adjacent pairs: each pair is seen once, from its top or left building."""
    buildings = hood.buildings
    low = p["min_height"]
    count = 0
    for (r, c), (_, h) in buildings.items():
        if h < low:
            continue
        below, right = buildings.get((r + 1, c)), buildings.get((r, c + 1))
        if below is not None and below[1] == h:
            count += 1
        if right is not None and right[1] == h:
            count += 1
    return count


def _dense(hood: Neighbourhood, p: Params) -> int:
    buildings = hood.buildings
    low, around = p["min_height"], p["min_neighbours"]
    return sum(
        1 for s, (_, h) in buildings.items()
        if h >= low and sum(1 for n in adjacent(s) if n in buildings) >= around
    )


def _stepped(hood: Neighbourhood, p: Params) -> int:
    return sum(1 for s, (_, h) in hood.buildings.items() if _is_stepped(hood, s, h))


CARD_RULES: dict[str, Callable[[Neighbourhood, Params], int]] = {
    "buildings": _buildings,
    "buildings_adjacent": _buildings_adjacent,
    "colour_sets": _colour_sets,
    "runs": _run_count,
    "areas": _area_count,
    "features_adjacent": _features_adjacent,
    "isolated_buildings": _isolated,
    "mixed_neighbours": _mixed,
    "twin_pairs": _twins,
    "dense_buildings": _dense,
    "stepped_buildings": _stepped,
}


def occurrences(hood: Neighbourhood, card: ScoringCard) -> int:
    return CARD_RULES[card.type](hood, card.params)


def card_points(hood: Neighbourhood, card: ScoringCard) -> int:
    return card.vp * occurrences(hood, card)


# ---------------------------------------------------------------- achievements ---


def _line(hood: Neighbourhood, p: Params) -> bool:
    return any(n >= p["length"] for n in _runs(hood, p["min_height"]))


def _area_ok(hood: Neighbourhood, p: Params) -> bool:
    code = "W" if p["area"] == "water" else "P"
    size, distinct = p.get("size", 0), p.get("distinct", 0)
    return any(
        len(area) >= size and (distinct == 0 or len(hood.area_kinds(area)) >= distinct)
        for area in hood.areas(code)
    )


def _count_buildings(hood: Neighbourhood, p: Params) -> bool:
    found = sum(
        1 for colour, h in hood.buildings.values()
        if _colour_ok(p["colour"], colour) and h >= p["min_height"]
    )
    return found >= p["count"]


def _count_buildings_adjacent(hood: Neighbourhood, p: Params) -> bool:
    found = sum(
        1 for s, (colour, h) in hood.buildings.items()
        if _colour_ok(p["colour"], colour) and h >= p["min_height"]
        and _touches(hood, s, p["adjacent_to"], colour)
    )
    return found >= p["count"]


def _monument_adjacent(hood: Neighbourhood, p: Params) -> bool:
    code = "W" if p["target"] == "water" else "P"
    kinds = hood.kinds
    return any(
        sum(1 for n in adjacent(m) if kinds.get(n) == code) >= p["count"] for m in hood.monuments()
    )


def _monument_buildings(hood: Neighbourhood, p: Params) -> bool:
    return any(
        sum(1 for _, h in _building_neighbours(hood, m) if h >= p["min_height"]) >= p["count"]
        for m in hood.monuments()
    )


def _park_water_features(hood: Neighbourhood, p: Params) -> bool:
    """"One park area containing at least 2 different park feature kinds that is orthogonally
    adjacent (at least one of its spaces shares an edge with a space of the water area) to
    one water area containing at least 2 different water feature kinds"."""
    waters = [set(a) for a in hood.areas("W") if len(hood.area_kinds(a)) >= p["water_distinct"]]
    if not waters:
        return False
    for park in hood.areas("P"):
        if len(hood.area_kinds(park)) < p["park_distinct"]:
            continue
        touching = {n for s in park for n in adjacent(s)}
        if any(touching & water for water in waters):
            return True
    return False


def _block_2x2(hood: Neighbourhood, p: Params) -> bool:
    tall = {s for s, (_, h) in hood.buildings.items() if h >= p["min_height"]}
    return any(
        (r, c + 1) in tall and (r + 1, c) in tall and (r + 1, c + 1) in tall for r, c in tall
    )


def _all_colours(hood: Neighbourhood, p: Params) -> bool:
    return {colour for colour, h in hood.buildings.values() if h >= p["min_height"]} >= set(COLOURS)


def _group_all_colours(hood: Neighbourhood, p: Params) -> bool:
    """A 'building area': connected buildings only (empty spaces break it), all 4 colours."""
    todo = set(hood.buildings)
    while todo:
        stack = [todo.pop()]
        colours = set()
        while stack:
            s = stack.pop()
            colours.add(hood.buildings[s][0])
            for n in adjacent(s):
                if n in todo:
                    todo.discard(n)
                    stack.append(n)
        if len(colours) == 4:
            return True
    return False


def _stepped_building(hood: Neighbourhood, p: Params) -> bool:
    return any(_is_stepped(hood, s, h) for s, (_, h) in hood.buildings.items())


def _plaza(hood: Neighbourhood, p: Params) -> bool:
    """"One empty city space (no pieces, no feature; an unbuilt wild space counts)
    orthogonally adjacent to at least 3 buildings of height 2 or more"."""
    return any(
        hood.is_empty_city(s)
        and sum(1 for _, h in _building_neighbours(hood, s) if h >= p["min_height"]) >= p["min_buildings"]
        for s in hood.kinds
    )


ACHIEVEMENT_RULES: dict[str, Callable[[Neighbourhood, Params], bool]] = {
    "line": _line,
    "area_size": _area_ok,
    "area_features": _area_ok,
    "area_size_features": _area_ok,
    "count_buildings": _count_buildings,
    "count_buildings_adjacent": _count_buildings_adjacent,
    "monument_adjacent": _monument_adjacent,
    "monument_buildings": _monument_buildings,
    "park_water_features": _park_water_features,
    "block_2x2": _block_2x2,
    "all_colours": _all_colours,
    "group_all_colours": _group_all_colours,
    "stepped_building": _stepped_building,
    "plaza": _plaza,
}


def achieved(hood: Neighbourhood, achievement: Achievement) -> bool:
    return ACHIEVEMENT_RULES[achievement.type](hood, achievement.params)


# ------------------------------------------------------------ areas, monuments ---


def area_points(hood: Neighbourhood, code: str) -> list[dict[str, Any]]:
    """"For each area of orthogonally connected water spaces ... score 1/3/6/10 points for
    1/2/3/4 different feature tiles in that area. Each area may score only 1 set.\""""
    vp = CONTENT.area_vp
    result = []
    for area in hood.areas(code):
        kinds = hood.area_kinds(area)
        result.append({
            "spaces": [[r, c] for r, c in area],
            "kinds": sorted(kinds),
            "vp": vp[min(len(kinds), len(vp) - 1)],
        })
    return result


def area_total(hood: Neighbourhood, code: str) -> int:
    vp = CONTENT.area_vp
    top = len(vp) - 1
    return sum(vp[min(len(hood.area_kinds(a)), top)] for a in hood.areas(code))


def monument_total(hood: Neighbourhood) -> int:
    return CONTENT.monument_vp * len(hood.monuments())


# ------------------------------------------------------------------ breakdown ---


def breakdown(
    hood: Neighbourhood, cards: list[str], rings: list[tuple[str, int]]
) -> dict[str, Any]:
    """One player's score, part by part (``rings`` = claimed achievement id and its VP)."""
    water = area_points(hood, "W")
    park = area_points(hood, "P")
    card_rows: list[dict[str, Any]] = []
    for card_id in cards:
        card = CONTENT.cards[card_id]
        n = occurrences(hood, card)
        card_rows.append({
            "card": card.id, "name": card.name, "occurrences": n, "vp": card.vp * n,
        })
    achievement_rows = [
        {"achievement": a_id, "name": CONTENT.achievement(a_id).display_name, "vp": vp}
        for a_id, vp in rings
    ]
    monuments = len(hood.monuments())
    parts: dict[str, int] = {
        "achievements": sum(vp for _, vp in rings),
        "water": sum(int(a["vp"]) for a in water),
        "park": sum(int(a["vp"]) for a in park),
        "monuments": monuments * CONTENT.monument_vp,
        "cards": sum(int(r["vp"]) for r in card_rows),
    }
    return {
        "total": sum(parts.values()),
        **parts,
        "achievement_rings": achievement_rows,
        "water_areas": water,
        "park_areas": park,
        "monument_count": monuments,
        "scoring_cards": card_rows,
    }


def total(hood: Neighbourhood, cards: list[str], ring_vp: int) -> int:
    """The score without the breakdown's detail (same figure as ``breakdown()['total']``)."""
    return (
        ring_vp
        + area_total(hood, "W")
        + area_total(hood, "P")
        + monument_total(hood)
        + sum(card_points(hood, CONTENT.cards[c]) for c in cards)
    )


def winners(breakdowns: dict[str, dict[str, Any]]) -> list[str]:
    """Most VP; "In the case of a tie, the player with the most Victory points from
    achievements wins"; then most VP from scoring cards (D22); then a shared victory."""
    def key(player: str) -> tuple[int, int, int]:
        b = breakdowns[player]
        return b["total"], b["achievements"], b["cards"]

    best = max(key(p) for p in breakdowns)
    return [p for p in breakdowns if key(p) == best]
