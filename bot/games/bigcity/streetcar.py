"""The streetcar line: where streetcars may go.

"The first streetcar may, however, be placed on any street in the city, even a street on
the outskirts of the city. After the first streetcar has been placed, two streetcars may
be added each turn ... The new streetcars that are placed must extend the existing
streetcar line. The player may choose to place each of the new streetcars at the same end,
at different ends, or somewhere along the middle to create a branch or branches."
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import permutations

from bot.core.i18n import Words
from bot.games.bigcity.city import City
from bot.games.bigcity.content import STREETCARS
from bot.games.bigcity.geometry import Point, Segment
from bot.games.bigcity.saying import Sentence, Street
from bot.games.bigcity.saying import sentence as _l

_ = Words("bot.games.bigcity")
_ln = _.lazy_plural


@dataclass(frozen=True)
class LineRules:
    """The streetcar variants in play."""

    single_line: bool = False  # one line without branches or loops, extended at its ends
    limited: bool = False  # only along buildings already in the city


def streetcars_left(city: City) -> int:
    return STREETCARS - len(city.streetcars)


def _degrees(line: set[Segment]) -> Counter[Point]:
    """How many streetcars meet at each corner of the line."""
    degrees: Counter[Point] = Counter()
    for a, b in line:
        degrees[a] += 1
        degrees[b] += 1
    return degrees


def segment_problem(city: City, segment: Segment, rules: LineRules) -> Sentence | None:
    """Whether one street may carry a streetcar at all (ignoring how it joins the line)."""
    if not city.is_street(segment):
        return _l("A streetcar must run along a street of the city.")
    where = Street(city.describe_segment(segment))
    if segment in city.streetcars:
        return _l("A streetcar already runs at {street}.", street=where)
    if segment in city.covered_streets():
        return _l("The street at {street} runs under a building; streetcars may not cross "
                  "it.", street=where)
    if rules.limited and not city.segment_borders_building(segment):
        return _l("In this game a streetcar must run along a building; nothing is built at "
                  "{street}.", street=where)
    return None


def _extends(degrees: Counter[Point], segment: Segment, rules: LineRules) -> bool:
    """Whether ``segment`` extends the line whose corner degrees are given (non-empty line)."""
    a, b = segment
    if not rules.single_line:
        return a in degrees or b in degrees
    # A single line grows only at an end (a corner of degree 1) and never onto itself.
    ends = [p for p in (a, b) if degrees.get(p, 0) == 1]
    others = [p for p in (a, b) if p not in degrees]
    return len(ends) == 1 and len(others) == 1


def _grown(degrees: Counter[Point], segment: Segment) -> Counter[Point]:
    grown = Counter(degrees)
    grown[segment[0]] += 1
    grown[segment[1]] += 1
    return grown


def _incident(points: set[Point]) -> set[Segment]:
    """Every unit segment with an end in ``points``."""
    result: set[Segment] = set()
    for x, y in points:
        result.update(
            (((x - 1, y), (x, y)), ((x, y), (x + 1, y)), ((x, y - 1), (x, y)), ((x, y), (x, y + 1)))
        )
    return result


def streetcars_problem(city: City, segments: list[Segment],
                       rules: LineRules) -> Sentence | None:
    """Why these streetcars may not be placed together now (None: they may)."""
    if not city.has_city_hall():
        return _l("The streetcar line can only be started after city hall.")
    if not segments:
        return _l("Place at least one streetcar.")
    if len(set(segments)) != len(segments):
        return _l("Place each streetcar on a different street.")
    left = streetcars_left(city)
    if left <= 0:
        return _l("All 17 streetcars are already placed.")
    if not city.streetcars and len(segments) > 1:
        return _l("The player who starts the streetcar line places only one streetcar.")
    if len(segments) > 2:
        return _l("Place one or two streetcars in a turn.")
    if len(segments) > left:
        return Sentence(_ln("Only {n} streetcar left.", "Only {n} streetcars left.", left))
    for segment in segments:
        problem = segment_problem(city, segment, rules)
        if problem:
            return problem
    if not city.streetcars:
        return None
    for order in permutations(segments):
        degrees = _degrees(city.streetcars)
        for segment in order:
            if not _extends(degrees, segment, rules):
                break
            degrees = _grown(degrees, segment)
        else:
            return None
    if rules.single_line:
        return _l("Streetcars must extend an end of the line, without branches or loops.")
    return _l("New streetcars must join the streetcar line.")


def streetcar_options(city: City, rules: LineRules) -> list[list[Segment]]:
    """Every legal streetcar placement now: single streetcars, then pairs."""
    if not city.has_city_hall() or streetcars_left(city) <= 0:
        return []
    if not city.streetcars:
        return [[s] for s in sorted(city.streets()) if segment_problem(city, s, rules) is None]
    ok: dict[Segment, bool] = {}

    def allowed(segment: Segment) -> bool:
        if segment not in ok:
            ok[segment] = segment_problem(city, segment, rules) is None
        return ok[segment]

    degrees = _degrees(city.streetcars)
    singles = [
        s for s in sorted(_incident(set(degrees))) if allowed(s) and _extends(degrees, s, rules)
    ]
    options: list[list[Segment]] = [[s] for s in singles]
    if streetcars_left(city) < 2:
        return options
    seen: set[tuple[Segment, Segment]] = set()
    for first in singles:
        grown = _grown(degrees, first)
        for second in sorted(_incident(set(grown))):
            if second == first or not allowed(second):
                continue
            pair = (min(first, second), max(first, second))
            if pair not in seen and _extends(grown, second, rules):
                seen.add(pair)
                options.append([pair[0], pair[1]])
    return options
