#!/usr/bin/env python3
"""Cross-check the Big Cityz deck (bot/data/bigcityz/cities.json) against offline reference data.

Reference data (GeoNames, OpenFlights, Wikipedia mean temperatures) lives outside the repo in
``shared/reference-data`` next to the repository; pass another directory as the first argument.
The optional ``global-land-mask`` package is used for the coast check when it is installed.

The script compares every card with the references, recomputes the twelve statements and their
true share, and writes ``docs/bigcityz-deck-report.md``. Every disagreement must either have been
fixed in the data or be explained in ``EXPLANATIONS`` below; the exit status is 1 when an
unexplained disagreement or a rule violation (margin, share, stored boolean) remains.

The bot never imports this module; it is a maintenance tool only.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import math
import sys
import unicodedata
import zipfile
import zoneinfo
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE_DIR = REPO.parent / "shared" / "reference-data"
DECK_PATH = REPO / "bot" / "data" / "bigcityz" / "cities.json"
STATEMENTS_PATH = REPO / "bot" / "data" / "bigcityz" / "statements.json"
REPORT_PATH = REPO / "docs" / "bigcityz-deck-report.md"

# fmt: off
STATEMENT_IDS = (
    "population", "founded", "area", "elevation", "airport", "timezones",
    "temperature", "coast", "south", "left_traffic", "eurasia", "capital",
)
# fmt: on

# Thresholds of the published game and the exclusion margins used when picking cities.
POPULATION_THRESHOLD = 1_000_000
POPULATION_MARGIN = 0.05  # relative
FOUNDED_THRESHOLD = 1700
FOUNDED_MARGIN = 20  # years
AREA_THRESHOLD = 310.0
AREA_MARGIN = 0.05  # relative
ELEVATION_THRESHOLD = 708
ELEVATION_MARGIN = 25  # metres
TEMPERATURE_EDGE = 10.5  # rounds (half up) to 11 °C
TEMPERATURE_MARGIN = 0.3
LATITUDE_MARGIN = 0.1  # degrees; cities straddling the equator are left out
BERLIN_UTC_OFFSET = 1.0
TIMEZONE_DISTANCE = 5
SHARE_MIN, SHARE_MAX = 0.15, 0.85

# Tolerances of the reference checks.
GEONAMES_MAX_KM = 30.0
AIRPORT_MAX_KM = 80.0
POPULATION_MAX_RATIO = 1.25
ELEVATION_MAX_DIFF_M = 150
TEMPERATURE_MAX_DIFF_C = 1.0

# fmt: off
CONTINENTS = {
    "AF": "Africa", "AS": "Asia", "EU": "Europe", "NA": "North America",
    "SA": "South America", "OC": "Oceania", "AN": "Antarctica",
}

# Countries and territories that drive on the left (Wikipedia: Left- and right-hand traffic).
LEFT_HAND_TRAFFIC = frozenset({
    "AG", "AI", "AU", "BB", "BD", "BM", "BN", "BS", "BT", "BW", "CC", "CK", "CX", "CY", "DM",
    "FJ", "FK", "GB", "GD", "GG", "GY", "HK", "ID", "IE", "IM", "IN", "JE", "JM", "JP", "KE",
    "KI", "KN", "KY", "LC", "LK", "LS", "MO", "MS", "MT", "MU", "MV", "MW", "MY", "MZ", "NA",
    "NF", "NP", "NR", "NU", "NZ", "PG", "PK", "PN", "SB", "SC", "SG", "SH", "SR", "SZ", "TC",
    "TH", "TK", "TL", "TO", "TT", "TV", "TZ", "UG", "VC", "VG", "VI", "WS", "ZA", "ZM", "ZW",
})
# fmt: on

# Card id -> name used in the Wikipedia temperature table, where it differs from the card name.
TEMPERATURE_TABLE_NAMES = {
    "luxembourg": "Luxembourg City",
    "naples": "Napoli",
    "washington": "Washington, D.C.",
    "portland": "Portland (OR)",
}

# Fixes and drops made while building the deck, each prompted by a check against the references.
FIXES_APPLIED = (
    "Kanazawa: GeoNames has no usable terrain height (-1 m) and no cited value could be confirmed; card dropped, Matsuyama added.",
    "Ankara: the province-wide metropolitan municipality (24,521 km²) lies ~190 km from the Black Sea, so the rulebook's coast rule is ambiguous; card dropped, Vladivostok added.",
    "Balikpapan: today's international service could not be confirmed offline; card dropped, Padang added.",
    "Suva: GeoNames terrain height is missing (-9999); elevation taken from Wikipedia (0 m) and area corrected to 26.24 km² (Wikipedia).",
    "Dakar: airport set to DSS (Blaise Diagne, open since 2017) instead of DKR, which carried Dakar's routes in OpenFlights 2014.",
    "Anchorage, Faisalabad: OpenFlights 2014 lists no international route although seasonal or newer ones exist; dropped as disputed.",
    "Manizales: Pereira and Armenia airports within 80 km had international routes in 2014, so 'an airport serving the city' is disputed; dropped.",
    "Tallahassee, Tulsa, Amarillo, Billings, Fargo, Juneau, João Pessoa: airports named 'International' without international routes; not used.",
    "Quebec City, Porto Alegre, Pelotas, Feira de Santana: global-land-mask counts the St. Lawrence estuary, the Guaíba/Lagoa dos Patos or a nearby bay as ocean; coast disputed, not used.",
    "Seoul, Beijing, Hanoi, Shenyang, Rome, Quezon City, São Paulo, Tepic: the coast test (distance to ocean vs. city size) is ambiguous; not used.",
    "Chita: GeoNames terrain height (690 m) lies within 25 m of 708 m; not used.",
)

# (card id, check) -> why the card keeps its value although a reference disagrees.
EXPLANATIONS: dict[tuple[str, str], str] = {
    ("oslo", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Oslo municipality, Statistics Norway 2024)."
    ),
    ("copenhagen", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Copenhagen municipality, Statistics Denmark 2024)."
    ),
    ("dublin", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Dublin City Council area, census 2022)."
    ),
    ("kathmandu", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Kathmandu Metropolitan City, census 2021)."
    ),
    ("rabat", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Rabat prefecture without Salé, census 2014)."
    ),
    ("asuncion", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Asunción city, census 2022; Gran Asunción is ~2.3 million)."
    ),
    ("dakar", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Dakar commune, census 2013; the Dakar region is larger)."
    ),
    ("johannesburg", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (City of Johannesburg, census 2022)."
    ),
    ("brisbane", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (City of Brisbane LGA, census 2021; Greater Brisbane is ~2.6 million)."
    ),
    ("cordoba", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Córdoba city, census 2010; both figures are above 1 million)."
    ),
    ("mexico-city", "population"): (
        "GeoNames gives the urban agglomeration/metropolitan figure; the card uses the city proper (Mexico City entity, census 2020; both figures are above 1 million)."
    ),
    ("lagos", "population"): (
        "GeoNames holds a 2020s estimate for the whole conurbation; the card uses the 2006 census of the metropolitan LGAs. Both are far above 1 million."
    ),
    ("addis-ababa", "population"): (
        "GeoNames holds a recent projection; the card uses the last census (2007). Both are far above 1 million."
    ),
    ("brazzaville", "population"): (
        "GeoNames holds a recent estimate; the card uses the 2007 census. Both are above 1 million."
    ),
    ("lusaka", "population"): (
        "GeoNames holds a newer estimate; the card uses the 2010 census (Lusaka City Council area). Both are above 1 million."
    ),
    ("bangui", "population"): (
        "GeoNames holds a recent estimate; the card uses the last census (2003). Both are below 1 million."
    ),
    ("san-salvador", "population"): (
        "GeoNames holds an older figure including more of the agglomeration; the card uses the 2007 census of the municipality. Both are below 1 million."
    ),
    ("moscow", "population"): (
        "GeoNames figure predates the 2012 expansion of Moscow (New Moscow); the card uses the 2021 census. Both are above 1 million."
    ),
    ("luxembourg", "population"): (
        "GeoNames figure is stale (about 2000); the card uses STATEC 2023. Both are far below 1 million."
    ),
    ("valletta", "population"): (
        "GeoNames figure is stale; the card uses the 2021 census. Both are tiny."
    ),
    ("tokyo", "population"): (
        "GeoNames counts only the 23 special wards (9.7 million); the card uses Tokyo Metropolis (census 2020), matching its 2,194 km² area. Both are above 1 million."
    ),
    ("chongqing", "population"): (
        "GeoNames counts the urban core; the card uses the municipality (census 2020), matching its area. Both are above 1 million."
    ),
    ("xian", "population"): (
        "GeoNames counts the urban districts; the card uses the prefecture-level city (census 2020), matching its area. Both are above 1 million."
    ),
    ("kunming", "population"): (
        "GeoNames counts the urban districts; the card uses the prefecture-level city (census 2020), matching its area. Both are above 1 million."
    ),
    ("harbin", "population"): (
        "GeoNames counts the urban districts; the card uses the prefecture-level city (census 2020), matching its area. Both are above 1 million."
    ),
    ("chengdu", "population"): (
        "GeoNames counts the urban districts; the card uses the prefecture-level city (census 2020), matching its area. Both are above 1 million."
    ),
    ("hohhot", "population"): (
        "GeoNames counts the urban districts; the card uses the prefecture-level city (census 2020), matching its area. Both are above 1 million."
    ),
    ("izmir", "population"): (
        "GeoNames counts the central districts; the card uses the metropolitan municipality (TÜİK 2023), matching its area. Both are above 1 million."
    ),
    ("karachi", "population"): (
        "GeoNames holds an older estimate; the card uses the 2017 census. Both are far above 1 million."
    ),
    ("isfahan", "population"): (
        "GeoNames holds an older (2006) figure; the card uses the 2016 census. Both are above 1 million."
    ),
    ("shiraz", "population"): (
        "GeoNames holds an older (2006) figure; the card uses the 2016 census. Both are above 1 million."
    ),
    ("tashkent", "population"): (
        "GeoNames figure is stale (about 2000); the card uses the 2023 official estimate. Both are above 1 million."
    ),
    ("kigali", "population"): (
        "GeoNames holds the 2012 census figure; the card uses the 2022 census. Both are above 1 million."
    ),
    ("brasilia", "population"): (
        "GeoNames holds an older figure; the card uses the 2022 census of the Federal District. Both are above 1 million."
    ),
    ("baguio", "population"): (
        "GeoNames holds the 2007 figure; the card uses the 2020 census. Both are far below 1 million."
    ),
    ("new-delhi", "population"): (
        "GeoNames counts a wider area; the card uses the New Delhi Municipal Council area (census 2011). Both are far below 1 million."
    ),
    ("windhoek", "population"): (
        "GeoNames holds an older figure; the card uses the 2023 census. Both are far below 1 million."
    ),
    ("san-luis-potosi", "population"): (
        "GeoNames counts the city locality; the card uses the municipality (census 2020), matching its area. Both are below 1 million (outside the 5 % margin)."
    ),
    ("veracruz", "population"): (
        "GeoNames counts the city locality; the card uses the municipality (census 2020). Both are below 1 million."
    ),
    ("uberlandia", "population"): (
        "GeoNames holds an older figure; the card uses the 2022 census of the municipality. Both are below 1 million."
    ),
    ("maringa", "population"): (
        "GeoNames holds an older figure; the card uses the 2022 census of the municipality. Both are below 1 million."
    ),
    ("cascavel", "population"): (
        "GeoNames holds an older figure; the card uses the 2022 census of the municipality. Both are below 1 million."
    ),
    ("juazeiro-do-norte", "population"): (
        "GeoNames holds an older figure; the card uses the 2022 census of the municipality. Both are below 1 million."
    ),
    ("la-serena", "population"): (
        "GeoNames counts the city locality; the card uses the commune (census 2017), matching its area. Both are below 1 million."
    ),
    ("port-moresby", "population"): (
        "GeoNames holds an older figure; the card uses the 2011 census of the National Capital District. Both are below 1 million."
    ),
    ("honiara", "population"): (
        "GeoNames holds the 2009 figure; the card uses the 2019 census. Both are below 1 million."
    ),
    ("tyumen", "continent"): (
        "GeoNames assigns all of Russia to Europe; Tyumen lies east of the Urals in Asia. Either way the eurasia statement is true."
    ),
    ("novosibirsk", "continent"): (
        "GeoNames assigns all of Russia to Europe; Novosibirsk lies in Siberia (Asia). Either way the eurasia statement is true."
    ),
    ("irkutsk", "continent"): (
        "GeoNames assigns all of Russia to Europe; Irkutsk lies in Siberia (Asia). Either way the eurasia statement is true."
    ),
    ("krasnoyarsk", "continent"): (
        "GeoNames assigns all of Russia to Europe; Krasnoyarsk lies in Siberia (Asia). Either way the eurasia statement is true."
    ),
    ("khabarovsk", "continent"): (
        "GeoNames assigns all of Russia to Europe; Khabarovsk lies in the Russian Far East (Asia). Either way the eurasia statement is true."
    ),
    ("vladivostok", "continent"): (
        "GeoNames assigns all of Russia to Europe; Vladivostok lies in the Russian Far East (Asia). Either way the eurasia statement is true."
    ),
    ("bordeaux", "coast"): (
        "The nearest 'ocean' cell of the mask is the Gironde estuary; Bordeaux is a river port on the Garonne and the Atlantic shore is about 50 km west. Not coastal."
    ),
    ("dakar", "airport"): (
        "Blaise Diagne International (DSS) replaced Dakar-Yoff (DKR) in December 2017; OpenFlights 2014 lists DKR with routes to 25 countries, and DSS now carries Dakar's international flights."
    ),
    ("montreal", "elevation"): (
        "The GeoNames point lies on the slope of Mount Royal (216 m); the city's generally cited low-lying elevation is about 36 m (Montréal-Trudeau station)."
    ),
    ("cali", "elevation"): (
        "The SRTM terrain height at the GeoNames point (758 m) is well below the generally cited 1,018 m (Wikipedia: Cali); both are above 708 m, so the elevation statement is unaffected."
    ),
    ("suva", "elevation"): (
        "GeoNames has no terrain height for Suva (-9999); the city centre is at sea level (Wikipedia)."
    ),
}


@dataclass(frozen=True)
class Finding:
    """One disagreement between a card and a reference."""

    card_id: str
    check: str
    card_value: str
    reference_value: str
    detail: str

    @property
    def explanation(self) -> str | None:
        return EXPLANATIONS.get((self.card_id, self.check))


@dataclass
class GeoName:
    geonameid: int
    name: str
    asciiname: str
    alternatenames: tuple[str, ...]
    latitude: float
    longitude: float
    feature_code: str
    country_code: str
    population: int
    elevation: int | None
    dem: int | None
    timezone: str


@dataclass
class Airport:
    iata: str
    name: str
    country: str
    latitude: float
    longitude: float


@dataclass
class References:
    geonames: dict[int, GeoName]
    countries: dict[str, dict[str, str]]
    airports: dict[str, Airport]
    destinations: dict[str, set[str]]
    temperatures: dict[str, float]


def normalise(text: str) -> str:
    """Lower-case, strip accents and punctuation for name comparison."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(
        plain.lower().replace("-", " ").replace("'", "").replace(".", "").replace(",", " ").split()
    )


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    rad = math.pi / 180
    a = (
        math.sin((lat2 - lat1) * rad / 2) ** 2
        + math.cos(lat1 * rad) * math.cos(lat2 * rad) * math.sin((lon2 - lon1) * rad / 2) ** 2
    )
    return 12742.0 * math.asin(math.sqrt(a))


def _int_or_none(value: str) -> int | None:
    value = value.strip()
    if not value or value == "-9999":
        return None
    return int(float(value))


def load_references(ref_dir: Path, wanted_geonames: set[int]) -> References:
    geonames: dict[int, GeoName] = {}
    with zipfile.ZipFile(ref_dir / "geonames-cities15000.zip") as archive:
        member = next(n for n in archive.namelist() if n.endswith(".txt"))
        with archive.open(member) as raw:
            for line in io.TextIOWrapper(raw, encoding="utf-8"):
                f = line.rstrip("\n").split("\t")
                gid = int(f[0])
                if gid not in wanted_geonames:
                    continue
                geonames[gid] = GeoName(
                    geonameid=gid,
                    name=f[1],
                    asciiname=f[2],
                    alternatenames=tuple(n for n in f[3].split(",") if n),
                    latitude=float(f[4]),
                    longitude=float(f[5]),
                    feature_code=f[7],
                    country_code=f[8],
                    population=int(f[14] or 0),
                    elevation=_int_or_none(f[15]),
                    dem=_int_or_none(f[16]),
                    timezone=f[17],
                )
    countries: dict[str, dict[str, str]] = {}
    with open(ref_dir / "geonames-countryInfo.tsv", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t")
            if len(f) > 8:
                countries[f[0]] = {"name": f[4], "capital": f[5], "continent": f[8]}
    airports: dict[str, Airport] = {}
    with open(ref_dir / "openflights-airports.dat", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            iata = row[4]
            if len(iata) == 3 and iata != "\\N":
                airports[iata] = Airport(iata, row[1], row[3], float(row[6]), float(row[7]))
    destinations: dict[str, set[str]] = {}
    with open(ref_dir / "openflights-routes.dat", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            src, dst = row[2], row[4]
            destinations.setdefault(src, set()).add(dst)
            destinations.setdefault(dst, set()).add(src)
    temperatures: dict[str, float] = {}
    with open(ref_dir / "wikipedia-annual-mean-temperature.tsv", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[1].strip():
                temperatures[parts[0].strip()] = float(parts[1])
    return References(geonames, countries, airports, destinations, temperatures)


def international_countries(refs: References, iata: str) -> list[str]:
    """Countries other than the airport's own reached by a 2014 route (either direction)."""
    home = refs.airports[iata].country
    return sorted(
        {
            refs.airports[d].country
            for d in refs.destinations.get(iata, set())
            if d in refs.airports and refs.airports[d].country != home
        }
    )


def standard_utc_offset(tz_name: str, year: int = 2025) -> float:
    """Offset in hours outside daylight saving time (January or July, whichever has no DST)."""
    zone = zoneinfo.ZoneInfo(tz_name)
    offsets = []
    for month in (1, 7):
        moment = dt.datetime(year, month, 15, 12, tzinfo=zone)
        offset = moment.utcoffset()
        assert offset is not None
        if moment.dst() == dt.timedelta(0):
            offsets.append(offset.total_seconds() / 3600)
    if not offsets:
        raise ValueError(f"no standard time found for {tz_name}")
    return offsets[0]


# ----------------------------------------------------------------------------- rules


def derive_statements(card: dict[str, Any]) -> dict[str, bool]:
    """The fixed rules turning card values into the twelve statement booleans."""
    return {
        "population": card["population"] >= POPULATION_THRESHOLD,
        "founded": card["founded"] < FOUNDED_THRESHOLD,
        "area": card["area_km2"] > AREA_THRESHOLD,
        "elevation": card["elevation_m"] > ELEVATION_THRESHOLD,
        "airport": card["airport_iata"] is not None,
        "timezones": abs(card["utc_offset"] - BERLIN_UTC_OFFSET) >= TIMEZONE_DISTANCE,
        "temperature": card["mean_temp_c"] >= TEMPERATURE_EDGE,
        "coast": bool(card["coast"]),
        "south": card["latitude"] < 0,
        "left_traffic": card["drive_side"] == "left",
        "eurasia": card["continent"] in ("Europe", "Asia"),
        "capital": bool(card["capital"]),
    }


def margin_violations(card: dict[str, Any]) -> list[str]:
    """Values so close to a threshold that sources could disagree."""
    out = []
    if abs(card["population"] - POPULATION_THRESHOLD) <= POPULATION_THRESHOLD * POPULATION_MARGIN:
        out.append(f"population {card['population']:,} within 5 % of 1,000,000")
    if abs(card["founded"] - FOUNDED_THRESHOLD) <= FOUNDED_MARGIN:
        out.append(f"founded {card['founded']} within 20 years of 1700")
    if abs(card["area_km2"] - AREA_THRESHOLD) <= AREA_THRESHOLD * AREA_MARGIN:
        out.append(f"area {card['area_km2']} km² within 5 % of 310 km²")
    if abs(card["elevation_m"] - ELEVATION_THRESHOLD) <= ELEVATION_MARGIN:
        out.append(f"elevation {card['elevation_m']} m within 25 m of 708 m")
    if abs(card["mean_temp_c"] - TEMPERATURE_EDGE) <= TEMPERATURE_MARGIN:
        out.append(f"mean temperature {card['mean_temp_c']} °C within 0.3 °C of 10.5 °C")
    if abs(card["latitude"]) < LATITUDE_MARGIN:
        out.append(f"latitude {card['latitude']} within 0.1° of the equator")
    return out


# ----------------------------------------------------------------------------- checks


def _geonames_names(g: GeoName) -> set[str]:
    return {normalise(n) for n in (g.name, g.asciiname, *g.alternatenames)}


def check_card(
    card: dict[str, Any],
    refs: References,
    ocean_distance: Callable[[float, float], float | None] | None,
) -> list[Finding]:
    cid = card["id"]
    found: list[Finding] = []

    def add(check: str, card_value: object, ref_value: object, detail: str) -> None:
        found.append(Finding(cid, check, str(card_value), str(ref_value), detail))

    g = refs.geonames.get(card["geonames_id"])
    if g is None:
        add("geonames", card["geonames_id"], "missing", "GeoNames id not in cities15000")
        return found
    names = _geonames_names(g)
    if normalise(card["name"]) not in names:
        add(
            "geonames-name",
            card["name"],
            g.name,
            "card name is not a GeoNames name or alternate name",
        )
    if g.country_code != card["country_code"]:
        add("geonames-country", card["country_code"], g.country_code, "country differs")
    km = haversine_km(card["latitude"], card["longitude"], g.latitude, g.longitude)
    if km > GEONAMES_MAX_KM:
        add(
            "geonames-coordinates",
            f"{card['latitude']},{card['longitude']}",
            f"{g.latitude},{g.longitude}",
            f"{km:.0f} km apart",
        )

    country = refs.countries.get(card["country_code"], {})
    ref_capital = g.feature_code == "PPLC" or (
        bool(country.get("capital")) and normalise(country["capital"]) in names
    )
    if ref_capital != card["capital"]:
        add(
            "capital",
            card["capital"],
            ref_capital,
            f"GeoNames feature code {g.feature_code}, countryInfo capital {country.get('capital', '?')!r}",
        )

    if (card["latitude"] < 0) != (g.latitude < 0):
        add("south", card["latitude"], g.latitude, "latitude sign differs")

    if card["time_zone"] != g.timezone:
        add("time-zone", card["time_zone"], g.timezone, "IANA zone differs from GeoNames")
    ref_offset = standard_utc_offset(g.timezone)
    if not math.isclose(ref_offset, card["utc_offset"]):
        add(
            "utc-offset",
            card["utc_offset"],
            ref_offset,
            f"zoneinfo standard offset of {g.timezone}",
        )

    ref_elev = g.elevation if g.elevation is not None else g.dem
    if ref_elev is None:
        add(
            "elevation",
            card["elevation_m"],
            "none",
            "GeoNames has neither elevation nor terrain height",
        )
    else:
        side_differs = (card["elevation_m"] > ELEVATION_THRESHOLD) != (
            ref_elev > ELEVATION_THRESHOLD
        )
        if side_differs or abs(card["elevation_m"] - ref_elev) > ELEVATION_MAX_DIFF_M:
            kind = "elevation" if g.elevation is not None else "terrain height (dem)"
            add(
                "elevation",
                card["elevation_m"],
                ref_elev,
                f"GeoNames {kind}; {'other side of 708 m' if side_differs else 'differs by more than 150 m'}",
            )

    if g.population > 0:
        ratio = max(card["population"], g.population) / min(card["population"], g.population)
        side_differs = (card["population"] >= POPULATION_THRESHOLD) != (
            g.population >= POPULATION_THRESHOLD
        )
        if ratio > POPULATION_MAX_RATIO or side_differs:
            add(
                "population",
                f"{card['population']:,}",
                f"{g.population:,}",
                f"GeoNames population; ratio {ratio:.2f}{', other side of 1 million' if side_differs else ''}",
            )

    found.extend(_check_airport(card, refs))

    if ocean_distance is not None:
        found.extend(_check_coast(card, ocean_distance))

    table_name = TEMPERATURE_TABLE_NAMES.get(cid, card["name"])
    if table_name in refs.temperatures:
        ref_t = refs.temperatures[table_name]
        side_differs = (card["mean_temp_c"] >= TEMPERATURE_EDGE) != (ref_t >= TEMPERATURE_EDGE)
        if side_differs or abs(card["mean_temp_c"] - ref_t) > TEMPERATURE_MAX_DIFF_C:
            add("temperature", card["mean_temp_c"], ref_t, f"Wikipedia list entry {table_name!r}")

    ref_side = "left" if card["country_code"] in LEFT_HAND_TRAFFIC else "right"
    if ref_side != card["drive_side"]:
        add("drive-side", card["drive_side"], ref_side, "script's left-hand-traffic list")

    ref_continent = CONTINENTS.get(country.get("continent", ""), "?")
    if ref_continent != card["continent"]:
        add(
            "continent",
            card["continent"],
            ref_continent,
            "GeoNames countryInfo continent of the country",
        )

    return found


def _check_airport(card: dict[str, Any], refs: References) -> list[Finding]:
    cid = card["id"]
    iata = card["airport_iata"]
    out: list[Finding] = []
    if iata is not None:
        airport = refs.airports.get(iata)
        if airport is None:
            out.append(
                Finding(cid, "airport", iata, "missing", "IATA code not in OpenFlights airports")
            )
            return out
        km = haversine_km(card["latitude"], card["longitude"], airport.latitude, airport.longitude)
        if km > AIRPORT_MAX_KM:
            out.append(
                Finding(
                    cid, "airport", iata, f"{km:.0f} km", "airport farther than 80 km from the city"
                )
            )
        reached = international_countries(refs, iata)
        if not reached:
            out.append(
                Finding(
                    cid,
                    "airport",
                    iata,
                    "no international route",
                    "OpenFlights 2014 lists no route from this airport to another country",
                )
            )
        return out
    nearby = []
    for code, airport in refs.airports.items():
        if code not in refs.destinations:
            continue
        km = haversine_km(card["latitude"], card["longitude"], airport.latitude, airport.longitude)
        if km <= AIRPORT_MAX_KM and international_countries(refs, code):
            nearby.append(f"{code} ({km:.0f} km)")
    if nearby:
        out.append(
            Finding(
                cid,
                "airport",
                "none",
                ", ".join(sorted(nearby)),
                "an airport within 80 km had an international route in 2014",
            )
        )
    return out


def _check_coast(
    card: dict[str, Any], ocean_distance: Callable[[float, float], float | None]
) -> list[Finding]:
    """Compare the card's coast flag with the distance from the centre to the nearest ocean cell.

    With r the radius of a disc of the city's area, the rulebook rule (land between border and
    coast smaller than the city) roughly means: coastal if the ocean is within r (plus a few km of
    grid slack), inland if it is farther than 2.57 r + 10 km; anything in between is ambiguous.
    """
    d = ocean_distance(card["latitude"], card["longitude"])
    r = math.sqrt(card["area_km2"] / math.pi)
    near_limit = r + max(3.0, 0.25 * r)
    far_limit = 2.57 * r + 10.0
    shown = "none within 400 km" if d is None else f"{d:.0f} km"
    if card["coast"]:
        if d is None or d > near_limit:
            return [
                Finding(
                    card["id"],
                    "coast",
                    "True",
                    shown,
                    f"global-land-mask: ocean farther than {near_limit:.0f} km (city radius {r:.0f} km)",
                )
            ]
    elif d is not None and d <= far_limit:
        return [
            Finding(
                card["id"],
                "coast",
                "False",
                shown,
                f"global-land-mask: ocean within {far_limit:.0f} km (city radius {r:.0f} km)",
            )
        ]
    return []


def make_ocean_distance() -> Callable[[float, float], float | None] | None:
    """Distance (km) to the nearest ocean cell of global-land-mask, or None if not installed."""
    try:
        import numpy as np
        from global_land_mask import globe
    except ImportError:
        return None

    def distance(lat: float, lon: float, max_km: int = 400) -> float | None:
        steps = np.arange(-max_km, max_km + 1, 1.0)
        dy, dx = np.meshgrid(steps, steps, indexing="ij")
        lats = np.clip(lat + dy / 111.32, -89.9, 89.9)
        lons = (lon + dx / (111.32 * math.cos(math.radians(lat))) + 180.0) % 360.0 - 180.0
        ocean = globe.is_ocean(lats, lons)
        if not ocean.any():
            return None
        return float(np.hypot(dy, dx)[ocean].min())

    return distance


# ----------------------------------------------------------------------------- report


def statement_shares(cards: list[dict[str, Any]]) -> dict[str, float]:
    return {
        sid: sum(derive_statements(c)[sid] for c in cards) / len(cards) for sid in STATEMENT_IDS
    }


def rule_errors(cards: list[dict[str, Any]], statement_ids: Iterable[str]) -> list[str]:
    errors = []
    if list(statement_ids) != list(STATEMENT_IDS):
        errors.append("statements.json ids are not the twelve statements in table order")
    ids = [c["id"] for c in cards]
    for cid, n in Counter(ids).items():
        if n > 1:
            errors.append(f"duplicate id {cid}")
    if len(cards) != 200:
        errors.append(f"deck has {len(cards)} cards, expected 200")
    for card in cards:
        derived = derive_statements(card)
        for sid, value in derived.items():
            if card["statements"].get(sid) != value:
                errors.append(
                    f"{card['id']}: stored {sid}={card['statements'].get(sid)} but rule gives {value}"
                )
        for problem in margin_violations(card):
            errors.append(f"{card['id']}: {problem}")
    for sid, share in statement_shares(cards).items():
        if not SHARE_MIN <= share <= SHARE_MAX:
            errors.append(f"statement {sid} is true for {share:.1%} of the deck (allowed 15-85 %)")
    return errors


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_report(
    path: Path,
    cards: list[dict[str, Any]],
    statements: list[dict[str, Any]],
    findings: list[Finding],
    errors: list[str],
    coast_checked: bool,
    ref_dir: Path,
) -> None:
    by_id = {c["id"]: c for c in cards}
    shares = statement_shares(cards)
    unexplained = [f for f in findings if f.explanation is None]
    continents = Counter(c["continent"] for c in cards)
    lines = [
        "# Big Cityz deck check report",
        "",
        "Generated by `scripts/check_bigcityz_deck.py` from `bot/data/bigcityz/cities.json` and the reference",
        f"data in `{ref_dir.name}/` (GeoNames cities15000 and countryInfo, OpenFlights airports and 2014",
        "routes, Wikipedia list of cities by average temperature"
        + (
            ", global-land-mask)."
            if coast_checked
            else "; global-land-mask not installed, coast not checked)."
        ),
        "",
        "## Summary",
        "",
        f"- Cards: {len(cards)} (unique ids: {len({c['id'] for c in cards})})",
        f"- Countries: {len({c['country_code'] for c in cards})}",
        "- Continents: " + ", ".join(f"{k} {v}" for k, v in sorted(continents.items())),
        f"- Disagreements with a reference: {len(findings)} "
        f"({len(findings) - len(unexplained)} explained, {len(unexplained)} unexplained)",
        f"- Rule violations (stored booleans, margins, shares, ids): {len(errors)}",
        f"- Result: {'PASS' if not unexplained and not errors else 'FAIL'}",
        "",
        "## Statement shares",
        "",
        "| id | statement | true | share |",
        "|---|---|---:|---:|",
    ]
    texts = {s["id"]: s["text"] for s in statements}
    for sid in STATEMENT_IDS:
        count = round(shares[sid] * len(cards))
        lines.append(f"| {sid} | {texts.get(sid, '?')} | {count} | {shares[sid]:.1%} |")
    lines += ["", "All shares must lie between 15 % and 85 %.", ""]
    if errors:
        lines += ["## Rule violations", ""] + [f"- {e}" for e in errors] + [""]
    lines += ["## Fixes applied while building the deck", ""]
    lines += [f"- {fix}" for fix in FIXES_APPLIED]
    lines += ["", "## Disagreements with the reference data", ""]
    counts = Counter(f.check for f in findings)
    lines.append("By check: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".")
    lines += [
        "",
        "| city | check | card | reference | detail | resolution |",
        "|---|---|---|---|---|---|",
    ]
    for f in sorted(findings, key=lambda x: (x.check, x.card_id)):
        name = by_id[f.card_id]["name"]
        resolution = f.explanation or "**UNEXPLAINED**"
        lines.append(
            f"| {_cell(name)} | {f.check} | {_cell(f.card_value)} | {_cell(f.reference_value)} | "
            f"{_cell(f.detail)} | {_cell(resolution)} |"
        )
    lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "reference_dir",
        nargs="?",
        type=Path,
        default=DEFAULT_REFERENCE_DIR,
        help=f"reference data directory (default: {DEFAULT_REFERENCE_DIR})",
    )
    parser.add_argument("--deck", type=Path, default=DECK_PATH)
    parser.add_argument("--statements", type=Path, default=STATEMENTS_PATH)
    parser.add_argument("--report", type=Path, default=REPORT_PATH)
    parser.add_argument(
        "--no-coast", action="store_true", help="skip the global-land-mask coast check"
    )
    args = parser.parse_args(argv)

    cards: list[dict[str, Any]] = json.loads(args.deck.read_text(encoding="utf-8"))
    statements: list[dict[str, Any]] = json.loads(args.statements.read_text(encoding="utf-8"))
    if not args.reference_dir.is_dir():
        print(f"reference data not found: {args.reference_dir}", file=sys.stderr)
        return 2
    refs = load_references(args.reference_dir, {int(c["geonames_id"]) for c in cards})
    ocean_distance = None if args.no_coast else make_ocean_distance()

    findings: list[Finding] = []
    for card in cards:
        findings.extend(check_card(card, refs, ocean_distance))
    errors = rule_errors(cards, [s["id"] for s in statements])
    stale = sorted(set(EXPLANATIONS) - {(f.card_id, f.check) for f in findings})
    if stale and ocean_distance is not None:
        errors += [f"explanation without a disagreement: {key}" for key in stale]

    write_report(
        args.report,
        cards,
        statements,
        findings,
        errors,
        ocean_distance is not None,
        args.reference_dir,
    )
    unexplained = [f for f in findings if f.explanation is None]
    for f in unexplained:
        print(
            f"UNEXPLAINED {f.card_id} {f.check}: card {f.card_value} / reference {f.reference_value} ({f.detail})"
        )
    for e in errors:
        print(f"ERROR {e}")
    print(
        f"{len(cards)} cards, {len(findings)} disagreements ({len(unexplained)} unexplained), "
        f"{len(errors)} rule violations; report written to {args.report}"
    )
    return 1 if unexplained or errors else 0


if __name__ == "__main__":
    sys.exit(main())
