"""Settings from the environment (and a .env file beside the project, if present)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from bot.core.shards import Shards


def _project_root() -> Path:
    here = Path(__file__).resolve().parent.parent
    # A checkout (make run, an editable install): .env and the database live beside the code.
    if (here / "pyproject.toml").is_file():
        return here
    # An installed wheel lives in site-packages, no place for a database: use the folder the
    # bot was started from, made absolute so the log can name it.
    return Path.cwd()


ROOT = _project_root()


class ConfigError(Exception):
    """A setting that cannot be used; the text says which and why."""


@dataclass(frozen=True)
class Settings:
    token: str | None
    dev_guild_id: int | None
    database_path: str
    api_base: str | None
    turn_seconds: float
    cpu_delay: float
    log_level: str
    lobbies_per_user: int = 3
    games_per_server: int = 100
    games_per_user: int = 10
    lobby_minutes: float = 15.0
    render_workers: int | None = None  # None: one per core; 0: draw in threads
    # Only for test servers standing in for Discord with shorter rate-limit windows.
    rate_limit_scale: float = 1.0
    # The Prometheus endpoint: off (None) unless METRICS_PORT is set; 0 picks a free port.
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # A hard computer player's move: its wall-clock cap (0: none) and play-outs (0: each
    # game's own count); bot.core.levels.Budget.
    cpu_hard_seconds: float = 0.9
    cpu_hard_iterations: int = 0
    # DATABASE_URL: a PostgreSQL server instead of the SQLite file at database_path.
    database_url: str | None = None
    # SHARD_COUNT and SHARD_IDS: the Discord shards this process connects and drives; None
    # (both unset): one process owns everything, as Discord's one shard.
    shards: Shards | None = None
    # How long a starting process waits for another to let go of its shards (or of the
    # SQLite file) before it gives up with a sentence naming them.
    lease_wait: float = 30.0
    # How long a start waits for a PostgreSQL server that cannot be reached yet.
    database_wait: float = 120.0
    # EVENT_LOOP: "uvloop" where installed (the default) or "asyncio".
    event_loop: str = "uvloop"

    @property
    def database(self) -> str:
        """What Storage.open takes: the PostgreSQL URL if there is one, else the file."""
        return self.database_url or self.database_path

    @property
    def database_name(self) -> str:
        """The database in log sentences (a URL without its password)."""
        if self.database_url:
            from bot.core.storage import url_for_logs

            return url_for_logs(self.database_url)
        return self.database_path

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, *, dotenv: bool = True) -> Settings:
        if env is None:
            if dotenv:
                from dotenv import load_dotenv

                load_dotenv(ROOT / ".env")
            env = dict(os.environ)
        chosen = shards(env.get("SHARD_COUNT"), env.get("SHARD_IDS"))
        url = database_url(env.get("DATABASE_URL"))
        if chosen is not None and not chosen.everything and url is None:
            # The other shards need other processes, and those cannot share an SQLite file.
            raise ConfigError("SHARD_IDS names only some of the shards; the others need "
                              "other processes, and several processes need PostgreSQL "
                              "(DATABASE_URL).")
        return cls(
            token=(env.get("DISCORD_TOKEN") or "").strip() or None,
            dev_guild_id=_int(env, "DEV_GUILD_ID"),
            database_path=database_path(env.get("DATABASE_PATH")),
            database_url=url,
            api_base=(env.get("DISCORD_API_BASE") or "").strip().rstrip("/") or None,
            turn_seconds=_float(env, "TURN_SECONDS", 180.0, minimum=10.0),
            cpu_delay=_float(env, "CPU_DELAY", 1.0, minimum=0.0),
            log_level=_log_level(env),
            lobbies_per_user=_count(env, "MAX_LOBBIES_PER_USER", 3, minimum=1) or 3,
            games_per_server=_count(env, "MAX_GAMES_PER_SERVER", 100, minimum=1) or 100,
            games_per_user=_count(env, "MAX_GAMES_PER_USER", 10, minimum=1) or 10,
            lobby_minutes=_float(env, "LOBBY_MINUTES", 15.0, minimum=1.0, unit="minutes"),
            render_workers=_count(env, "RENDER_WORKERS", None, minimum=0),
            rate_limit_scale=_float(env, "DISCORD_RATE_LIMIT_SCALE", 1.0, minimum=0.01,
                                    unit="(a factor)"),
            metrics_port=_metrics_port(env, chosen),
            metrics_host=(env.get("METRICS_HOST") or "").strip() or "127.0.0.1",
            cpu_hard_seconds=_float(env, "CPU_HARD_SECONDS", 0.9, minimum=0.0),
            cpu_hard_iterations=_count(env, "CPU_HARD_ITERATIONS", 0, minimum=0) or 0,
            shards=chosen,
            lease_wait=_float(env, "LEASE_WAIT_SECONDS", 30.0, minimum=0.0),
            database_wait=_float(env, "DATABASE_WAIT_SECONDS", 120.0, minimum=0.0),
            event_loop=_event_loop(env),
        )


def database_path(raw: str | None) -> str:
    """DATABASE_PATH as an absolute path. A relative one is taken from the project folder,
    not from wherever the bot was started: started from another folder, it would otherwise
    open a new, empty database and every game and stat would seem gone."""
    raw = (raw or "").strip()
    if raw == ":memory:":
        # SQLite's name for a database that lives only in one connection: every game would
        # be gone at the next restart (and the bot reads through other connections).
        raise ConfigError("DATABASE_PATH: ':memory:' would keep the games only until the "
                          "bot stops, and Cityhall keeps every game across restarts. Give "
                          "a file name (the default is cityhall.sqlite3).")
    path = Path(raw).expanduser() if raw else Path("cityhall.sqlite3")
    return os.path.normpath(path if path.is_absolute() else ROOT / path)


def database_url(raw: str | None) -> str | None:
    """DATABASE_URL: empty (SQLite at DATABASE_PATH) or a postgresql:// URL."""
    raw = (raw or "").strip()
    if not raw:
        return None
    if not raw.startswith(("postgresql://", "postgres://")):
        raise ConfigError("DATABASE_URL must be a PostgreSQL URL, postgresql://USER:PASSWORD@"
                          "HOST:PORT/DATABASE (or empty for the SQLite file at "
                          "DATABASE_PATH).")
    return raw


def shards(count_raw: str | None, ids_raw: str | None) -> Shards | None:
    """SHARD_COUNT and SHARD_IDS: both unset, None; SHARD_COUNT alone, every shard."""
    count_text = (count_raw or "").strip()
    ids_text = (ids_raw or "").strip()
    if not count_text:
        if ids_text:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT, the number of shards in all "
                              "processes together (e.g. SHARD_COUNT=4 SHARD_IDS=0,1).")
        return None
    if not (count_text.isascii() and count_text.isdigit()) or int(count_text) < 1:
        raise ConfigError(f"SHARD_COUNT must be a whole number, at least 1, not "
                          f"{count_text!r}.")
    count = int(count_text)
    if not ids_text:
        return Shards.of(count, range(count))
    ids: list[int] = []
    for part in ids_text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()):
            raise ConfigError(f"SHARD_IDS must be shard numbers separated by commas "
                              f"(e.g. 0,1), not {ids_text!r}.")
        if int(part) >= count:
            raise ConfigError(f"SHARD_IDS has shard {int(part)}, but with SHARD_COUNT={count}"
                              f" the shards are 0 to {count - 1}.")
        ids.append(int(part))
    if len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS names a shard twice: {ids_text!r}.")
    return Shards.of(count, ids)


def database_path_from_env() -> str:
    """DATABASE_PATH from the environment and .env, as ``python -m bot run`` reads it."""
    from dotenv import load_dotenv

    load_dotenv(ROOT / ".env")
    return database_path(os.environ.get("DATABASE_PATH"))


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
EVENT_LOOPS = ("uvloop", "asyncio")


def _event_loop(env: dict[str, str]) -> str:
    raw = (env.get("EVENT_LOOP") or "").strip()
    loop = raw.lower() or "uvloop"
    if loop not in EVENT_LOOPS:
        raise ConfigError(f"EVENT_LOOP must be uvloop or asyncio, not {raw!r}.")
    return loop


def _log_level(env: dict[str, str]) -> str:
    raw = (env.get("LOG_LEVEL") or "").strip()
    level = raw.upper() or "INFO"
    if level == "WARN":
        level = "WARNING"
    if level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {raw!r}.")
    return level


def _int(env: dict[str, str], name: str) -> int | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    # isdigit alone lets "²" or "٣" through, which int() then refuses (or reads otherwise).
    if not (raw.isascii() and raw.isdigit()):
        raise ConfigError(f"{name} must be a numeric Discord id, not {raw!r}.")
    return int(raw)


def _float(env: dict[str, str], name: str, default: float, *, minimum: float,
           unit: str = "seconds") -> float:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of {unit}, not {raw!r}.") from None
    # float() takes "nan", "inf" and "1e999"; none of them is a time anything can wait for.
    if not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number of {unit}, not {raw!r}.")
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum:g} {unit}.")
    return value


def _metrics_port(env: dict[str, str], chosen: Shards | None) -> int | None:
    """METRICS_PORT; with SHARD_IDS, plus this process's first shard id, so that processes
    sharing one .env on one machine each get a port of their own (cityhall@0-1 on 9100,
    cityhall@2-3 on 9102). 0 (any free port) stays 0."""
    port = _port(env, "METRICS_PORT")
    if port is None or port == 0 or chosen is None or chosen.everything:
        return port
    own = port + chosen.ids[0]
    if own > 65535:
        raise ConfigError(f"METRICS_PORT {port} plus this process's first shard, "
                          f"{chosen.ids[0]}, is past 65535: choose a lower METRICS_PORT.")
    return own


def port_in_use(host: str, port: int) -> bool:
    """Whether another program (another Cityhall process?) already listens on the port."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As the HTTP server binds: SO_REUSEADDR, so a port in TIME_WAIT is not "in use".
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def _port(env: dict[str, str], name: str) -> int | None:
    port = _count(env, name, None, minimum=0)
    if port is not None and port > 65535:
        raise ConfigError(f"{name} must be a TCP port, 1 to 65535 (or 0 for any free one), "
                          f"not {port}.")
    return port


def _count(env: dict[str, str], name: str, default: int | None, *, minimum: int) -> int | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) < minimum:
        raise ConfigError(f"{name} must be a whole number, at least {minimum}, not {raw!r}.")
    return int(raw)
