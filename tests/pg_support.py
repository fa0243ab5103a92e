"""A throwaway PostgreSQL server for the tests, from the ``pgserver`` wheel's binaries.

One server per test session (``initdb`` in a temporary folder, ``postgres`` on a free port
of 127.0.0.1), one fresh database per test. Nothing is installed by hand: the wheel ships
PostgreSQL 16. The server runs without fsync: a test stops the server, never the machine,
and a stopped server keeps what it committed in the operating system's cache.

PostgreSQL refuses to run as root; as root (CI, containers) the server runs as ``nobody``
from a copy of the binaries in a folder that user can reach.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg


def binaries() -> Path | None:
    """The pgserver wheel's package folder (``pginstall/`` inside it), or None without the
    wheel. Found, not imported: importing it sets up pgserver's own server manager."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgServer:
    def __init__(self, package: Path) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="cityhall-pg-"))
        self.as_user: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            self.as_user = pwd.getpwnam("nobody")
            self.root.chmod(0o755)
            # The temporary folder is reachable by anyone, wherever the checkout is. The
            # binaries find their libraries at ../../../pgserver.libs: keep that layout.
            copy = self.root / "pg" / "pgserver"
            shutil.copytree(package / "pginstall", copy / "pginstall", symlinks=True)
            shutil.copytree(package.parent / "pgserver.libs", copy.parent / "pgserver.libs")
            package = copy
        self.bin = package / "pginstall" / "bin"
        self.data = self.root / "data"
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._names = itertools.count(1)
        # A database the bot's migrations have already run on; see create_database.
        self.template: str | None = None
        # Migrated databases a finished test gave back emptied (give_back), to hand out again.
        self._spare: list[str] = []
        self.log = self.root / "postgres.log"
        self._initdb()

    def _user_kwargs(self) -> dict[str, Any]:
        if self.as_user is None:
            return {}
        return {"user": self.as_user.pw_uid, "group": self.as_user.pw_gid}

    def _initdb(self) -> None:
        self.data.mkdir()
        if self.as_user is not None:
            os.chown(self.data, self.as_user.pw_uid, self.as_user.pw_gid)
            self.log.touch()
            os.chown(self.log, self.as_user.pw_uid, self.as_user.pw_gid)
        subprocess.run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                        "--auth=trust", "--encoding=UTF8", "--no-sync", "--no-instructions"],
                       check=True, capture_output=True, **self._user_kwargs())

    def start(self) -> None:
        assert self.process is None
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
                 "-h", "127.0.0.1", "-k", str(self.data), "-c", "fsync=off",
                 "-c", "full_page_writes=off", "-c", "max_connections=200"],
                stdout=log, stderr=subprocess.STDOUT, **self._user_kwargs())
        deadline = time.monotonic() + 30
        while True:
            ready = subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p",
                                    str(self.port), "-U", "postgres"], capture_output=True)
            if ready.returncode == 0:
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the test PostgreSQL server did not start:\n"
                                   f"{self.log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)

    def stop(self, *, crash: bool = False) -> None:
        """Stop the server: fast shutdown, or as after a crash (SIGQUIT: no checkpoint; the
        next start replays the WAL)."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGQUIT if crash else signal.SIGINT)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, *, migrated: bool = False) -> str:
        """A new database; its URL. Empty, or (``migrated``) a copy of the template the
        bot's schema was made in once (make_template): copying a template is a file copy on
        the server, cheaper than running every migration again for each test. A migrated
        database an earlier test gave back emptied is cheaper still: it is handed out
        first."""
        if migrated and self._spare:
            return self.url(self._spare.pop())
        name = f"test_{next(self._names)}"
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
        self._spare.append(name)

    def close(self) -> None:
        # Its data is thrown away: no shutdown checkpoint to wait for.
        self.stop(crash=True)
        shutil.rmtree(self.root, ignore_errors=True)
