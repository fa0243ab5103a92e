"""The tests' throwaway PostgreSQL server: one per test session. The server itself lives in
bot/tools/pgserver.py, which the load test shares; the tests add a migrated template
database, copied for each test, and reuse of a finished test's database, emptied."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import asyncpg

from bot.tools.pgserver import PgServer as _Server
from bot.tools.pgserver import binaries

__all__ = ["PgServer", "binaries"]


class PgServer(_Server):
    def __init__(self, package: Path, *, durable: bool = False) -> None:
        super().__init__(package, durable=durable)
        # A database the bot's migrations have already run on; see create_database.
        self.template: str | None = None
        # Migrated databases a finished test gave back emptied (give_back), to hand out again,
        # by the process that gave them back: a forked copy of this object (mutmut's
        # workers, see tests/conftest.py's KEEP_SERVER) must not hand out its parent's.
        self._spare: dict[int, list[str]] = {}
        # Every database made, by process: a forked worker drops its own when it ends.
        self.made: dict[int, list[str]] = {}

    def create_database(self, name: str | None = None, *,
                        migrated: bool = False) -> str:
        """A new database; its URL. Empty, or (``migrated``) a copy of the template the
        bot's schema was made in once (make_template): copying a template is a file copy on
        the server, cheaper than running every migration again for each test. A migrated
        database an earlier test gave back emptied is cheaper still: it is handed out
        first."""
        spare = self._spare.get(os.getpid())
        if migrated and spare:
            return self.url(spare.pop())
        # The process id in the name keeps forked workers sharing the server apart.
        name = name or f"test_{os.getpid()}_{next(self._names)}"
        self.made.setdefault(os.getpid(), []).append(name)
        sql = f"CREATE DATABASE {name}"
        if migrated:
            assert self.template is not None, "make_template() first"
            # FILE_COPY copies the template's files after a checkpoint (cheap without fsync);
            # the default, WAL_LOG, writes every page to the WAL: twice as slow here.
            sql += f" TEMPLATE {self.template} STRATEGY FILE_COPY"
        self._psql(sql)
        return self.url(name)

    def _psql(self, sql: str) -> None:
        subprocess.run([str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port),
                        "-U", "postgres", "-q", "-c", sql], check=True, capture_output=True)

    async def make_template(self) -> None:
        """Make the template once per session: an empty database the bot has opened (and so
        migrated) and closed again; PostgreSQL copies a template only while no one is
        connected to it."""
        if self.template is not None:
            return
        from bot.core.storage import Storage

        name = "cityhall_template"
        self._psql(f"CREATE DATABASE {name}")
        storage = await Storage.open(self.url(name))
        await storage.close()
        # give_back empties a database to reuse it: right only while a migrated database
        # holds no rows but its schema version.
        conn = await asyncpg.connect(self.url(name))
        try:
            for (table,) in await conn.fetch(
                    "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public'"
                    " AND tablename <> 'cityhall_schema'"):
                assert await conn.fetchval(f"SELECT count(*) FROM {table}") == 0, \
                    f"the migrations put rows in {table}: tests/pg_support.py's give_back " \
                    "must keep them"
        finally:
            await conn.close()
        self.template = name

    async def give_back(self, url: str) -> None:
        """A finished test's migrated database, emptied for the next test: as fresh as a
        new copy of the template (no rows, identities from 1) for a tenth of the time
        (CREATE DATABASE checkpoints the server and copies some 7 MB of catalog files; the
        run's databases would fill gigabytes of the temporary folder). A database that
        cannot be emptied, or whose schema the test changed, is left alone, never reused."""
        from bot.core.storage import SCHEMA_VERSION

        name = url.rsplit("/", 1)[1]
        if self.process is None or not name.startswith("test_"):
            return
        try:
            conn = await asyncpg.connect(url, timeout=10)
        except (OSError, asyncpg.PostgresError):
            return
        try:
            # Whatever the test left connected (a bot it never stopped) holds locks that
            # TRUNCATE would wait for; the test is over, so they go.
            await conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                               " WHERE datname = $1 AND pid <> pg_backend_pid()", name)
            if await conn.fetchval("SELECT version FROM cityhall_schema") != SCHEMA_VERSION:
                return
            tables = [row[0] for row in await conn.fetch(
                "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public'"
                " AND tablename <> 'cityhall_schema'")]
            sequences = [row[0] for row in await conn.fetch(
                "SELECT quote_ident(sequencename) FROM pg_sequences"
                " WHERE schemaname = 'public'")]
            # DELETE, not TRUNCATE: a test leaves a few rows, and TRUNCATE makes new files
            # for every table and index (twenty times slower). Replica mode skips the
            # foreign keys' checks, so the order of the tables does not matter.
            await conn.execute(
                "SET lock_timeout = '5s'; SET session_replication_role = replica;"
                + "".join(f"DELETE FROM {table};" for table in tables)
                + "".join(f"ALTER SEQUENCE {seq} RESTART;" for seq in sequences))
        except (OSError, asyncpg.PostgresError):
            return
        finally:
            await conn.close()
        self._spare.setdefault(os.getpid(), []).append(name)

    def drop_own_databases(self) -> None:
        """Drop every database this process made: a forked worker's, when its session ends,
        so that a run of thousands of sessions on one server does not fill the disk."""
        for name in self.made.pop(os.getpid(), []):
            self._psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self._spare.pop(os.getpid(), None)

