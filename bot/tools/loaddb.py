"""Where the load test's bot keeps its data (``--database``): the SQLite file in the work
folder (the default, as an admin runs one process), a PostgreSQL server at a URL, or
``pgserver``: a throwaway PostgreSQL 16 from the pgserver wheel, started in a temporary
folder for the run, so the PostgreSQL figures can be reproduced with no server installed.

The throwaway server keeps PostgreSQL's own durability defaults (fsync, full page writes,
synchronous commit): the test suite's server skips them, a load test must not, or its
figures would not pay for the flush each committed move costs on a real server.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from bot.tools import procs

SQLITE_FILE = "cityhall.sqlite3"

# Every Cityhall table in the bot's schema with its indexes and TOAST data: what the
# database's rows take on disk, without PostgreSQL's own catalog (pg_database_size's
# fixed ~7 MB) that does not grow with games.
TABLES_BYTES = ("SELECT c.relname, pg_total_relation_size(c.oid)::bigint AS bytes"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema()")


class LoadDatabase:
    """The database of one load-test run."""

    def __init__(self, work: Path, spec: str | None) -> None:
        self.spec = spec or "sqlite"
        self.server: Any = None  # bot.tools.pgserver.PgServer, for --database pgserver
        self.path: Path | None = None
        self.url: str | None = None
        if self.spec == "sqlite":
            self.path = work / SQLITE_FILE
        elif self.spec == "pgserver":
            pass  # started by open()
        elif self.spec.startswith(("postgresql://", "postgres://")):
            self.url = self.spec
        else:
            raise ValueError(f"--database: {self.spec!r} is neither sqlite, pgserver nor a "
                             "postgresql:// URL")

    @property
    def postgres(self) -> bool:
        return self.path is None

    @property
    def target(self) -> str | Path:
        """What bot.core.storage.Storage.open takes."""
        if self.path is not None:
            return self.path
        assert self.url is not None
        return self.url

    def label(self) -> str:
        if self.path is not None:
            return "SQLite file"
        if self.server is not None:
            return "PostgreSQL (throwaway pgserver, fsync on)"
        return "PostgreSQL at the given URL"

    async def open(self) -> None:
        """Start the throwaway server, or make sure the given one is empty: the run writes
        thousands of games and counts what it finds, so it will not mix with real data."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            return
        if self.spec == "pgserver":
            from bot.tools.pgserver import PgServer, binaries

            package = binaries()
            if package is None:
                raise SystemExit("--database pgserver needs the pgserver wheel, which ships "
                                 "PostgreSQL's binaries: pip install -e '.[dev]'")
            self.server = PgServer(package, durable=True)
            self.server.start()
            self.url = self.server.create_database("cityhall")
            return
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            found = await conn.fetchval(
                "SELECT count(*) FROM information_schema.tables"
                " WHERE table_schema = current_schema() AND table_name = 'matches'")
            if found and await conn.fetchval("SELECT count(*) FROM matches"):
                raise SystemExit("--database: that database already holds matches; the load "
                                 "test needs an empty one (CREATE DATABASE cityhall_load).")
        finally:
            await conn.close()

    def env(self) -> dict[str, str]:
        """What the bot process is started with."""
        if self.path is not None:
            return {"DATABASE_PATH": str(self.path)}
        assert self.url is not None
        return {"DATABASE_URL": self.url}

    async def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "postgresql" if self.postgres else "sqlite",
                               "label": self.label()}
        if self.url is not None:
            import asyncpg

            conn = await asyncpg.connect(self.url)
            try:
                out["server_version"] = await conn.fetchval("SHOW server_version")
                out["fsync"] = await conn.fetchval("SHOW fsync")
                out["synchronous_commit"] = await conn.fetchval("SHOW synchronous_commit")
            finally:
                await conn.close()
        return out

    async def size(self) -> tuple[int, dict[str, Any]]:
        """Bytes the data takes, for growth per game, and what was measured. SQLite: the
        pages in use (not on the free list) after folding the WAL in. PostgreSQL: pg_total_relation_size summed over
        Cityhall's tables (indexes and TOAST included), with pg_database_size beside."""
        if self.path is not None:
            import asyncio

            sizes = await asyncio.to_thread(procs.database_bytes, self.path, checkpoint=True)
            return sizes["in_use"], sizes
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            each = {r["relname"]: int(r["bytes"]) for r in await conn.fetch(TABLES_BYTES)}
            whole = int(await conn.fetchval("SELECT pg_database_size(current_database())"))
        finally:
            await conn.close()
        tables = sum(each.values())
        return tables, {"tables": tables, "database": whole, "per_table": each}

    def growth_measure(self) -> str:
        if self.path is not None:
            return "SQLite pages in use (file less its free list), WAL checkpointed"
        return "pg_total_relation_size over Cityhall's tables"

    def server_pids(self) -> list[int]:
        """The throwaway server's processes (none for SQLite or a server elsewhere)."""
        return [] if self.server is None else list(self.server.pids())

    def close(self, keep: Path | None = None) -> None:
        if self.server is not None:
            if keep is not None:
                # the server's log stays with the bot logs for a look afterwards
                shutil.copy(self.server.log, keep / "postgres.log")
            self.server.close()
            self.server = None
