"""``python -m bot loadtest``: the real bot under load, measured from outside.

The bot runs as ``python -m bot run`` in its own process, against a fake Discord
(fakediscord, request validation off) in this process, which also plays the users:
slash commands, button clicks and select menus, each timed from the moment the fake sends
the interaction to the moment the bot's interaction response arrives. What an admin can see
is measured too: the resident memory of the bot and every process it starts, and the
database file. The only view inside is opt-in: ``CITYHALL_LOOP_STATS`` makes the bot write
its event-loop stalls to a file (bot/core/loopmonitor.py).

``--database`` puts the data in PostgreSQL instead of the SQLite file (bot/tools/loaddb.py;
``pgserver`` starts a throwaway server), and ``--processes N`` runs N bot processes, each
owning ``--shards-per-process`` Discord shards, as docs/shards.md describes: the fake then
speaks that many shards and spreads the guilds evenly over them, and every figure covers
all the processes (memory summed, the worst stall of any, a restart that kills them all).

Scenarios, in order: seed finished games for /stats (through bot.core.storage before the
bot starts), setup (N matches opened, joined and started by clicks, over guilds of at
most 100 channels; the channels the load plays are Cityscape, the rest a mix of games),
/stats timing, sustained clicking at each rate, a burst, restart (kill -9, start, READY,
every match answering a click), a soak on the restored bot with memory samples, and
database growth per finished game. Between phases the tool waits (up to 120 s) for the
bot's loop to be quiet, so one phase's backlog is not charged to the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot.tools import procs
from bot.tools.botprocess import BotProcess, Bots
from bot.tools.loadclicks import burst, limit_figures, stats_timing, sustained
from bot.tools.loadconfig import Config
from bot.tools.loaddb import LoadDatabase
from bot.tools.loadendurance import growth, restart, soak
from bot.tools.loadsetup import seed_finished_games, setup_matches
from bot.tools.players import (
    TURN,
    Cityscape,
    OwnStalls,
    Player,
    Players,
    Recorder,
    build_world,
    pruning,
    short_collections,
)
from bot.tools.report import DISCORD_LIMIT_S, Report, click_figures
from fakediscord import FakeDiscord

# The phases live beside this module, one job each: the world before the load
# (loadsetup.py), clicking and what it measures (loadclicks.py), and restart, soak and
# growth (loadendurance.py), with its configuration in loadconfig.py. This module runs
# them in order.


# -- the whole run ----------------------------------------------------------------------------


@contextlib.contextmanager
def _workdir(config: Config) -> Iterator[Path]:
    if config.workdir:
        path = Path(config.workdir)
        path.mkdir(parents=True, exist_ok=True)
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="cityhall-load-") as tmp:
            yield Path(tmp)


def _progress(what: str) -> None:
    """A line on stderr per phase, so a long run shows where it is (stdout is the report)."""
    print(f"{time.strftime('%H:%M:%S')} loadtest: {what}", file=sys.stderr, flush=True)


async def run(config: Config) -> Report:
    report = Report(config)
    with _workdir(config) as work:
        database = LoadDatabase(work, config.database)
        try:
            await database.open()
            return await _run(config, report, work, database)
        finally:
            database.close(keep=work if config.workdir else None)


def _bots(fake: FakeDiscord, database: LoadDatabase, work: Path, config: Config) -> Bots:
    """One plain bot, or ``processes`` bots of ``shards_per_process`` shards each."""
    if config.processes == 1:
        return Bots([BotProcess(fake, database.env(), work, config)])
    k = config.shards_per_process
    return Bots([BotProcess(fake, database.env(), work, config,
                            shards=tuple(range(i * k, i * k + k)),
                            shard_count=config.processes * k, name=f"bot{i}")
                 for i in range(config.processes)])


def _per_bot(report: Report, scenario: str, what: str, rss: dict[str, Any]) -> None:
    """With several bot processes, each one's own memory beside the sum."""
    if len(rss["per_bot"]) > 1:
        for one in rss["per_bot"]:
            shards = ", ".join(str(s) for s in one["shards"])
            report.add(scenario, f"  {what}, {one['name']} (shards {shards})", one["total_mb"],
                       "MB")


async def _run(config: Config, report: Report, work: Path, database: LoadDatabase) -> Report:
    db = database.target
    shard_count = 1 if config.processes == 1 else config.processes * config.shards_per_process
    fake = FakeDiscord(validate=False, interaction_timeout=DISCORD_LIMIT_S,
                       shard_count=shard_count)
    await fake.start()
    collector = asyncio.create_task(short_collections())
    own = OwnStalls()
    watcher = asyncio.create_task(own.run())
    bot = _bots(fake, database, work, config)
    pruner: asyncio.Task[None] | None = None
    try:
        report.details["database"] = await database.describe()
        report.add("start", "database", database.label())
        report.add("start", "bot processes (Discord shards)",
                   "1 (unsharded)" if shard_count == 1 else
                   f"{config.processes} ({shard_count} shards, {config.shards_per_process} each)")
        mixed = config.profile != "light"
        report.add("start", "workload", "mixed: all four games, 2-5 seats, played to the end"
                   if mixed else "light: two people a table, only Cityscape played "
                   "(before issue 25)")
        tables = await build_world(fake, config.matches, config.per_guild,
                                   min(config.channels, config.matches), config.games,
                                   mixed=mixed)
        guilds = len({t.guild_id for t in tables})
        seeded_s = await seed_finished_games(db, tables, config.stats_games)
        report.add("seed", "finished games written via bot.core.storage", config.stats_games)
        report.add("seed", "seconds to write them", seeded_s, "s")
        recorder = Recorder()
        players = Players(fake, recorder, seed=config.seed)
        players.own_stalls = own
        city = Player(players) if mixed else Cityscape(players)
        players.watch(tables)
        _progress('starting the bot')
        cold = await bot.start()
        await fake.wait_until(lambda: len(fake.commands(None)) >= 3, 60, "global command sync")
        pruner = asyncio.create_task(pruning(fake, tables))
        report.add("start", "cold start -> gateway READY", cold, "s")

        mark = recorder.mark()
        played = min(config.channels, len(tables))
        _progress('setup: opening matches by clicks')
        setup_began = time.monotonic()
        setup_s = await setup_matches(city, tables, config.setup_concurrency, played)
        playing = sum(1 for t in tables if t.stage == "playing")
        report.add("setup", "unfinished matches opened by clicks",
                   f"{playing}/{len(tables)}", "", "all", playing == len(tables))
        report.add("setup", "guilds", guilds)
        if shard_count > 1:
            owners = [(int(t.guild_id) >> 22) % shard_count // config.shards_per_process
                      for t in tables]
            report.add("setup", "matches per bot process", ", ".join(
                f"bot{i} {owners.count(i)}" for i in range(config.processes)))
        mix = {g: sum(1 for t in tables if t.game == g) for g in config.games}
        mix["cityscape"] = sum(1 for t in tables if t.game == "cityscape")
        report.add("setup", "matches per game", ", ".join(f"{g} {n}" for g, n in mix.items() if n))
        load_games = [t.game for t in tables[:played]]
        report.add("setup", "played channels per game", ", ".join(
            f"{g} {load_games.count(g)}" for g in dict.fromkeys(load_games)))
        seats = [t.seats for t in tables]
        report.add("setup", "seats a match: mean (2-5) / with computer players",
                   f"{sum(seats) / len(seats):.2f} / {sum(1 for t in tables if t.computers)}")
        towns = [t for t in tables[:played] if t.game == "cityscape"]
        shown = (city.table_message(t) for t in towns)
        building = sum(1 for m in shown if m is not None and TURN.search(m.content))
        report.add("setup", "played channels with goals chosen (building)"
                   if not mixed else "played Cityscape channels with goals chosen (building)",
                   f"{building}/{len(towns)}")
        report.add("setup", "seconds", setup_s, "s")
        setup_stats = click_figures(report, "setup", recorder.since(mark), p95_target=None)
        report.details["setup"] = {"clicks": setup_stats, "limits": limit_figures(
            report, "setup", city, setup_began, time.monotonic())}
        settled: dict[str, float | None] = report.details.setdefault("settle_s", {})

        # Each phase starts on a quiet bot: an earlier backlog is not its cost. The setup of
        # many matches leaves a picture of each to draw (~16 ms of a worker each).
        patience = max(120.0, 0.03 * len(tables))

        async def calm(after: str) -> None:
            waited = await bot.settle(timeout=patience)
            settled[after] = waited
            report.add(after, f"until the bot and its workers were quiet again (— : not in "
                       f"{patience:.0f} s)", waited, "s", "", None if waited is not None else False)

        await calm("setup")
        rss = bot.rss()
        report.add("memory", "RSS after setup", rss["total_mb"], "MB", "", None)
        _per_bot(report, "memory", "RSS after setup", rss)
        report.details["rss_after_setup"] = rss

        if config.stats_calls > 0:
            _progress('/stats timing')
            await stats_timing(report, city, tables, config)

        load = tables[: max(1, min(config.channels, len(tables)))]
        for rate in config.rates:
            target = 60.0 if rate <= 35 else (150.0 if rate <= 100 else None)
            picture = 1000.0 if rate <= 35 else (2000.0 if rate <= 100 else None)
            _progress(f'sustained load {rate:g}/s')
            await sustained(report, bot, city, load, rate, config.duration,
                            f"load {rate:g}/s", p95_target=target, picture_target=picture)
            await calm(f"load {rate:g}/s")
        if config.burst > 0:
            _progress('burst')
            await burst(report, bot, city, tables, config.burst)
            await calm("burst")

        # The restart comes after the load phases so that, if the restore overwhelms
        # the bot, its backlog cannot spoil their figures; the soak then runs on the
        # restored bot, which is what "flat after a restart" asks about.
        _progress('kill -9 and restart')
        await restart(report, bot, city, tables, recorder, config.restore_spread,
                      config.restore_retry, moves=mixed)
        await calm("restart")
        rss = bot.rss()
        report.add("memory", "RSS after restart (all matches)", rss["total_mb"], "MB",
                   "<= 300 MB", rss["total_mb"] <= 300)
        # Summed RSS counts a page the bot and its workers share (the interpreter, the
        # libraries) in each of them; PSS counts it once: what the machine holds for them.
        report.add("memory", "  PSS after restart (a shared page counted once)",
                   rss["total_pss_mb"], "MB")
        _per_bot(report, "memory", "RSS after restart", rss)
        report.add("memory", "bot processes", rss["processes"])
        server = database.server_pids()
        if server:
            # PSS: the server's shared buffers are shared by all its processes, and
            # summing their RSS would count them once per process
            report.add("memory", "PostgreSQL server, all its processes (PSS)",
                       sum(procs.pss_bytes(pid) for pid in server) / 2**20, "MB")
        report.details["rss_after_restart"] = rss
        if config.soak > 0:
            _progress('soak')
            await soak(report, bot, city, load, config)
            await calm("soak")
        _progress('growth: games played to the end')
        await growth(report, fake, city, database, config.growth_games,
                     (config.growth_kinds or config.games) if mixed else None,
                     config.growth_seconds)
        if database.path is not None:
            size = await asyncio.to_thread(procs.database_bytes, database.path,
                                           checkpoint=False)
            report.add("growth", "database file at the end", size["db"] / 2**20, "MB")
        else:
            _, sizes = await database.size()
            report.add("growth", "database at the end (pg_database_size)",
                       sizes["database"] / 2**20, "MB")
        report.details["not_sent_by_fake"] = recorder.not_sent
        report.machine["load_avg_after"] = procs.machine()["load_avg"]
        report.details["bot_log"] = [str(p) for p in sorted(work.glob("bot*-*.log"))] \
            if config.workdir else []
    finally:
        if pruner is not None:
            pruner.cancel()
        collector.cancel()
        watcher.cancel()
        await bot.stop()
        await fake.stop()
    return report


def main(config: Config, *, as_json: bool = False) -> int:
    report = asyncio.run(run(config))
    if as_json:
        print(json.dumps(report.as_json()))
    else:
        print(report.table())
    return 0
