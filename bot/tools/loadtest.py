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
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.tools import procs
from bot.tools.botprocess import BotProcess, Bots, stall_figures
from bot.tools.loaddb import LoadDatabase
from bot.tools.players import (
    PREFIX,
    TURN,
    Cityscape,
    Click,
    OwnStalls,
    Players,
    Recorder,
    Table,
    build_world,
    pruning,
    short_collections,
)
from bot.tools.report import DISCORD_LIMIT_S, Report, click_figures, percentile
from fakediscord import FakeDiscord
from fakediscord.limits import peak_count


@dataclass
class Config:
    matches: int = 1000
    per_guild: int = 100
    channels: int = 200
    rates: list[float] = field(default_factory=lambda: [35.0, 100.0])
    duration: float = 60.0
    burst: int = 200
    soak: float = 600.0
    soak_rate: float = 35.0
    sample_every: float = 5.0
    restore_spread: float = 1.0
    restore_retry: float = 5.0
    growth_games: int = 30
    stats_games: int = 10_000
    stats_calls: int = 100
    turn_seconds: float = 3600.0
    workdir: str | None = None
    seed: int = 1
    setup_concurrency: int = 16
    games: list[str] = field(default_factory=lambda: ["cityscape", "bigcityz", "bigcity", "cities"])
    # None (or "sqlite"): the SQLite file in the work folder; "pgserver": a throwaway
    # PostgreSQL; or a postgresql:// URL (bot/tools/loaddb.py)
    database: str | None = None
    processes: int = 1  # bot processes; more than one shares the shards out (PostgreSQL)
    shards_per_process: int = 2


# -- scenarios ------------------------------------------------------------------------------


async def seed_finished_games(db: str | Path, tables: list[Table], games: int) -> float:
    """Finished Cityscape games with results, written through bot.core.storage's public
    methods (create_match, save with results) before the bot starts: what /stats reads."""
    from bot.core.records import OVER, Match, Seat
    from bot.core.storage import ResultRow, Storage
    from bot.games.cityscape import ENGINE, GAME

    if games <= 0:
        return 0.0
    state = ENGINE.new(["a", "b"], {"rounds": 1}, 7)
    while ENGINE.result(state) is None:
        player = ENGINE.to_act(state)[0]
        state, _ = ENGINE.apply(state, player, GAME.computer.normal(state, player))
    guild = tables[0].guild_id
    people = [u for t in tables if t.guild_id == guild for u in (t.host, t.guest)][:50]
    channels = [t.channel_id for t in tables if t.guild_id == guild]
    began = time.monotonic()
    storage = await Storage.open(db)
    try:
        for i in range(games):
            a, b = people[i % len(people)], people[(i * 7 + 1) % len(people)]
            if a is b:
                b = people[(i + 1) % len(people)]
            match = Match(id=0, guild_id=int(guild), channel_id=int(channels[i % len(channels)]),
                          game="cityscape", status=OVER, host_id=a["id"],
                          seats=[Seat(a["id"], a["username"]), Seat(b["id"], b["username"])],
                          options={"rounds": 1}, seed=i + 1, state=state, version=51)
            await storage.create_match(match)
            score_a, score_b = 20 + i % 60, 10 + (i * 13) % 70
            await storage.save(match, results=[
                ResultRow(a["id"], a["username"], False, score_a, score_a >= score_b, {}),
                ResultRow(b["id"], b["username"], False, score_b, score_b >= score_a, {})])
    finally:
        await storage.close()
    return time.monotonic() - began


async def setup_matches(city: Cityscape, tables: list[Table], concurrency: int,
                        played: int) -> float:
    """Open, join and start a match in every channel, by slash command and clicks; in the
    first ``played`` channels (Cityscape) both players also choose their secret goals, so
    the load starts with building moves, which re-draw the table."""
    began = time.monotonic()
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int, table: Table) -> None:
        async with gate:
            opening = time.monotonic() + 60
            while table.stage != "playing" and time.monotonic() < opening:
                if await city.step(table, "setup") is None:
                    await asyncio.sleep(0.05)  # the lobby or table is still being drawn
            prefix = PREFIX[table.game]
            if table.stage == "playing":
                await city.fake.wait_until(
                    lambda: (msg := city.table_message(table)) is not None and any(
                        str(c.get("custom_id", "")).startswith(prefix) for c in msg.iter_components()),
                    60, "a table after Start")
            if index >= played or table.game != "cityscape":
                return
            # Until the table shows a turn: each player's goals, then the redrawn table
            # (which can lag behind the clicks on a busy machine: its picture is drawn
            # after the bot has answered them).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                msg = city.table_message(table)
                if msg is not None and TURN.search(msg.content):
                    break
                if await city.step(table, "setup") is None:
                    await asyncio.sleep(0.05)

    await asyncio.gather(*(one(i, t) for i, t in enumerate(tables)))
    return time.monotonic() - began


async def drive(city: Cityscape, tables: list[Table], rate: float, seconds: float,
                phase: str) -> dict[str, Any]:
    """Click at ``rate`` per second, round-robin over idle channels, for ``seconds``."""
    tasks: set[asyncio.Task[None]] = set()
    idle_ticks = 0
    began = time.monotonic()
    tick = 0
    cursor = 0

    async def run(table: Table) -> None:
        try:
            await city.step(table, phase)
        finally:
            table.busy = False

    while True:
        due = began + tick / rate
        now = time.monotonic()
        if due - began >= seconds:
            break
        if due > now:
            await asyncio.sleep(due - now)
        tick += 1
        for offset in range(len(tables)):
            table = tables[(cursor + offset) % len(tables)]
            if not table.busy:
                cursor = (cursor + offset + 1) % len(tables)
                table.busy = True
                task = asyncio.create_task(run(table))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                break
        else:
            idle_ticks += 1
    if tasks:
        await asyncio.wait(tasks, timeout=DISCORD_LIMIT_S + 2)
    return {"ticks": tick, "no_idle_channel": idle_ticks, "seconds": time.monotonic() - began}


ORPHAN_WAIT_S = 10.0


async def restart(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
                  recorder: Recorder, spread: float, retry: float = 5.0,
                  give_up: float = 60.0) -> None:
    """kill -9 (every bot process at once), start again, and click every match's table
    until each one answers: the first clicks go out evenly over ``spread`` seconds after
    the (last) READY, a match that did not answer (or answered with an error) is clicked
    again ``retry`` seconds later, as a person would try again; matches still silent after
    ``give_up`` seconds are reported."""
    before = bot.descendants()
    await bot.kill()
    # Children the killed bot started (render workers) must not live on without it: each
    # leaves when it finds its pipe to the bot closed, at once on an idle machine, within
    # seconds on a busy one. Still there after ORPHAN_WAIT_S: left behind.
    waited = time.monotonic()
    while True:
        await asyncio.sleep(0.1)
        left = [pid for pid in before if pid not in bot.pids and procs.rss_bytes(pid) > 0]
        if not left or time.monotonic() - waited > ORPHAN_WAIT_S:
            break
    ready_s = await bot.start()
    ready_at = time.monotonic()
    ready_wall = time.time()
    mark = recorder.mark()
    answered_at: dict[int, float] = {}
    first_sent: dict[int, float] = {}

    async def one(i: int, table: Table) -> None:
        await asyncio.sleep(spread * i / len(tables))
        while time.monotonic() - ready_at < give_up:
            target = city.table_click(table)
            if target is not None:
                user, msg, custom_id = target
                click = await city.players.send("restore", city.fake.click(user, msg, custom_id))
                if click is not None:
                    first_sent.setdefault(i, click.sent)
                if click is not None and click.ok and click.latency_ms is not None:
                    answered_at[i] = click.sent + click.latency_ms / 1000
                    return
            await asyncio.sleep(retry)

    await asyncio.gather(*(one(i, t) for i, t in enumerate(tables)))
    done_wall, done = time.time(), time.monotonic()
    clicks = recorder.since(mark)
    everyone = len(answered_at) == len(tables)
    last = max(answered_at.values()) if answered_at else None
    report.add("restart", "child processes left behind by the killed bot", len(left), "", "0",
               not left)
    report.add("restart", "process start -> gateway READY", ready_s, "s")
    after_ready = None if last is None or not everyone else last - ready_at
    report.add("restart", "READY -> every match answered a click", after_ready, "s", "<= 2 s",
               None if after_ready is None else after_ready <= 2.0)
    # Whether the load test itself kept up: the first clicks are due within ``spread``
    # seconds of READY; sent later, the fake (on the same cores) was the bottleneck.
    report.add("restart", "READY -> last first click sent",
               max(first_sent.values()) - ready_at if first_sent else None, "s")
    report.add("restart", "process start -> every match answered",
               None if after_ready is None else after_ready + ready_s, "s")
    report.add("restart", "matches answering", f"{len(answered_at)}/{len(tables)}", "",
               "all", everyone)
    stats = click_figures(report, "restart", clicks, p95_target=None)
    await bot.wait_for_stats(done_wall)
    stall = bot.stall_between(ready_wall, done_wall)
    stall_figures(report, "restart", stall)
    whole = bot.stall_since_start(done_wall)
    report.add("restart", "longest stall since process start", whole["max_ms"], "ms")
    limits = limit_figures(report, "restart", city, ready_at, done)
    report.details["restart"] = {"ready_s": ready_s, "clicks": stats, "stall": stall,
                                 "limits": limits,
                                 "stall_since_start": whole, "restore_spread_s": spread,
                                 "retry_s": retry, "give_up_s": give_up}


async def burst(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
                size: int) -> None:
    targets = []
    for table in tables:
        found = city.table_click(table)
        if found is not None:
            targets.append(found)
        if len(targets) >= size:
            break
    began_wall = time.time()
    mark = city.players.recorder.mark()
    # every interaction is created before any answer is awaited: one instant for the bot
    starts = [asyncio.ensure_future(city.fake.click(u, m, c)) for u, m, c in targets]
    await asyncio.gather(*(city.players.send("burst", s) for s in starts))
    clicks = city.players.recorder.since(mark)
    answered = [c.latency_ms for c in clicks if c.latency_ms is not None]
    spread = (max(c.sent for c in clicks) - min(c.sent for c in clicks)) * 1000 if clicks else 0
    everyone = len(answered) == len(targets) and bool(targets)
    worst = max(answered) if answered else None
    report.add("burst", "clicks at once", len(targets))
    report.add("burst", "sent within", spread, "ms")
    report.add("burst", "all answered within", worst if everyone else None, "ms", "<= 1000 ms",
               None if not everyone or worst is None else worst <= 1000)
    report.add("burst", "click -> response p50", percentile(answered, 0.5), "ms")
    report.add("burst", "unanswered", len(targets) - len(answered), "", "0",
               len(targets) == len(answered))
    report.details["burst"] = {"clicks": {"clicks": len(clicks), "answered": len(answered),
                                          "unanswered": len(clicks) - len(answered)},
                               "sent_within_ms": spread}
    await bot.wait_for_stats(time.time())
    stall_figures(report, "burst", bot.stall_between(began_wall, time.time()))


async def sustained(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
                    rate: float, seconds: float, scenario: str,
                    p95_target: float | None) -> dict[str, Any]:
    recorder = city.players.recorder
    mark = recorder.mark()
    began_wall, began = time.time(), time.monotonic()
    driven = await drive(city, tables, rate, seconds, scenario)
    end_wall, ended = time.time(), time.monotonic()
    report.add(scenario, "channels", len(tables))
    report.add(scenario, "offered rate", rate, "/s")
    stats = click_figures(report, scenario, recorder.since(mark), p95_target=p95_target,
                          seconds=driven["seconds"])
    if driven["no_idle_channel"]:
        report.add(scenario, "ticks with every channel waiting", driven["no_idle_channel"])
    await bot.wait_for_stats(end_wall)
    stall = bot.stall_between(began_wall, end_wall)
    stall_figures(report, scenario, stall)
    limits = limit_figures(report, scenario, city, began, ended)
    report.details[scenario] = {"clicks": stats, "drive": driven, "stall": stall,
                                "kinds": _kinds(recorder.since(mark)), "limits": limits}
    return stats


def limit_figures(report: Report, scenario: str, city: Cityscape, since: float,
                  until: float) -> dict[str, Any]:
    """What the bot asked of Discord's global limit in a phase, and every 429 it got.

    Real Discord counts 429s as invalid requests and blocks a bot's address for an hour
    after 10,000 of them in 10 minutes; each one also keeps a request (and its picture)
    waiting in the bot. A bot that paces itself gets none. Times are the fake's monotonic
    clock, which ``since`` and ``until`` share."""
    limiter = city.fake.limiter
    counted = [t for t in limiter.global_attempts if since <= t < until]
    hits = [h for h in limiter.hits if since <= h.at < until and not h.injected]
    on_global = sum(1 for h in hits if h.is_global)
    seconds = max(until - since, 1e-9)
    busiest = peak_count(counted, 1.0)
    report.add(scenario, "requests under the global limit: mean / busiest second",
               f"{len(counted) / seconds:.1f} / {busiest} per s", "", "<= 50 per s", busiest <= 50)
    report.add(scenario, "answered 429 by Discord (global / per route)",
               f"{on_global} / {len(hits) - on_global}", "", "0", not hits)
    own = city.players.own_stalls
    own_ms = own.longest(since, until) if own is not None else None
    if own_ms is not None:
        # the fake counts a request when its loop gets to it; a stall here bunches them
        report.add(scenario, "the fake Discord's own longest stall", own_ms, "ms", "<= 50 ms",
                   own_ms <= 50)
    return {"global_requests": len(counted), "busiest_second": busiest,
            "rate_limited_global": on_global, "rate_limited_route": len(hits) - on_global,
            "rate_limited_examples": [str(h) for h in hits[:5]], "fake_stall_ms": own_ms}


def _kinds(clicks: list[Click]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in clicks:
        kind = c.kind.split(":", 1)[-1]
        out[kind] = out.get(kind, 0) + 1
    return out


async def soak(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
               config: Config) -> None:
    # (seconds, all processes MB, the bot process alone MB)
    samples: list[tuple[float, float, float]] = []
    began = time.monotonic()

    def take() -> None:
        rss = bot.rss()
        samples.append((round(time.monotonic() - began, 1), rss["total_mb"], bot.bots_mb(rss)))

    async def sample() -> None:
        while True:
            take()
            await asyncio.sleep(config.sample_every)

    sampler = asyncio.create_task(sample())
    try:
        await sustained(report, bot, city, tables, config.soak_rate, config.soak, "soak",
                        p95_target=60.0 if config.soak_rate <= 35 else None)
    finally:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
    take()
    values = [total for _, total, _ in samples]
    report.add("soak", "RSS first sample", values[0], "MB")
    report.add("soak", "RSS last sample", values[-1], "MB")
    report.add("soak", "RSS max", max(values), "MB", "<= 300 MB", max(values) <= 300)
    report.add("soak", "RSS growth last - first", values[-1] - values[0], "MB")
    # "Flat after warm-up": the soak starts right after the restart, with cold render
    # workers and an allocator that has not yet reached its working size; a worker is
    # replaced every 2,000 pictures, which drops its memory at random moments. Measured
    # at 1,000 matches, the bot process grows for about four minutes and then holds
    # (its count of Python objects, sampled each minute, goes up and down with
    # the garbage awaiting collection but does not climb), so the
    # first half of the soak is the warm-up: the figure with a target compares the
    # medians of the minute at half time and of the last minute; from the second minute
    # is shown too, without one.
    end = samples[-1][0]
    half = end / 2
    # All processes together move in steps: a render worker grows over its 2,000 pictures
    # (about 110 -> 160 MB for two) and drops when it is replaced, so two medians a few
    # minutes apart compare two points of that saw. What must not grow is its peak: the
    # highest sample of the second half against the highest of the first (after the
    # first minute's warm-up).
    first = [total for t, total, _ in samples if 60 <= t < half]
    second = [total for t, total, _ in samples if t >= half]
    if first and second and end >= 240:
        report.add("soak", "RSS all processes: highest, first half -> second half",
                   f"{max(first):.1f} -> {max(second):.1f} MB ({max(second) - max(first):+.1f})",
                   "", "flat: grows < 5 %", max(second) <= 1.05 * max(first))
    for label, column in (("all processes", 1), ("bot process", 2)):
        last = _median_between(samples, column, end - 60, end + 1)
        early = _median_between(samples, column, 60, 120)
        warm = _median_between(samples, column, half, half + 60)
        if last is None:
            continue
        if early is not None:
            report.add("soak", f"RSS {label}: 2nd minute -> last minute (medians)",
                       f"{early:.1f} -> {last:.1f} MB ({last - early:+.1f})")
        if warm is not None and end >= 240:
            growth = last - warm
            # the bot process has no such steps: its medians say whether it grows
            target = column == 2
            report.add("soak", f"RSS {label}: half time -> last minute (medians)",
                       f"{warm:.1f} -> {last:.1f} MB ({growth:+.1f})", "",
                       "flat: grows < 5 %" if target else "",
                       growth <= 0.05 * warm if target else None)
    report.details["soak_rss"] = samples


def _median_between(samples: list[tuple[float, float, float]], column: int, start: float,
                    end: float) -> float | None:
    values = [row[column] for row in samples if start <= row[0] < end]
    return statistics.median(values) if values else None


async def stats_timing(report: Report, city: Cityscape, tables: list[Table], config: Config) -> None:
    recorder = city.players.recorder
    mark = recorder.mark()
    # The finished games are all in the first table's server. /stats has a cooldown per
    # member and channel: each call comes from another table of that server (its host, in
    # its channel), so every call is a real leaderboard, not a refusal.
    tables = [t for t in tables if t.guild_id == tables[0].guild_id]
    for i in range(config.stats_calls):
        table = tables[i % len(tables)]
        await city.players.send("stats", city.fake.slash(table.host, table.channel_id, "stats"))
    clicks = recorder.since(mark)
    answered = [c.latency_ms for c in clicks if c.latency_ms is not None]
    p95 = percentile(answered, 0.95)
    report.add("stats", "finished games in the server", config.stats_games)
    report.add("stats", "/stats calls", len(clicks))
    report.add("stats", "/stats p50", percentile(answered, 0.5), "ms")
    report.add("stats", "/stats p95", p95, "ms", "<= 10 ms", None if p95 is None else p95 <= 10)
    report.add("stats", "unanswered", len(clicks) - len(answered), "", "0",
               len(clicks) == len(answered))


async def growth(report: Report, fake: FakeDiscord, city: Cityscape, db: LoadDatabase,
                 games: int) -> None:
    """Play ``games`` one-round Cityscape games to the end by clicks in new channels and
    compare the database before and after: the checkpointed SQLite file, or PostgreSQL's
    size of Cityhall's tables (LoadDatabase.size)."""
    if games <= 0:
        return
    guild = fake.add_guild("Growth")
    tables = []
    for n in range(games):
        channel = await fake.add_channel(f"grow-{n}", guild_id=guild.id)
        host = await fake.add_member(f"ghost{n}", guild_id=guild.id)
        guest = await fake.add_member(f"gguest{n}", guild_id=guild.id)
        tables.append(Table(guild.id, channel["id"], host, guest))
    await asyncio.sleep(0.5)  # GUILD_CREATE reaches the bot
    before_bytes, before = await db.size()
    began = time.monotonic()

    def looks(table: Table) -> tuple[str, str] | None:
        msg = city.table_message(table) if table.stage == "playing" else None
        return None if msg is None else (msg.id, msg.content)

    async def play(table: Table) -> bool:
        while time.monotonic() - began < 600:
            before = looks(table)
            if before is not None and "· final" in before[1]:
                return True
            click = await city.step(table, "growth")
            if click is None:
                await asyncio.sleep(0.05)
            elif click.message is None or not click.message.components:
                # Refused or told something (not a picker): like a person, look at the
                # table again once it changes, instead of clicking on as fast as possible.
                waited = time.monotonic()
                while looks(table) == before and time.monotonic() - waited < 2.0:
                    await asyncio.sleep(0.05)
        return False

    finished = sum(await asyncio.gather(*(play(t) for t in tables)))
    await asyncio.sleep(1.0)  # the last results are committed before the final table shows
    after_bytes, after = await db.size()
    grown = after_bytes - before_bytes
    per_game = grown / finished if finished else None
    report.add("growth", "games played to the end by clicks", f"{finished}/{games}")
    report.add("growth", "seconds for them", time.monotonic() - began, "s")
    report.add("growth", "database bytes per finished game", per_game, "B", "<= 5000 B",
               None if per_game is None else per_game <= 5000)
    if db.postgres:
        report.add("growth", "  measured as", db.growth_measure())
    report.details["growth"] = {"before": before, "after": after, "finished": finished,
                                "measure": db.growth_measure()}


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
        tables = await build_world(fake, config.matches, config.per_guild,
                                   min(config.channels, config.matches), config.games)
        guilds = len({t.guild_id for t in tables})
        seeded_s = await seed_finished_games(db, tables, config.stats_games)
        report.add("seed", "finished games written via bot.core.storage", config.stats_games)
        report.add("seed", "seconds to write them", seeded_s, "s")
        recorder = Recorder()
        players = Players(fake, recorder, seed=config.seed)
        players.own_stalls = own
        city = Cityscape(players)
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
        shown = (city.table_message(t) for t in tables[:played])
        building = sum(1 for m in shown if m is not None and TURN.search(m.content))
        report.add("setup", "played channels with goals chosen (building)",
                   f"{building}/{played}")
        report.add("setup", "seconds", setup_s, "s")
        setup_stats = click_figures(report, "setup", recorder.since(mark), p95_target=None)
        report.details["setup"] = {"clicks": setup_stats, "limits": limit_figures(
            report, "setup", city, setup_began, time.monotonic())}
        settled: dict[str, float | None] = report.details.setdefault("settle_s", {})

        async def calm(after: str) -> None:
            # each phase starts on a quiet bot: an earlier backlog is not its cost
            waited = await bot.settle()
            settled[after] = waited
            report.add(after, "until the bot's loop was quiet again (— : not in 120 s)",
                       waited, "s", "", None if waited is not None else False)

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
            _progress('sustained load')
            await sustained(report, bot, city, load, rate, config.duration,
                            f"load {rate:g}/s", p95_target=target)
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
                      config.restore_retry)
        await calm("restart")
        rss = bot.rss()
        report.add("memory", "RSS after restart (all matches)", rss["total_mb"], "MB",
                   "<= 300 MB", rss["total_mb"] <= 300)
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
        await growth(report, fake, city, database, config.growth_games)
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
