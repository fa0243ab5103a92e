"""Every setting is checked before anything starts: a bad value is one sentence naming the
setting and exit 78 (EX_CONFIG: the README's systemd unit does not restart it in a loop),
never a traceback at the first click or a restart loop (issue 26)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings
from bot.process import EXIT_CONFIG

ROOT = Path(__file__).resolve().parent.parent
BASE = {"DISCORD_TOKEN": "x"}


@pytest.mark.parametrize(("name", "raw"), [
    ("TURN_SECONDS", "nan"), ("TURN_SECONDS", "inf"), ("TURN_SECONDS", "1e999"),
    ("CPU_DELAY", "Infinity"), ("LOBBY_MINUTES", "NaN"), ("CPU_HARD_SECONDS", "inf"),
    ("LEASE_WAIT_SECONDS", "-inf"),
])
def test_a_time_that_is_not_finite_is_refused(name: str, raw: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({**BASE, name: raw})
    assert str(refused.value).startswith(f"{name} must be a finite number of ")
    assert repr(raw) in str(refused.value)


def test_log_level_is_one_python_knows() -> None:
    assert Settings.from_env({**BASE, "LOG_LEVEL": "warn"}).log_level == "WARNING"
    assert Settings.from_env({**BASE, "LOG_LEVEL": " debug "}).log_level == "DEBUG"
    assert Settings.from_env({**BASE, "LOG_LEVEL": "critical"}).log_level == "CRITICAL"
    assert Settings.from_env(BASE).log_level == "INFO"
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({**BASE, "LOG_LEVEL": "VERBOSE"})
    assert str(refused.value) == ("LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, "
                                  "CRITICAL, not 'VERBOSE'.")


@pytest.mark.parametrize("raw", ["²", "١٢٣", "12a", "-5"])
def test_a_server_id_is_ascii_digits(raw: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({**BASE, "DEV_GUILD_ID": raw})
    assert str(refused.value) == f"DEV_GUILD_ID must be a numeric Discord id, not {raw!r}."


def test_event_loop_is_uvloop_or_asyncio() -> None:
    assert Settings.from_env(BASE).event_loop == "uvloop"
    assert Settings.from_env({**BASE, "EVENT_LOOP": "AsyncIO"}).event_loop == "asyncio"
    with pytest.raises(ConfigError, match="EVENT_LOOP must be uvloop or asyncio, not 'trio'"):
        Settings.from_env({**BASE, "EVENT_LOOP": "trio"})


def test_processes_sharing_one_env_get_a_metrics_port_each() -> None:
    sharded = {**BASE, "DATABASE_URL": "postgresql://c@127.0.0.1/c", "SHARD_COUNT": "4",
               "METRICS_PORT": "9100"}
    ports = [Settings.from_env({**sharded, "SHARD_IDS": ids}).metrics_port
             for ids in ("0,1", "2,3")]
    assert ports == [9100, 9102]
    # One process owning every shard, or any free port: as given.
    assert Settings.from_env({**sharded, "SHARD_IDS": "0,1,2,3"}).metrics_port == 9100
    assert Settings.from_env({**sharded, "SHARD_IDS": "2,3", "METRICS_PORT": "0"}
                             ).metrics_port == 0
    with pytest.raises(ConfigError, match="past 65535"):
        Settings.from_env({**sharded, "SHARD_IDS": "3", "METRICS_PORT": "65534"})


def _run(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("DISCORD_", "DEV_GUILD", "METRICS_", "LOG_LEVEL"))}
    # A port nothing listens on: a start that got past its settings would try Discord there.
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        api = f"http://127.0.0.1:{free.getsockname()[1]}/api/v10"
    clean.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN="x", DISCORD_API_BASE=api, **env)
    return subprocess.run([sys.executable, "-m", "bot", "run"], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("env", "sentence"), [
    ({"TURN_SECONDS": "nan"}, "TURN_SECONDS must be a finite number of seconds, not 'nan'."),
    ({"LOG_LEVEL": "VERBOSE"}, "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, "
                               "CRITICAL, not 'VERBOSE'."),
    ({"DEV_GUILD_ID": "²"}, "DEV_GUILD_ID must be a numeric Discord id, not '²'."),
])
def test_the_bot_stops_on_a_bad_setting_with_one_sentence_and_78(
        env: dict[str, str], sentence: str, tmp_path: Path) -> None:
    done = _run(DATABASE_PATH=str(tmp_path / "db.sqlite3"), **env)
    assert done.returncode == EXIT_CONFIG, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stderr.strip() == f"Cityhall cannot start: {sentence}"
    assert not (tmp_path / "db.sqlite3").exists(), "nothing starts before the settings pass"


def test_a_metrics_port_in_use_stops_the_start_naming_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _run(DATABASE_PATH=str(tmp_path / "db.sqlite3"), METRICS_PORT=str(port))
    assert done.returncode == EXIT_CONFIG, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stderr.strip() == (
        f"Cityhall cannot start: METRICS_PORT: port {port} on 127.0.0.1 is in use by another "
        "program (another Cityhall process?). Give each process its own port, or leave "
        "METRICS_PORT empty.")


def test_an_in_memory_database_is_refused_in_a_sentence() -> None:
    """SQLite's ":memory:" lives in one connection and ends with the process: the bot would
    lose every game at a restart (and could not read back what it wrote)."""
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({**BASE, "DATABASE_PATH": " :memory: "})
    assert str(refused.value) == (
        "DATABASE_PATH: ':memory:' would keep the games only until the bot stops, and "
        "Cityhall keeps every game across restarts. Give a file name (the default is "
        "cityhall.sqlite3).")
