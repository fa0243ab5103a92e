"""SQLite persistence: matches, their action log and final results.

Every accepted action is written with the new state in one transaction before anybody is
told about it, so a killed process loses nothing that a player saw accepted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from .records import UNFINISHED, Match, Seat

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    host_id TEXT NOT NULL,
    seats TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    state TEXT,
    version INTEGER NOT NULL DEFAULT 0,
    table_message_id INTEGER,
    turn_started_at REAL,
    extra TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
-- one unfinished match per channel or thread, whatever the game
CREATE UNIQUE INDEX IF NOT EXISTS one_match_per_channel
    ON matches(channel_id) WHERE status IN ('lobby', 'active');
CREATE TABLE IF NOT EXISTS actions (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    player TEXT,
    action TEXT NOT NULL,
    by_computer INTEGER NOT NULL DEFAULT 0,
    at REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    cpu INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won INTEGER NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    finished_at REAL NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
CREATE INDEX IF NOT EXISTS results_by_guild ON results(guild_id, game);
"""


class ChannelBusy(Exception):
    """The channel already has an unfinished match (the unique index said so)."""


@dataclass(frozen=True)
class LeaderboardRow:
    player_id: str
    name: str
    games: int
    wins: int
    best: int


@dataclass(frozen=True)
class ResultRow:
    player_id: str
    name: str
    cpu: bool
    score: int
    won: bool
    extra: dict[str, Any]


class Storage:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    @classmethod
    async def open(cls, path: str | Path) -> Storage:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(path))
        db.row_factory = aiosqlite.Row
        # WAL keeps readers off the writer's back; FULL sync makes a commit survive a
        # killed process and a power cut alike, at a cost a board game never notices.
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA synchronous=FULL")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.executescript(SCHEMA)
        await db.commit()
        return cls(db)

    async def close(self) -> None:
        await self._db.close()

    # -- matches ----------------------------------------------------------------------

    async def create_match(self, match: Match) -> Match:
        now = time.time()
        try:
            cursor = await self._db.execute(
                "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats,"
                " options, seed, state, version, table_message_id, turn_started_at, extra,"
                " created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (*_columns(match), now, now),
            )
        except aiosqlite.IntegrityError as exc:
            await self._db.rollback()
            raise ChannelBusy from exc
        await self._db.commit()
        assert cursor.lastrowid is not None
        match.id = cursor.lastrowid
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
        """Write the match (and the action that led to it, and final results) atomically."""
        now = time.time()
        await self._db.execute(
            "UPDATE matches SET guild_id=?, channel_id=?, game=?, status=?, host_id=?,"
            " seats=?, options=?, seed=?, state=?, version=?, table_message_id=?,"
            " turn_started_at=?, extra=?, updated_at=? WHERE id=?",
            (*_columns(match), now, match.id),
        )
        if action is not None:
            await self._db.execute(
                "INSERT INTO actions (match_id, seq, player, action, by_computer, at)"
                " VALUES (?,?,?,?,?,?)",
                (match.id, match.version, player, json.dumps(action), int(by_computer), now),
            )
        for row in results:
            await self._db.execute(
                "INSERT OR REPLACE INTO results (match_id, guild_id, game, player_id, name,"
                " cpu, score, won, extra, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (match.id, match.guild_id, match.game, row.player_id, row.name, int(row.cpu),
                 row.score, int(row.won), json.dumps(row.extra), now),
            )
        await self._db.commit()

    async def get(self, match_id: int) -> Match | None:
        async with self._db.execute("SELECT * FROM matches WHERE id=?", (match_id,)) as cur:
            row = await cur.fetchone()
        return _match(row) if row else None

    async def unfinished(self) -> list[Match]:
        marks = ",".join("?" * len(UNFINISHED))
        async with self._db.execute(
            f"SELECT * FROM matches WHERE status IN ({marks}) ORDER BY id", UNFINISHED
        ) as cur:
            return [_match(row) for row in await cur.fetchall()]

    async def actions(self, match_id: int) -> list[tuple[str | None, dict[str, Any]]]:
        async with self._db.execute(
            "SELECT player, action FROM actions WHERE match_id=? ORDER BY seq", (match_id,)
        ) as cur:
            return [(row["player"], json.loads(row["action"])) for row in await cur.fetchall()]

    # -- results ----------------------------------------------------------------------

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderboardRow]:
        async with self._db.execute(
            "SELECT player_id, MAX(name) AS name, COUNT(*) AS games, SUM(won) AS wins,"
            " MAX(score) AS best FROM results WHERE guild_id=? AND game=? AND cpu=0"
            " GROUP BY player_id ORDER BY wins DESC, best DESC, games DESC LIMIT ?",
            (guild_id, game, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [
            LeaderboardRow(r["player_id"], r["name"], r["games"], r["wins"], r["best"])
            for r in rows
        ]

    async def extra_totals(self, guild_id: int, game: str) -> dict[str, dict[str, int]]:
        """Per player, the sum of each number a game keeps in its results' ``extra``
        (Big Cityz: objections raised and how many were justified)."""
        totals: dict[str, dict[str, int]] = {}
        async with self._db.execute(
            "SELECT player_id, extra FROM results WHERE guild_id=? AND game=? AND cpu=0",
            (guild_id, game),
        ) as cur:
            for row in await cur.fetchall():
                mine = totals.setdefault(row["player_id"], {})
                for key, value in json.loads(row["extra"]).items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        mine[key] = mine.get(key, 0) + value
        return totals


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
        None if match.state is None else json.dumps(match.state, separators=(",", ":")),
        match.version,
        match.table_message_id,
        match.turn_started_at,
        json.dumps(match.extra),
    )


def _match(row: aiosqlite.Row) -> Match:
    return Match(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        game=row["game"],
        status=row["status"],
        host_id=row["host_id"],
        seats=[Seat.from_json(s) for s in json.loads(row["seats"])],
        options=json.loads(row["options"]),
        seed=row["seed"],
        state=None if row["state"] is None else json.loads(row["state"]),
        version=row["version"],
        table_message_id=row["table_message_id"],
        turn_started_at=row["turn_started_at"],
        created_at=row["created_at"],
        extra=json.loads(row["extra"]),
    )
