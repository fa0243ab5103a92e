from __future__ import annotations

import asyncio
import atexit
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from fakediscord import FakeDiscord
from tests import databases, time_limits
from tests.pg_support import PgServer, binaries

pytest_plugins = ["fakediscord.pytest_plugin"]

_exit_status: int | None = None
# How many times slower than CI's idle machine this one computes (time_limits.machine_speed,
# measured in pytest_configure): every test's limit is stretched by it.
_machine_speed = 1.0


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """The test's limit, stretched on a slow or busy machine (tests/time_limits.py); when
    it runs out, the test's name, the limit and every thread's and task's stack are said
    before anything is torn down, and the run ends."""
    if settings.method != "thread":
        return None

    def expired(elapsed: float, stretch: float) -> None:
        time_limits.report_and_end_run(item, limit, elapsed, stretch, _close_pg_servers)

    limit = time_limits.Limit(settings.timeout, _machine_speed, expired, name=item.nodeid)
    item.cancel_timeout = limit.cancel  # type: ignore[attr-defined]  # pytest-timeout's protocol
    return True


def _close_pg_servers() -> None:
    for server in list(_pg_servers):
        if _pg_start is None or _pg_start.owner == os.getpid():  # not a fork's to close
            server.close()


@pytest.fixture(autouse=True)
def _no_processes_left_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that leaves a bot, a render worker or a database server running fails with
    its name (they are ended, so they cannot disturb the tests after it). Set up before the
    test's own fixtures and so torn down after them. The session's PostgreSQL server and
    whatever starts it are the run's, not the test's."""
    before = set(time_limits.descendants())
    yield
    deadline = time.monotonic() + 5 * _machine_speed
    while True:
        running = time_limits.descendants()
        left = {pid: process.command for pid, process in running.items()
                if pid not in before and not _the_runs_own(pid, running)}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)  # a process told to stop may still be on its way out
    if left:
        time_limits.end_processes(list(left))
        listed = "; ".join(f"{pid}: {command[:200]}" for pid, command in sorted(left.items()))
        pytest.fail(f"{request.node.nodeid} left {len(left)} process(es) running: {listed}",
                    pytrace=False)


def _the_runs_own(pid: int, running: dict[int, time_limits.Process]) -> bool:
    """The session's PostgreSQL server or one of its processes, or a step of its start;
    multiprocessing's helper, which some library started and which lives as long as the run."""
    if "multiprocessing.resource_tracker" in running[pid].command:
        return True
    if (_pg_start is not None and _pg_start.thread.is_alive()
            and "/pginstall/bin/" in running[pid].command):
        return True
    servers = {server.process.pid for server in _pg_servers if server.process is not None}
    while pid in running:
        if pid in servers:
            return True
        pid = running[pid].parent
    return False


_pg_servers: list[PgServer] = []

# CITYHALL_TEST_PG_KEEP=1 (make mutation): one PostgreSQL server for the life of the process,
# not of one test session. mutmut runs pytest once in its own process and then once per
# mutant in a fork of it; a server per session would cost each mutant seconds of initdb.
# The forks share the first session's server, each with databases named by its process id,
# and drop theirs when their session ends; the server ends with the process that started it.
# Also on without the variable when pytest runs inside mutmut (`mutmut run` by hand).
KEEP_SERVER = os.environ.get("CITYHALL_TEST_PG_KEEP") == "1" or "mutmut" in sys.modules


class _ServerStart:
    """The session's PostgreSQL server being set up in a thread from the end of collection
    on: initdb, start and the migrated template take some four seconds (three times that
    on a loaded machine), which would otherwise all fall within the time limit of
    whichever PostgreSQL test runs first, while the tests before it run on."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.closes_at_exit = False  # KEEP_SERVER
        self.server: PgServer | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="pg-server-start", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            package = binaries()
            assert package is not None
            server = PgServer(package)
            _pg_servers.append(server)
            server.start()
            asyncio.run(server.make_template())
            self.server = server
        except BaseException as exc:  # said by the first test that needs the server
            self.error = exc

    def result(self) -> PgServer:
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.server is not None
        return self.server


_pg_start: _ServerStart | None = None


def _needs_postgresql(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    on_pg = callspec is not None and "postgresql" in callspec.params.values()
    return on_pg or "pg_server" in getattr(item, "fixturenames", ())


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throwaway PostgreSQL server for the whole run, started as soon as the run is
    known to need it (_ServerStart), or else on first use; each test takes a database of
    its own on it. It is removed when the session ends (pytest_sessionfinish), not in the
    teardown of whichever test ran last, whose time limit that would eat into."""
    if binaries() is None:
        pytest.skip("the pgserver wheel is not installed (pip install -e '.[dev]')")
    global _pg_start
    if _pg_start is None:
        _pg_start = _ServerStart()
    yield _pg_start.result()


@pytest.fixture
async def ann(fake_discord: FakeDiscord) -> dict[str, Any]:
    """Ann, a member of the fake guild: in the Discord tests she opens the table."""
    return await fake_discord.add_member("Ann")


@pytest.fixture
async def bob(fake_discord: FakeDiscord, ann: dict[str, Any]) -> dict[str, Any]:
    """Bob, a member of the fake guild who joins Ann's table (added after her, as the tests
    that seat them in id order expect)."""
    return await fake_discord.add_member("Bob")


@pytest.fixture
async def eve(fake_discord: FakeDiscord, bob: dict[str, Any]) -> dict[str, Any]:
    """Eve, a member added after Ann and Bob: in whole games she watches, and clicks what
    isn't hers."""
    return await fake_discord.add_member("Eve")


@pytest.fixture
def no_crowds(monkeypatch: pytest.MonkeyPatch) -> None:
    """No click is in a crowd: on a busy machine a click can wait past ``CROWD_WAIT`` for
    the loop, and is then answered in one request and carries no table edits
    (bot/ui/tablehooks.py), which a test of those edits cannot do without (CI: an edit
    failed on a click's token went through the channel and never met the failure)."""
    from bot.ui import play

    monkeypatch.setattr(play, "CROWD_WAIT", 30.0)


@pytest.fixture(params=databases.BACKENDS)
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """Runs the test once on SQLite and once on PostgreSQL: the bot, runtime or storage the
    test opens by an SQLite path (tests/databases.py's ``target``) is, on PostgreSQL, a fresh
    migrated database of its own on the session's server."""
    if request.param == "sqlite":
        yield "sqlite"
        return
    server: PgServer = request.getfixturevalue("pg_server")
    given = databases.PgDatabases(lambda: server.create_database(migrated=True))
    databases.use(given)
    try:
        yield "postgresql"
    finally:
        databases.use(None)
        # This teardown runs after the test's own fixtures have closed its bot and storage.
        for url in given.made:
            await server.give_back(url)


def pytest_configure(config: pytest.Config) -> None:
    global _machine_speed
    _check_groups(config)
    _machine_speed = time_limits.machine_speed()
    config.addinivalue_line(
        "markers", "long: a heavy variant (every seed, a full-size load test) that `make "
                   "test-long` runs and `make test` leaves out")
    config.addinivalue_line(
        "markers", "sqlite_only(reason): a test about SQLite itself (its file, locks, WAL); "
                   "not run on PostgreSQL")
    config.addinivalue_line(
        "markers", "one_database(reason): a whole game whose subject (the channel, the "
                   "game's flow) does not depend on the database: run on SQLite only; the "
                   "same flows with restarts run on PostgreSQL in the tests the reason names")


# The longest modules start first, so that in a parallel run (make test) no worker is still
# on one of them when the others have finished: the order within a module is kept.
FIRST = ("test_loadtest", "test_process_games", "test_discord_cities", "test_shards_processes",
         "test_whole_games_channel", "test_channel_tidy", "test_discord_bigcity",
         "test_discord_bigcityz", "test_process", "test_render_cache", "test_discord_faults")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (make test): a worker per core and two more. A third of the suite's time is
    waiting (Discord's rate-limit windows, turn timers, bot processes starting), which a
    worker per core leaves idle. On CI's 2 cores, with 1,433 tests: 3 workers 7.7 minutes,
    2 workers 10.1; with 1,763 tests: 4 workers 8 min 52 s, 3 workers 9 min 50 s, every test
    passing each way."""
    return (os.cpu_count() or 1) + 2


def _module_rank(item: pytest.Item) -> int:
    name = item.nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
    return FIRST.index(name) if name in FIRST else len(FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test about SQLite itself is not collected for PostgreSQL: dropped here rather than
    skipped, so the run's summary does not fill with skips that say nothing. The longest
    modules go first (FIRST)."""
    items.sort(key=_module_rank)
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_pg = callspec is not None and callspec.params.get("backend") == "postgresql"
        one = item.get_closest_marker("sqlite_only") or item.get_closest_marker("one_database")
        (drop if on_pg and one else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _check_groups(config: pytest.Config) -> None:
    """``--dist loadgroup`` groups tests by an ``@group`` suffix that each worker writes
    into the ids of the tests marked ``xdist_group`` (``Node._nodeid``). A pytest that keeps
    its ids elsewhere (9.2, with xdist 3.8: pytest-xdist#1386) spreads a group over every
    worker, and each worker makes the group's module fixtures again (the load test's two
    reports: 150 s more), with nothing failing: refuse to run instead."""
    from _pytest.nodes import Node

    if config.getoption("dist", None) == "loadgroup" and "_nodeid" not in Node.__slots__:
        raise pytest.UsageError(
            "this pytest ignores xdist_group with pytest-xdist (pytest-xdist#1386): "
            "install the versions in requirements-dev.txt (make test does)")


def pytest_collection_finish(session: pytest.Session) -> None:
    """The tests to run are known (-k and the rest applied): start the server now if any of
    them needs it."""
    global _pg_start
    if (_pg_start is None and not session.config.option.collectonly
            and binaries() is not None and any(map(_needs_postgresql, session.items))):
        _pg_start = _ServerStart()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _exit_status, _pg_start
    _exit_status = int(exitstatus)
    if _pg_start is not None:
        _pg_start.thread.join()  # a server still starting would be left behind
    if KEEP_SERVER and _pg_start is not None and _pg_start.server is not None:
        if _pg_start.owner == os.getpid():
            if not _pg_start.closes_at_exit:
                atexit.register(_close_pg_servers)
                _pg_start.closes_at_exit = True
        else:
            _pg_start.server.drop_own_databases()  # a fork's; the server is its parent's
        return
    _pg_start = None  # a second session in this process (pytest.main again) starts anew
    while _pg_servers:
        _pg_servers.pop().close()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Safety net: a thread someone forgot to stop (an unclosed aiosqlite connection, a
    server loop) must not hold the run after the summary has been printed; Python would wait
    for every non-daemon thread before exiting, with no output and no end. The summary and
    the exit status are already known, so the process ends here with that status."""
    if _exit_status is None:
        return  # the session never ran (e.g. --help); nothing to protect
    leaked = [t for t in threading.enumerate()
              if t is not threading.main_thread() and t.is_alive() and not t.daemon]
    if not leaked:
        return
    names = ", ".join(sorted(t.name for t in leaked))
    print(f"\nconftest: ending the run; threads still running after the tests: {names}",
          file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_exit_status)
