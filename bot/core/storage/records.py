"""The reads behind ``/profile`` and ``/history``: a player's figures in a server, and a page of
the server's finished games, newest first.

Every read here is bounded by an index, whatever the number of games a server has kept:

- a page of history walks ``results_by_time`` (guild, finished_at) or, for one member,
  ``results_by_player`` (guild, player, finished_at) from the page's anchor down, then
  reads that page's matches by their keys;
- a profile reads the player's own rows through ``results_by_player`` (their totals are
  counted by the database, not here), their ratings by key, and at most ``POINTS`` rating
  changes per game through ``rating_changes_by_player``.

No word is said here: the figures go to ``bot/ui/profile.py`` and ``bot/ui/history.py``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..records import Seat
from .store import Storage

# How many rating changes per game the profile's chart draws (the newest): a line of 120
# points already fills the chart's width on a phone; older ones are left out.
POINTS = 120
# How many finished games the profile lists.
RECENT = 5
# Finished games on a page of /history (Discord's menu of their replays takes at most 25).
PAGE_SIZE = 8


@dataclass(frozen=True)
class GameFigures:
    """A player's figures in one game of one server. ``rating`` and ``rated`` are the
    current season's (None and 0 before their first rated game); ``points`` are the rating
    after each of their latest rated games of the season, oldest first, as (finished_at,
    rating); ``start`` is the rating before the first of those points."""

    game: str
    games: int
    wins: int
    best: int
    average: float
    last_played: float
    rating: int | None = None
    rated: int = 0
    points: tuple[tuple[float, int], ...] = ()
    start: int | None = None


@dataclass(frozen=True)
class RecentResult:
    match_id: int
    game: str
    score: int
    won: bool
    place: int  # 1 = first; players who tie share a place
    players: int
    finished_at: float


@dataclass(frozen=True)
class Profile:
    player_id: str
    name: str  # the name the player last finished a game under
    season: int
    games: tuple[GameFigures, ...]  # most played first (the favourite first)
    recent: tuple[RecentResult, ...]  # newest first

    @property
    def total_games(self) -> int:
        return sum(g.games for g in self.games)

    @property
    def total_wins(self) -> int:
        return sum(g.wins for g in self.games)

    @property
    def favourite(self) -> str:
        return self.games[0].game


@dataclass(frozen=True)
class HistorySeat:
    seat: Seat
    score: int
    won: bool


@dataclass(frozen=True)
class HistoryEntry:
    match_id: int
    game: str
    finished_at: float
    moves: int  # accepted moves, the computer players' included: the replay's steps
    seats: tuple[HistorySeat, ...]  # winners first, then by score


@dataclass(frozen=True)
class HistoryPage:
    entries: tuple[HistoryEntry, ...]
    page: int  # counted from 0
    anchor: int | None  # the newest game of the listing (its first page's first entry)
    more: bool  # older games follow on the next page
    outdated: bool = False  # the anchor's game is no longer kept


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" * len(values))


async def profile(store: Storage, guild_id: int, player_id: str,
                  game: str | None = None) -> Profile | None:
    """``player_id``'s figures in the server (in ``game`` only, if given); None when they
    have not finished a game there (of that game)."""
    backend = store._backend
    only = " AND game=?" if game is not None else ""
    args: tuple[Any, ...] = (guild_id, player_id) + ((game,) if game is not None else ())
    # One row per game, counted by the database from the player's own rows, which the
    # index results_by_player finds: a server's other games are never read. (The ORDER BY
    # kept SQLite, which has no statistics, from walking the whole server's rows through
    # results_by_guild, dropped in schema 5, for the grouping's order. PostgreSQL ignores it.)
    totals = await backend.fetch_all(
        "SELECT game, COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best,"
        " AVG(score) AS average, MAX(finished_at) AS last_played FROM (SELECT game, score,"
        f" won, finished_at FROM results WHERE guild_id=? AND player_id=?{only}"
        " ORDER BY finished_at) AS mine GROUP BY game", args)
    if not totals:
        return None
    recent = await backend.fetch_small(
        "SELECT match_id, game, name, score, won, finished_at FROM results"
        f" WHERE guild_id=? AND player_id=?{only} ORDER BY finished_at DESC LIMIT ?",
        (*args, RECENT))
    season = await store.season(guild_id)
    games = [str(r["game"]) for r in totals]
    ratings = {str(r["game"]): (int(r["rating"]), int(r["games"])) for r in
               await backend.fetch_small(
                   "SELECT game, rating, games FROM ratings WHERE guild_id=? AND game IN"
                   f" ({_marks(games)}) AND season=? AND player_id=?",
                   (guild_id, *games, season, player_id))}
    points = await _rating_points(store, guild_id, player_id, season,
                                  [g for g in games if g in ratings])
    figures = []
    for r in totals:
        name = str(r["game"])
        rating, rated = ratings.get(name, (None, 0))
        line = points.get(name, [])
        figures.append(GameFigures(
            game=name, games=int(r["games"]), wins=int(r["wins"] or 0), best=int(r["best"]),
            average=float(r["average"]), last_played=float(r["last_played"]), rating=rating,
            rated=rated, points=tuple((at, after) for at, after, _ in line),
            start=line[0][2] if line else None))
    # The favourite is the most played; between equals, the one played last.
    figures.sort(key=lambda f: (-f.games, -f.last_played))
    return Profile(player_id=player_id, name=str(recent[0]["name"]), season=season,
                   games=tuple(figures),
                   recent=tuple(await _places(store, player_id, recent)))


async def _rating_points(store: Storage, guild_id: int, player_id: str, season: int,
                         games: list[str]) -> dict[str, list[tuple[float, int, int]]]:
    """The newest ``POINTS`` rating changes of each game this season, oldest first, as
    (finished_at, rating after, rating before): one read, a bounded walk down the index
    rating_changes_by_player per game."""
    if not games:
        return {}
    part = ("SELECT * FROM (SELECT game, finished_at, rating, before FROM rating_changes"
            " WHERE guild_id=? AND player_id=? AND game=? AND season=?"
            " ORDER BY finished_at DESC LIMIT ?) AS g{n}")
    sql = " UNION ALL ".join(part.format(n=n) for n in range(len(games)))
    args = [a for g in games for a in (guild_id, player_id, g, season, POINTS)]
    out: dict[str, list[tuple[float, int, int]]] = {g: [] for g in games}
    for r in await store._backend.fetch_small(sql, args):
        out[str(r["game"])].append((float(r["finished_at"]), int(r["rating"]),
                                    int(r["before"])))
    for line in out.values():
        line.sort()
    return out


async def _places(store: Storage, player_id: str, rows: list[Any]) -> list[RecentResult]:
    """Each of the player's recent results with their place and the number of players:
    the rating's place where the game was rated, else counted from the game's results
    (the winners first, then by score)."""
    if not rows:
        return []
    ids = [int(r["match_id"]) for r in rows]
    seats = await store._backend.fetch_small(
        f"SELECT match_id, player_id, score, won FROM results WHERE match_id IN ({_marks(ids)})",
        ids)
    rated = {int(r["match_id"]): int(r["place"]) for r in await store._backend.fetch_small(
        "SELECT match_id, place FROM rating_changes WHERE player_id=? AND match_id IN"
        f" ({_marks(ids)})", (player_id, *ids))}
    by_match: dict[int, list[tuple[int, int]]] = {}
    for s in seats:
        by_match.setdefault(int(s["match_id"]), []).append((int(s["won"]), int(s["score"])))
    out = []
    for r in rows:
        match_id, won, score = int(r["match_id"]), int(r["won"]), int(r["score"])
        others = by_match.get(match_id, [(won, score)])
        place = rated.get(match_id) or 1 + sum(1 for o in others if o > (won, score))
        out.append(RecentResult(match_id=match_id, game=str(r["game"]), score=score,
                                won=bool(won), place=place, players=len(others),
                                finished_at=float(r["finished_at"])))
    return out


async def history(store: Storage, guild_id: int, *, game: str | None = None,
                  player_id: str | None = None, page: int = 0, anchor: int | None = None,
                  size: int = PAGE_SIZE) -> HistoryPage:
    """Page ``page`` of the server's finished games (of ``game``, with ``player_id``
    seated), newest first. The listing is the one the first page showed: games finished
    after its ``anchor`` (the first page's first game) are not in it, so a page never
    shifts under its reader as new games end. ``outdated`` when the anchor is no longer
    kept (a forgotten player's games)."""
    backend = store._backend
    page = max(0, page)
    where, args = "guild_id=?", list[Any]([guild_id])
    if player_id is not None:
        where, args = "guild_id=? AND player_id=?", [guild_id, player_id]
    if game is not None:
        where += " AND game=?"
        args.append(game)
    if anchor is not None:
        rows = await backend.fetch_small(
            "SELECT finished_at FROM results WHERE match_id=? LIMIT 1", (anchor,))
        row = rows[0] if rows else None
        if row is None:
            return HistoryPage((), page, anchor, more=False, outdated=True)
        where += " AND (finished_at < ? OR (finished_at = ? AND match_id <= ?))"
        args += [row["finished_at"], row["finished_at"], anchor]
    # A game has a row per seat: one member's rows are one per game; the whole server's
    # are told apart by DISTINCT, which SQLite and PostgreSQL both take in index order
    # and stop at the page's end.
    distinct = "" if player_id is not None else "DISTINCT "
    found = await backend.fetch_small(
        f"SELECT {distinct}finished_at, match_id FROM results WHERE {where}"
        " ORDER BY finished_at DESC, match_id DESC LIMIT ? OFFSET ?",
        (*args, size + 1, page * size))
    ids = [int(r["match_id"]) for r in found[:size]]
    if anchor is None and page == 0 and ids:
        anchor = ids[0]
    if not ids:
        return HistoryPage((), page, anchor, more=False)
    matches = {int(r["id"]): r for r in await backend.fetch_small(
        f"SELECT id, game, seats, version FROM matches WHERE id IN ({_marks(ids)})", ids)}
    results: dict[int, list[Any]] = {}
    for r in await backend.fetch_small(
            "SELECT match_id, player_id, name, cpu, score, won, finished_at FROM results"
            f" WHERE match_id IN ({_marks(ids)})", ids):
        results.setdefault(int(r["match_id"]), []).append(r)
    entries = []
    for match_id in ids:
        rows = results.get(match_id, [])
        match = matches.get(match_id)
        if not rows or match is None:
            continue
        seated = {s.id: s for s in (Seat.from_json(s) for s in json.loads(match["seats"]))}
        seats = [HistorySeat(seated.get(str(r["player_id"])) or Seat(
                     str(r["player_id"]), str(r["name"]), bool(r["cpu"])),
                             int(r["score"]), bool(r["won"])) for r in rows]
        seats.sort(key=lambda s: (not s.won, -s.score))
        entries.append(HistoryEntry(match_id=match_id, game=str(match["game"]),
                                    finished_at=float(rows[0]["finished_at"]),
                                    moves=max(0, int(match["version"]) - 1),
                                    seats=tuple(seats)))
    return HistoryPage(tuple(entries), page, anchor, more=len(found) > size)
