"""The load test's configuration: how many matches over how many guilds and channels, the
rates, sizes and durations of its phases, where the data lives and how many bot processes
run (``python -m bot loadtest``'s options, bot/tools/cli.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.games import GAMES


@dataclass
class Config:
    matches: int = 1000
    per_guild: int = 100
    channels: int = 200
    rates: list[float] = field(default_factory=lambda: [35.0, 100.0])
    duration: float = 60.0
    burst: int = 200
    soak: float = 1200.0  # issue 25: memory flat "through a 20-minute soak"
    soak_rate: float = 35.0
    sample_every: float = 5.0
    # the first clicks after a restart come as a crowd, all within this many seconds
    restore_spread: float = 0.2
    restore_retry: float = 5.0
    growth_games: int = 8  # of each game (the light profile: of Cityscape)
    growth_kinds: list[str] | None = None  # the games played for growth (None: --games)
    growth_seconds: float = 600.0  # a kind's games still unfinished then are left
    stats_games: int = 10_000
    stats_calls: int = 100
    turn_seconds: float = 3600.0
    workdir: str | None = None
    seed: int = 1
    setup_concurrency: int = 16
    games: list[str] = field(default_factory=lambda: list(GAMES))
    # None (or "sqlite"): the SQLite file in the work folder; "pgserver": a throwaway
    # PostgreSQL; or a postgresql:// URL (bot/tools/loaddb.py)
    database: str | None = None
    processes: int = 1  # bot processes; more than one shares the shards out (PostgreSQL)
    shards_per_process: int = 2
    # "mixed": all four games, 2-5 seats, played to the end (docs/loadtest-workload.md);
    # "light": the workload before issue 25, two people a table, only Cityscape played
    profile: str = "mixed"
