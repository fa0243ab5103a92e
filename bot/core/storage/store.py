"""``Storage``, what the runtime uses: matches, their actions, the bot's own values and the
leaderboards, on whichever backend ``Storage.open`` picks."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .. import ratings, replaying
from ..engine import Engine
from ..packed import PackedMatch, state_of
from ..records import OVER, UNFINISHED, Match, Seat
from ..shards import Shards
from .jobs import (
    _INSERT_MATCH,
    _UPDATE_MATCH,
    _UPSERT_RESULT,
    _UPSERT_STATE,
    Forgotten,
    RatedSeat,
    _add_to_totals,
    _archive,
    _finish_and_lock,
    _forget,
    _new_season,
    _rate_game,
    _rebuild_ratings,
    _recount_totals,
    decode_log,
)
from .ops import (
    INTEGRITY_ERRORS,
    POSTGRES,
    ChannelBusy,
    Dialect,
    Job,
    StorageError,
    execute,
    execute_many,
    fetch_one,
    insert_id,
    is_database_url,
)
from .schema import FINISHED
from .sqlite import SQLiteBackend
from .writer import Writer

assert UNFINISHED == ("lobby", "active")  # spelled out in the SQL below

T = TypeVar("T")

# How many finished games' last states a Storage keeps at hand (``final_state``).
FINALS_KEPT = 64


@dataclass(frozen=True)
class LeaderboardRow:
    player_id: str
    name: str
    games: int
    wins: int
    best: int
    extra: dict[str, int] | None = None


@dataclass(frozen=True)
class RatingRow:
    """A player's rating in a server, game and season, with their all-time totals (people
    only: a computer level has no wins or best, and ``games`` 0)."""

    player_id: str  # a Discord id, or "cpu:easy" / "cpu:normal" / "cpu:hard"
    name: str
    cpu: bool
    rating: int  # the number shown (bot/core/ratings.py)
    rated: int  # rated games this season
    games: int = 0
    wins: int = 0
    best: int = 0
    extra: dict[str, int] | None = None
    season: int = 1


@dataclass(frozen=True)
class RatingChange:
    """What one rated game did to one player's rating."""

    match_id: int
    player_id: str
    game: str
    season: int
    place: int  # 1 = first; players who tie share a place
    before: int
    rating: int  # after the game
    finished_at: float


@dataclass(frozen=True)
class ResultRow:
    player_id: str
    name: str
    cpu: bool
    score: int
    won: bool
    extra: dict[str, Any]
    # a computer seat's level (easy, normal, hard): each level is rated as its own player
    level: str | None = None


class Backend(Protocol):
    """Where a Storage keeps its data: SQLite (``sqlite.py``) or PostgreSQL (``postgres.py``).

    ``run`` commits one job (made afresh by ``make`` each time it is tried) in a transaction
    of its own or, with SQLite, under its own savepoint in a group commit; it returns only
    after the commit. Reads see committed data only; their SQL uses ``?`` placeholders and
    their rows are read by column name."""

    dialect: Dialect

    @property
    def commits(self) -> int: ...
    def run(self, make: Callable[[], Job[T]]) -> Awaitable[T]: ...
    async def fetch_one(self, sql: str, args: Sequence[Any] = ()) -> Any: ...
    async def fetch_all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...
    async def fetch_small(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...
    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None: ...
    async def close(self) -> None: ...


# -- the storage the runtime uses -----------------------------------------------------------


class Storage:
    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._engines: dict[str, Engine] = {}
        self._finals: OrderedDict[int, tuple[str, int]] = OrderedDict()

    @classmethod
    async def open(cls, target: str | Path, *, busy_timeout: float = 10.0) -> Storage:
        """Open (creating or upgrading) the database: an SQLite file, or a PostgreSQL server
        for a ``postgresql://`` URL. StorageError names what is wrong in a sentence."""
        if is_database_url(target):
            from .postgres import PostgresBackend  # asyncpg is imported only when used

            return cls(await PostgresBackend.open(str(target)))
        return cls(await SQLiteBackend.open(target, busy_timeout=busy_timeout))

    @property
    def dialect(self) -> Dialect:
        return self._backend.dialect

    @property
    def _writer(self) -> Writer:
        """The SQLite writer (tests look at its queue)."""
        assert isinstance(self._backend, SQLiteBackend)
        return self._backend.writer

    async def close(self) -> None:
        """Commit every queued job and close. SQLite: the WAL is then checkpointed into the
        database file, so the file alone is complete."""
        await self._backend.close()

    def observe_writes(self, callback: Callable[[float, int], None] | None) -> None:
        """``callback(seconds, jobs)`` after every commit (SQLite: in the writer thread)."""
        self._backend.observe_writes(callback)

    @property
    def commits(self) -> int:
        """How many transactions were committed (with SQLite each holds one or more jobs)."""
        return self._backend.commits

    @property
    def unreachable(self) -> bool:
        """PostgreSQL: the server is out of reach now and writes wait for it."""
        return getattr(self._backend, "_outage_since", None) is not None

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """SQLite only: run ``work`` atomically in the writer thread; returns once it is
        committed. Code for both databases uses ``run``."""
        if not isinstance(self._backend, SQLiteBackend):
            raise TypeError("Storage.write takes SQLite work; use Storage.run")
        return await self._backend.writer.submit(work)

    async def run(self, make: Callable[[], Job[T]]) -> T:
        """Commit the job ``make()`` returns; returns its result once it is committed."""
        return await self._backend.run(make)

    # -- matches ----------------------------------------------------------------------

    async def create_match(self, match: Match) -> Match:
        now = time.time()
        columns = _columns(match)

        def insert() -> Job[int]:
            try:
                match_id = yield insert_id(_INSERT_MATCH, (*columns, now, now))
            except INTEGRITY_ERRORS as exc:
                raise ChannelBusy from exc
            assert match_id is not None
            return int(match_id)

        match.id = await self.run(insert)
        match.created_at = now
        return match

    async def save(
        self,
        match: Match,
        *,
        action: dict[str, Any] | None = None,
        player: str | None = None,
        by_computer: bool = False,
        results: Iterable[ResultRow] = (),
    ) -> None:
        """Write the match (and the action that led to it, and final results) atomically.

        A game's results are rated in the same transaction the first time they are written
        (bot/core/ratings.py): a result is rated exactly once, whatever stops the process."""
        now = time.time()
        columns = _columns(match)
        # A restored match's state may still be packed: its committed text, not decoded.
        state_json = state_of(match)
        action_json = None if action is None else json.dumps(action, separators=(",", ":"))
        rows = list(results)
        rated = [RatedSeat(ratings.rating_id(r.player_id, r.cpu, r.level), r.name, r.cpu,
                           r.score, r.won) for r in rows]
        finished = match.status in FINISHED
        over = match.status == OVER  # only a game that ended by its rules is rated
        match_id, version, guild_id, game = match.id, match.version, match.guild_id, match.game
        state_version = match.state_version
        engine = self._engines.get(game)
        # A finished game's last state is left out of its archive when its moves replay to
        # it: its engine is known and the state is that engine's current shape.
        keep_state = engine is None or state_version != engine.state_version
        if finished and not keep_state and state_json is not None:
            self._remember_final(match_id, state_json, state_version)

        def update() -> Job[None]:
            if (yield execute(_UPDATE_MATCH, (*columns, now, match_id))) != 1:
                raise StorageError(f"match {match_id} is not in the database")
            if state_json is not None:
                yield execute(_UPSERT_STATE, (match_id, state_json, state_version))
            if action_json is not None:
                yield execute("INSERT INTO actions (match_id, seq, player, action, by_computer,"
                              " at) VALUES (?,?,?,?,?,?)",
                              (match_id, version, player, action_json, int(by_computer), now))
            again = rows and (yield fetch_one("SELECT 1 FROM results WHERE match_id=? LIMIT 1",
                                              (match_id,))) is not None
            finished_at = now
            if rows and not again and over and len(rated) >= 2:
                finished_at, season, standings = yield from _finish_and_lock(guild_id, game,
                                                                             rated)
                yield from _rate_game(match_id, guild_id, game, rated, finished_at, season,
                                      standings)
            for row in rows:
                yield execute(_UPSERT_RESULT,
                              (match_id, guild_id, game, row.player_id, row.name, int(row.cpu),
                               row.score, int(row.won),
                               json.dumps(row.extra, separators=(",", ":")), finished_at))
                if again and not row.cpu:
                    yield from _recount_totals(guild_id, game, row.player_id)
                elif not row.cpu:
                    yield from _add_to_totals(guild_id, game, row.player_id, row.name,
                                              row.score, row.won, row.extra)
            if finished:
                yield from _archive(match_id, keep_state)

        await self.run(update)

    async def get(self, match_id: int) -> Match | None:
        row = await self._backend.fetch_one(
            "SELECT m.*, s.state AS live_state, s.state_version AS live_state_version,"
            " a.state AS archived_state, a.state_version AS archived_state_version"
            " FROM matches m LEFT JOIN match_states s ON s.match_id = m.id"
            " LEFT JOIN archive a ON a.match_id = m.id WHERE m.id=?", (match_id,))
        if row is None:
            return None
        state_text, state_version = row["live_state"], row["live_state_version"]
        if state_text is None and row["archived_state"] is not None:
            state_text = zlib.decompress(row["archived_state"]).decode()
            state_version = row["archived_state_version"]
        elif state_text is None and match_id in self._finals:
            state_text, state_version = self._finals[match_id]
        return _match(row, state_text, state_version)

    # -- finished games: their last state, replayed from their moves ------------------

    def replays(self, engines: Mapping[str, Engine]) -> None:
        """The engines that replay a finished game's moves to its last state (the runtime
        gives its games'). A game of one of them that finishes from now on is archived
        without that state, which ``final_state`` makes again when it is needed."""
        self._engines = dict(engines)

    def _remember_final(self, match_id: int, state_json: str, state_version: int) -> None:
        # The last few finished games' states, so that their final table is drawn without
        # replaying them (it is, just after the last move).
        self._finals[match_id] = (state_json, state_version)
        self._finals.move_to_end(match_id)
        while len(self._finals) > FINALS_KEPT:
            self._finals.popitem(last=False)

    async def final_state(self, match: Match) -> None:
        """Give a finished match read by ``get`` its last state when its archive kept only
        its moves: its start (``engine.new``) and every move replayed, off the event loop
        (tens of milliseconds for a long game). Nothing changes for a match that has its
        state, or whose engine ``replays`` did not give."""
        engine = self._engines.get(match.game)
        if (match.state is not None or engine is None or match.status not in FINISHED
                or match.version < 1):
            return
        actions = await self.actions(match.id) if match.id is not None else []
        state = await asyncio.to_thread(replaying.final_state, engine, match.player_ids,
                                        match.options, match.seed, actions)
        match.state, match.state_version = state, engine.state_version
        if match.id is not None:
            self._remember_final(match.id, json.dumps(state, separators=(",", ":")),
                                 engine.state_version)

    async def unfinished(self, shards: Shards | None = None) -> list[Match]:
        """Every unfinished match, or with ``shards`` only those in servers on its shards
        (another process drives the rest, and must be the only one to)."""
        # The literal list lets SQLite use the partial index (a bound parameter would not);
        # the shard condition then filters the few unfinished rows that index yields.
        owned = "" if shards is None or shards.everything else f" AND {shards.sql('m.guild_id')}"
        sql = ("SELECT m.*, s.state AS live_state, s.state_version AS live_state_version"
               " FROM matches m LEFT JOIN match_states s ON s.match_id = m.id"
               f" WHERE m.status IN ('lobby', 'active'){owned} AND m.id > ?"
               f" ORDER BY m.id LIMIT {_RESTORE_BATCH}")
        matches: list[Match] = []
        # In batches: the text of 10,000 states is 30-40 MB, and read at once it stayed in
        # the process's heap after it was packed. The next batch is read (in the database's
        # thread) while this one is packed (in another): both let go of the GIL.
        rows = await self._backend.fetch_all(sql, (-1,))
        while rows:
            more = len(rows) == _RESTORE_BATCH
            reading = asyncio.ensure_future(
                self._backend.fetch_all(sql, (int(rows[-1]["id"]),))) if more else None
            # States are not decoded here but kept packed until a match is read
            # (bot/core/packed.py): a decoded state is ~18 KB, its packed text ~1 KB.
            matches += await asyncio.to_thread(_restored, rows)
            rows = await reading if reading is not None else []
        # aiosqlite's thread keeps the last result it read until it reads again.
        await self._backend.fetch_one("SELECT 1")
        return matches

    async def actions(self, match_id: int) -> list[tuple[str | None, dict[str, Any]]]:
        rows = await self._backend.fetch_all(
            "SELECT player, action FROM actions WHERE match_id=? ORDER BY seq", (match_id,))
        if rows:
            return [(row["player"], json.loads(row["action"])) for row in rows]
        archived = await self._backend.fetch_one(
            "SELECT actions FROM archive WHERE match_id=?", (match_id,))
        if archived is None:
            return []
        return [(player, action) for _seq, player, action, _cpu, _at
                in decode_log(archived["actions"])]

    async def started_after(self, channel_id: int, match_id: int) -> bool:
        """Whether a game was started in the channel after match ``match_id`` (a lobby that
        never started does not count)."""
        row = await self._backend.fetch_one(
            "SELECT id FROM matches WHERE channel_id=? AND id>? AND version>0 LIMIT 1",
            (channel_id, match_id))
        return row is not None

    async def mark_shown(self, match_id: int, version: int) -> None:
        """The table message now shows ``version`` (only ever moves forward)."""
        def update() -> Job[None]:
            yield execute("UPDATE matches SET table_version=? WHERE id=? AND"
                          " (table_version IS NULL OR table_version < ?)",
                          (version, match_id, version))
        await self.run(update)

    # -- the bot's own small values (e.g. the last synced command tree) -----------------

    async def value(self, key: str) -> str | None:
        row = await self._backend.fetch_one("SELECT value FROM kv WHERE key=?", (key,))
        return None if row is None else str(row["value"])

    async def values_with_prefix(self, prefix: str) -> list[tuple[str, str]]:
        """Every (key, value) whose key starts with ``prefix`` (e.g. all servers' settings)."""
        if self._backend.dialect is POSTGRES:
            rows = await self._backend.fetch_all(
                "SELECT key, value FROM kv WHERE starts_with(key, ?)", (prefix,))
        else:
            # GLOB, not LIKE: the key's "_" or "%" would be wildcards to LIKE.
            pattern = "".join(f"[{c}]" if c in "*?[" else c for c in prefix) + "*"
            try:
                rows = await self._backend.fetch_all(
                    "SELECT key, value FROM kv WHERE key GLOB ?", (pattern,))
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise
        return [(str(r["key"]), str(r["value"])) for r in rows]

    async def set_value(self, key: str, value: str) -> None:
        def upsert() -> Job[None]:
            yield execute("INSERT INTO kv(key, value) VALUES (?, ?)"
                          " ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))
        await self.run(upsert)

    async def delete_values(self, keys: list[str]) -> None:
        def delete() -> Job[None]:
            yield execute_many("DELETE FROM kv WHERE key=?", [(k,) for k in keys])
        if keys:
            await self.run(delete)

    # -- results ----------------------------------------------------------------------

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderboardRow]:
        return (await self.leaderboards(guild_id, [game], limit))[game]

    async def leaderboards(self, guild_id: int, games: list[str],
                           limit: int = 10) -> dict[str, list[LeaderboardRow]]:
        """The top ``limit`` of each game in one read (``/stats`` shows four games at once),
        at most ``limit`` rows a game through the board index: a small read."""
        boards: dict[str, list[LeaderboardRow]] = {game: [] for game in games}
        if not games:
            return boards
        rows = await self._backend.fetch_small(
            "SELECT game, player_id, name, games, wins, best, extra FROM ("
            " SELECT *, ROW_NUMBER() OVER (PARTITION BY game"
            "  ORDER BY wins DESC, best DESC, games DESC) AS place"
            " FROM player_totals WHERE guild_id=? AND game IN"
            f" ({', '.join('?' * len(games))})) AS ranked"
            " WHERE place <= ? ORDER BY game, place",
            (guild_id, *games, limit),
        )
        for r in rows:
            boards[r["game"]].append(LeaderboardRow(r["player_id"], r["name"], r["games"],
                                                    r["wins"], r["best"],
                                                    json.loads(r["extra"])))
        return boards


    # -- ratings (bot/core/ratings.py, docs/ratings.md) --------------------------------

    async def season(self, guild_id: int) -> int:
        """The server's current rating season (1 until ``/settings ratings reset``)."""
        row = await self._backend.fetch_small(
            "SELECT MAX(season) AS season FROM rating_seasons WHERE guild_id=?", (guild_id,))
        return 1 if not row or row[0]["season"] is None else int(row[0]["season"])

    async def new_season(self, guild_id: int) -> int:
        """Start the server's next rating season now; returns its number. Earlier seasons'
        ratings and changes stay as they were (read them with ``season=``)."""
        return await self.run(lambda: _new_season(guild_id))

    async def rating_boards(self, guild_id: int, games: list[str], limit: int = 10,
                            season: int | None = None) -> dict[str, list[RatingRow]]:
        """Each game's top ``limit`` by rating in ``season`` (the current one by default),
        with each person's totals beside: one read, at most ``limit`` index rows a game."""
        boards: dict[str, list[RatingRow]] = {game: [] for game in games}
        if not games:
            return boards
        which = ("(SELECT COALESCE(MAX(season), 1) FROM rating_seasons WHERE guild_id=?)"
                 if season is None else "?")
        part = ("SELECT * FROM (SELECT r.game, r.player_id, r.name, r.cpu, r.rating,"
                " r.games AS rated, t.games, t.wins, t.best, t.extra, r.season FROM ratings r"
                " LEFT JOIN player_totals t ON t.guild_id = r.guild_id AND t.game = r.game"
                " AND t.player_id = r.player_id"
                f" WHERE r.guild_id=? AND r.game=? AND r.season={which}"
                " ORDER BY r.rating DESC, r.player_id LIMIT ?) AS g")
        args: list[Any] = []
        for game in games:
            args += [guild_id, game, guild_id if season is None else season, limit]
        rows = await self._backend.fetch_small(" UNION ALL ".join([part] * len(games)), args)
        for r in rows:
            boards[r["game"]].append(RatingRow(
                r["player_id"], r["name"], bool(r["cpu"]), r["rating"], r["rated"],
                r["games"] or 0, r["wins"] or 0, r["best"] or 0,
                None if r["extra"] is None else json.loads(r["extra"]), r["season"]))
        for board in boards.values():
            board.sort(key=lambda row: (-row.rating, row.player_id))
        return boards

    async def ratings_of(self, guild_id: int, player_id: str,
                         season: int | None = None) -> dict[str, RatingRow]:
        """A player's rating in each game they were rated in this ``season`` (the current
        one by default), with their totals; ``player_id`` may be "cpu:<level>"."""
        season = await self.season(guild_id) if season is None else season
        rows = await self._backend.fetch_small(
            "SELECT r.game, r.player_id, r.name, r.cpu, r.rating, r.games AS rated, t.games,"
            " t.wins, t.best, t.extra, r.season FROM ratings r LEFT JOIN player_totals t"
            " ON t.guild_id = r.guild_id AND t.game = r.game AND t.player_id = r.player_id"
            " WHERE r.guild_id=? AND r.season=? AND r.player_id=?",
            (guild_id, season, player_id))
        return {r["game"]: RatingRow(r["player_id"], r["name"], bool(r["cpu"]), r["rating"],
                                     r["rated"], r["games"] or 0, r["wins"] or 0,
                                     r["best"] or 0,
                                     None if r["extra"] is None else json.loads(r["extra"]),
                                     r["season"])
                for r in rows}

    async def rating_history(self, guild_id: int, player_id: str, game: str | None = None,
                             season: int | None = None,
                             limit: int = 200) -> list[RatingChange]:
        """A player's last ``limit`` rating changes in the server, oldest first (a line
        chart's points), of one game and/or season or of all (through the player's index)."""
        where, args = "guild_id=? AND player_id=?", [guild_id, player_id]
        if game is not None:
            where, args = where + " AND game=?", [*args, game]
        if season is not None:
            where, args = where + " AND season=?", [*args, season]
        rows = await self._backend.fetch_small(
            "SELECT match_id, player_id, game, season, place, before, rating, finished_at"
            f" FROM rating_changes WHERE {where} ORDER BY finished_at DESC LIMIT ?",
            (*args, limit))
        return [_change(r) for r in reversed(rows)]

    async def match_ratings(self, match_id: int) -> list[RatingChange]:
        """What a finished game did to each rated player's rating (none if it was not
        rated), best place first; a computer level appears once however many seats it had."""
        rows = await self._backend.fetch_small(
            "SELECT match_id, player_id, game, season, place, before, rating, finished_at"
            " FROM rating_changes WHERE match_id=? ORDER BY place, player_id", (match_id,))
        return [_change(r) for r in rows]

    async def rebuild_ratings(self) -> dict[str, int]:
        """Compute every rating again from the stored results, in the order the games
        finished, and write them anew, in one transaction. Returns {"games": games rated,
        "ratings": ratings that differed, "changes": rating changes that differed}."""
        return await self.run(_rebuild_ratings)

    async def forget(self, user_id: str) -> Forgotten:
        """Delete a member's results, totals, ratings, rating changes and their own values
        (/notify), and put "Forgotten player" and a placeholder id in their seats in stored
        games, in one transaction. Refused (``unfinished`` non-empty, nothing changed) while
        they sit in an unfinished game. Others' ratings are left as they are."""
        return await self.run(lambda: _forget(user_id))


# Unfinished matches read at a time at start (Storage.unfinished).
_RESTORE_BATCH = 1000


def _change(r: Any) -> RatingChange:
    return RatingChange(int(r["match_id"]), r["player_id"], r["game"], r["season"],
                        r["place"], r["before"], r["rating"], r["finished_at"])


def _columns(match: Match) -> tuple[Any, ...]:
    return (
        match.guild_id,
        match.channel_id,
        match.game,
        match.status,
        match.host_id,
        json.dumps([s.to_json() for s in match.seats]),
        json.dumps(match.options),
        match.seed,
        None,  # the state is kept in match_states (or, finished, in archive)
        match.version,
        match.table_message_id,
        match.turn_started_at,
        json.dumps(match.extra),
    )


def _restored(rows: list[Any]) -> list[PackedMatch]:
    return [_match(row, row["live_state"], row["live_state_version"], packed=True)
            for row in rows]


def _match(row: Any, state_text: str | None, state_version: int | None, *,
           packed: bool = False) -> PackedMatch:
    fields = dict(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        game=sys.intern(row["game"]),  # one string each, not one per match
        status=sys.intern(row["status"]),
        host_id=row["host_id"],
        seats=[Seat.from_json(s) for s in json.loads(row["seats"])],
        options=json.loads(row["options"]),
        seed=row["seed"],
        state_version=state_version or 1,
        version=row["version"],
        table_message_id=row["table_message_id"],
        turn_started_at=row["turn_started_at"],
        table_version=row["table_version"],
        created_at=row["created_at"],
        extra=json.loads(row["extra"]),
    )
    if packed:
        return PackedMatch.restored(state_text, **fields)
    return PackedMatch(state=None if state_text is None else json.loads(state_text), **fields)
