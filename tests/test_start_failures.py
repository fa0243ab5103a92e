"""Start-up failures as an admin meets them: the real `python -m bot run` process, a
database it cannot use, a token Discord refuses, no network.

Each failure is one log sentence naming what is wrong, no traceback, and an exit (code 74
for the database, 78 for the token, which the README's systemd unit will not restart); no
network is one line per try and the bot goes online once Discord answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.core.records import LOBBY, Match, Seat
from bot.core.storage import Storage
from bot.process import EXIT_CONFIG, EXIT_DATABASE, SHUTDOWN_SECONDS
from fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent
# Only a hang detector: the bot exits in about a second; a busy machine may be slower.
HANG = 30.0


def _env(db: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    # A port nothing listens on: the database is checked before the network is tried.
    env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN="x", DATABASE_PATH=str(db),
               DISCORD_API_BASE=f"http://127.0.0.1:{_free_port()}/api/v10", LOG_LEVEL="INFO")
    env.update(extra)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(db: Path, preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "run"], cwd=ROOT, env=_env(db),
                          capture_output=True, text=True, timeout=HANG, preexec_fn=preexec)


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if " ERROR " in line]


def _refused_at_start(done: subprocess.CompletedProcess[str], db: Path, cause: str) -> str:
    output = done.stdout + done.stderr
    assert done.returncode == EXIT_DATABASE, output
    assert "Traceback" not in output, output
    errors = _error_lines(output)
    assert len(errors) == 1, output
    assert f"Cannot open the database {db}: " in errors[0] and cause in errors[0], errors[0]
    # it never got as far as the network
    assert "Cannot reach Discord" not in output
    return errors[0]


async def _cityhall_db(path: Path, matches: int) -> None:
    storage = await Storage.open(path)
    try:
        for channel in range(matches):
            match = Match(id=0, guild_id=1, channel_id=1000 + channel, game="cityscape",
                          status=LOBBY, host_id="1", seats=[Seat("1", "Ann " * 50)],
                          options={"note": "x" * 2000}, seed=channel)
            await storage.create_match(match)
    finally:
        await storage.close()


def test_a_file_that_is_not_sqlite_is_refused_in_a_sentence(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    db.write_text("DISCORD_TOKEN=oops, this is the .env file\n" * 20)
    _refused_at_start(_run(db), db, "not an SQLite database")
    assert db.read_text().startswith("DISCORD_TOKEN=oops")  # untouched


def test_a_database_cut_short_is_refused_in_a_sentence(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    asyncio.run(_cityhall_db(db, 60))
    assert not Path(f"{db}-wal").exists()  # a clean close: the file holds everything
    whole = db.stat().st_size
    with open(db, "r+b") as file:
        file.truncate(whole // 2)
    line = _refused_at_start(_run(db), db, "cut short")
    assert f"{whole:,} bytes" in line


def test_another_programs_sqlite_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "notes.sqlite3"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        conn.execute("INSERT INTO notes (text) VALUES ('buy milk')")
        conn.commit()
    _refused_at_start(_run(db), db, "not a Cityhall database")
    with contextlib.closing(sqlite3.connect(db)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert tables == {"notes"} and journal == "delete"  # no Cityhall tables, no WAL added


def test_a_database_locked_by_another_program_is_refused_in_a_sentence(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    asyncio.run(_cityhall_db(db, 1))
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
         "c.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
         "c.execute('BEGIN EXCLUSIVE')\n"
         "print('locked', flush=True)\n"
         "sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        _refused_at_start(_run(db), db, "another program holds a lock on it")
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=HANG)


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    folder.chmod(0o555)
    try:
        yield
    finally:
        folder.chmod(0o755)


def _without_root_override() -> None:
    """In the child, before exec: root ignores file permissions through the capabilities
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH; dropping them from the bounding set makes a
    read-only folder read-only for a root-run bot too, as it is for the `cityhall` user."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "cannot drop root's permission override")


def _run_as_a_user(db: Path) -> subprocess.CompletedProcess[str]:
    try:
        return _run(db, _without_root_override)
    except subprocess.SubprocessError as exc:
        pytest.skip(f"cannot run the bot without root's permission override here: {exc}")


def test_a_new_database_in_a_read_only_folder_is_refused_in_a_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "cityhall.sqlite3"
    with _read_only(folder):
        done = _run_as_a_user(db)
    _refused_at_start(done, db, f"its folder {folder} is not writable")
    assert not db.exists()


def test_a_database_in_a_folder_made_read_only_is_refused_in_a_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "cityhall.sqlite3"
    asyncio.run(_cityhall_db(db, 1))
    with _read_only(folder):
        done = _run_as_a_user(db)
    _refused_at_start(done, db, f"its folder {folder} is not writable")


@pytest.mark.fakediscord(allow_errors=True)  # the 401 is the point
async def test_a_refused_token_is_one_sentence_and_exit_78(fake_discord: FakeDiscord,
                                                           tmp_path: Path) -> None:
    fake = fake_discord
    db = tmp_path / "cityhall.sqlite3"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env=_env(db, DISCORD_TOKEN="reset-last-week", DISCORD_API_BASE=fake.api_base))
    try:
        out, _ = await asyncio.wait_for(process.communicate(), HANG)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    output = out.decode()
    assert process.returncode == EXIT_CONFIG == 78, output
    assert "Traceback" not in output and "reset-last-week" not in output
    errors = _error_lines(output)
    assert len(errors) == 1 and "Discord refused the token in DISCORD_TOKEN" in errors[0], output
    # one try, not a login every few seconds
    assert [r.path for r in fake.requests if r.path == "/users/@me"] == ["/users/@me"]


async def test_no_network_is_one_line_per_try_until_discord_answers(tmp_path: Path) -> None:
    port = _free_port()
    db = tmp_path / "cityhall.sqlite3"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env=_env(db, DISCORD_TOKEN="fake-token",
                 DISCORD_API_BASE=f"http://127.0.0.1:{port}/api/v10"))
    assert process.stdout is not None
    lines: list[str] = []
    fake: FakeDiscord | None = None
    try:
        while sum("Cannot reach Discord" in line for line in lines) < 2:
            raw = await asyncio.wait_for(process.stdout.readline(), HANG)
            assert raw, "\n".join(lines)
            lines.append(raw.decode().rstrip())
        # Discord is back: the bot goes online on its own.
        fake = back = await FakeDiscord(port=port).start()
        await back.wait_until(lambda: any(s.connection is not None
                                          for s in back.sessions.values()),
                              HANG, "the bot to connect once Discord answers")
        # The network goes away again while the bot runs: discord.py retries on its own,
        # and each try is one line here too.
        fake = None
        await back.stop()
        while not any("Attempting a reconnect" in line for line in lines):
            raw = await asyncio.wait_for(process.stdout.readline(), HANG)
            assert raw, "\n".join(lines)
            lines.append(raw.decode().rstrip())
        process.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(process.communicate(), HANG)
        lines += rest.decode().splitlines()
        assert process.returncode == 0, "\n".join(lines)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        if fake is not None:
            await fake.stop()
    output = "\n".join(lines)
    assert "Traceback" not in output, output
    tries = [line for line in lines if "Cannot reach Discord" in line]
    assert all(f"127.0.0.1:{port}" in line and "trying again in" in line for line in tries)
    # backoff: each wait longer than the one before
    waits = [float(line.rsplit("trying again in ", 1)[1].split(" s")[0]) for line in tries]
    assert waits == sorted(waits) and waits[0] < waits[-1], tries


async def test_a_relative_database_path_is_taken_from_the_project_folder(tmp_path: Path) -> None:
    """Started from another folder (cron, a different WorkingDirectory=), the bot still
    opens the same file, and says which one."""
    db = tmp_path / "data" / "cityhall.sqlite3"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=str(elsewhere),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env=_env(db, DATABASE_PATH=os.path.relpath(db, ROOT)))
    assert process.stdout is not None
    lines: list[str] = []
    try:
        while not any("Cannot reach Discord" in line for line in lines):
            raw = await asyncio.wait_for(process.stdout.readline(), HANG)
            assert raw, "\n".join(lines)
            lines.append(raw.decode().rstrip())
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), HANG) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert f"Using the database {db}." in "\n".join(lines)
    assert db.exists() and list(elsewhere.iterdir()) == []


def test_the_readme_service_unit_matches_the_exit_codes() -> None:
    """The admin copies the unit from the README: it must stop restarting on exit 78 and
    give the bot longer to stop than the bot takes."""
    unit = (ROOT / "README.md").read_text().split("[Service]", 1)[1].split("[Install]", 1)[0]
    settings = dict(line.strip().split("=", 1) for line in unit.splitlines()
                    if "=" in line and not line.strip().startswith("#"))
    assert settings["RestartPreventExitStatus"].split() == [str(EXIT_CONFIG)]
    assert settings["Restart"] == "on-failure"
    assert float(settings["TimeoutStopSec"]) > SHUTDOWN_SECONDS


def test_a_postgresql_server_that_cannot_be_reached_is_one_sentence_and_exit_74(
        tmp_path: Path) -> None:
    port = _free_port()
    env = _env(tmp_path / "unused.sqlite3",
               DATABASE_URL=f"postgresql://cityhall:s3cret@127.0.0.1:{port}/cityhall",
               DATABASE_WAIT_SECONDS="0")  # not waited for (the next test waits)
    done = subprocess.run([sys.executable, "-m", "bot", "run"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=HANG)
    output = done.stdout + done.stderr
    assert done.returncode == EXIT_DATABASE, output
    assert "Traceback" not in output and "s3cret" not in output, output
    assert [line.split(" ERROR ", 1)[1] for line in _error_lines(output)] == [
        f"cityhall: Cannot reach the database server cityhall@127.0.0.1:{port}/cityhall: the "
        "connection was refused (is the server running, and on that port?)."], output
    assert not (tmp_path / "unused.sqlite3").exists()  # SQLite is not used behind its back


async def test_a_start_waits_for_a_postgresql_server_that_is_not_up_yet(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """After a reboot the bot may start before its database server: it waits (one line per
    try), and goes online once the server is up (issue 26: it exited 74 at once)."""
    from tests.pg_support import PgServer, binaries

    package = binaries()
    if package is None:
        pytest.skip("the pgserver wheel is not installed (pip install -e '.[dev]')")
    fake = fake_discord
    server = PgServer(package)
    lines: list[str] = []
    process: asyncio.subprocess.Process | None = None
    try:
        await asyncio.to_thread(server.start)
        url = server.create_database()
        await asyncio.to_thread(server.stop)  # down, as after a reboot
        env = _env(tmp_path / "unused.sqlite3", DATABASE_URL=url, DATABASE_WAIT_SECONDS="60",
                   DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
                   RENDER_WORKERS="0", DISCORD_RATE_LIMIT_SCALE=str(fake.rate_limit_scale))
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=ROOT, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)

        async def read() -> None:
            assert process is not None and process.stdout is not None
            async for line in process.stdout:
                lines.append(line.decode(errors="replace"))

        reading = asyncio.create_task(read())
        await fake.wait_until(lambda: any("Trying again in" in line for line in lines), HANG,
                              "the bot to say it waits for the server")
        assert process.returncode is None  # still there, waiting
        await asyncio.to_thread(server.start)
        await fake.wait_until(lambda: len(fake.commands()) >= 3 and any(
            s.connection is not None for s in fake.sessions.values()), HANG,
            "the bot online once the server is up")
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), HANG) == 0
        await reading
    finally:
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()
        await asyncio.to_thread(server.close)
    output = "".join(lines)
    waits = [line for line in lines if "Trying again in" in line]
    assert waits and all(" WARNING " in line for line in waits), output
    assert "Cannot reach the database server" in waits[0] and "DATABASE_WAIT_SECONDS" in waits[0]
    assert "Traceback" not in output and " ERROR " not in output, output


async def test_a_bot_stopped_before_discord_said_ready_stops_cleanly(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Stopped in the seconds between Discord's READY and ``on_ready`` (discord.py waits for
    the servers to stream in), the bot closes cleanly: nothing fires on the closed client
    afterwards. Before, the waiting task said "ready" to it anyway and a SIGTERM logged its
    traceback (test_no_network_is_one_line_per_try_until_discord_answers, once in CI)."""
    from bot.app import CityhallBot
    from bot.core.discord_api import reset_api_base, use_api_base
    from tests.harness import settings_for

    bot = CityhallBot(settings_for(fake_discord, tmp_path / "db.sqlite3"),
                      guild_ready_timeout=1.5)
    use_api_base(fake_discord.api_base)
    started = asyncio.create_task(bot.start(fake_discord.token))
    try:
        await fake_discord.wait_until(lambda: bot._connection._ready_task is not None, 10,
                                      "Discord's READY")
        waiting = bot._connection._ready_task
        assert waiting is not None and not bot.is_ready()
        closing = time.monotonic()
        await bot.close()
        assert time.monotonic() - closing < 1.0  # closed before "ready" was due
        await asyncio.sleep(2.0)  # past guild_ready_timeout
        # it ended without saying "ready" to the closed client (discord.py's task takes its
        # cancellation quietly; said "ready", it raised AttributeError on the closed loop)
        assert waiting.done() and waiting.exception() is None and not bot.is_ready()
    finally:
        started.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await started
        reset_api_base()
