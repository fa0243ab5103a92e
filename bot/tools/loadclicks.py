"""The load test's clicking and what it measures of it: clicks at a steady rate over idle
channels (``drive``, ``sustained``), a burst of clicks at one instant, /stats timing,
and what the bot asked of Discord's global limit in each phase (``limit_figures``)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.tools import procs
from bot.tools.botprocess import Bots, stall_figures
from bot.tools.players import Cityscape, Click, Table, settle_pictures, shows_only
from bot.tools.report import DISCORD_LIMIT_S, Report, click_figures, per_game, percentile
from fakediscord.limits import peak_count, peak_start

if TYPE_CHECKING:
    from bot.tools.loadconfig import Config


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
            if await city.step(table, phase) is None:
                # nothing to click here now (the table waits for others): look later
                table.idle_until = time.monotonic() + 0.3
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
        now = time.monotonic()
        for offset in range(len(tables)):
            table = tables[(cursor + offset) % len(tables)]
            if table.ready(now):
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


async def burst(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
                size: int) -> None:
    targets = []
    for table in tables:
        if table.busy:
            continue
        found = city.table_click(table)
        if found is not None:
            targets.append((table, *found))
        if len(targets) >= size:
            break
    began_wall = time.time()
    mark = city.players.recorder.mark()
    # every interaction is created before any answer is awaited: one instant for the bot
    starts = [(t, asyncio.ensure_future(city.fake.click(u, m, c))) for t, u, m, c in targets]
    await asyncio.gather(*(city.players.send("burst", s, t, watch_table=not shows_only(c))
                           for (t, s), (_t, _u, _m, c) in zip(starts, targets, strict=True)))
    for table, _ in starts:
        table.picker = table.picker_user = None  # the pickers opened are left: a new look
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
                               "sent_within_ms": spread,
                               "per_game": per_game(report, "burst", clicks),
                               "kinds": _kinds(clicks)}
    await bot.wait_for_stats(time.time())
    stall_figures(report, "burst", bot.stall_between(began_wall, time.time()))


async def sustained(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
                    rate: float, seconds: float, scenario: str,
                    p95_target: float | None,
                    picture_target: float | None = None) -> dict[str, Any]:
    recorder = city.players.recorder
    mark = recorder.mark()
    began_wall, began = time.time(), time.monotonic()
    await bot.wait_for_stats(began_wall - 1.0)
    cpu_before, bot_before, jobs_before = bot.cpu_seconds(), bot.bot_cpu_seconds(), \
        bot.render_cpu()
    stolen_before = procs.stolen_seconds()
    ages_before, workers_before = bot.render_age(), bot.render_workers()
    driven = await drive(city, tables, rate, seconds, scenario)
    # The phase's last moves' pictures are its own: timed (and their CPU counted) like the
    # others. Before 2 Dec the figures were taken here at once, and a phase whose pictures
    # ran behind left its latest, slowest ones out.
    tail = await settle_pictures(tables)
    cpu, bot_cpu = bot.cpu_seconds() - cpu_before, bot.bot_cpu_seconds() - bot_before
    end_wall, ended = time.time(), time.monotonic()
    report.add(scenario, "channels", len(tables))
    report.add(scenario, "offered rate", rate, "/s")
    stats = click_figures(report, scenario, recorder.since(mark), p95_target=p95_target,
                          seconds=driven["seconds"], picture_target=picture_target)
    report.add(scenario, "last clicks' pictures waited for after the last click", tail, "s")
    cpu_figures(report, scenario, cpu, ended - began, stats)
    stolen_after = procs.stolen_seconds()
    if stolen_before is not None and stolen_after is not None and ended > began:
        # The host's share of this machine's cores over the phase: CPU the bot and the
        # load test could not have had, whatever they asked (docs/loadtest-workload.md).
        stolen = stolen_after - stolen_before
        share = 100 * stolen / ((ended - began) * (os.cpu_count() or 1))
        report.add(scenario, "  the host took from this machine's cores (steal)",
                   f"{stolen:.2f} s ({share:.1f} % of them)")
    if driven["no_idle_channel"]:
        report.add(scenario, "ticks with every channel waiting", driven["no_idle_channel"])
    await bot.wait_for_stats(end_wall)
    jobs_after = bot.render_cpu()
    # The workers' counts run on past the drive (the last moves' pictures): /proc read now,
    # after the counts were written, covers the same window, so the two compare.
    window_cpu = bot.cpu_seconds() - cpu_before
    cpu_breakdown(report, scenario, bot_cpu, jobs_before, jobs_after, stats,
                  window_cpu=window_cpu)
    worker_age_figures(report, scenario, ages_before, bot.render_age(), stats)
    spare_figures(report, scenario, workers_before, bot.render_workers(), stats)
    stall = bot.stall_between(began_wall, end_wall)
    stall_figures(report, scenario, stall)
    limits = limit_figures(report, scenario, city, began, ended)
    report.details[scenario] = {"clicks": stats, "drive": driven, "stall": stall,
                                "kinds": _kinds(recorder.since(mark)), "limits": limits}
    return stats


def cpu_figures(report: Report, scenario: str, cpu: float, seconds: float,
                stats: dict[str, Any]) -> None:
    """CPU of the bot and its render workers (from /proc) over the phase, per move (a click
    that changed a table) and per click, and in cores.

    Issue 25's item 3 asks for 25 ms "per move", having measured 51 ms "a click" and asked
    to halve it: both are held to 25 ms, so the report gives each reading its verdict
    (docs/loadtest-workload.md)."""
    moves = stats.get("moves") or 0
    per_move = cpu * 1000 / moves if moves else None
    per_click = cpu * 1000 / stats["clicks"] if stats["clicks"] else None
    report.add(scenario, "CPU, bot and render workers", cpu, "s")
    report.add(scenario, "  cores busy on average", cpu / seconds if seconds else None)
    report.add(scenario, "CPU per move (bot + render workers)", per_move, "ms", "<= 25 ms",
               None if per_move is None else per_move <= 25)
    report.add(scenario, "CPU per click", per_click, "ms", "<= 25 ms",
               None if per_click is None else per_click <= 25)
    stats.update(cpu_s=cpu, cpu_per_move_ms=per_move)


# The kinds of render job, by the function's name, in the words of the breakdown.
JOB_WORDS = {"render_table": "table pictures", "frames": "final animations",
             "boards": "final animations", "gif": "final animations",
             "computer_move": "computer players thinking"}


def job_words(job: str) -> str:
    """``bot.games.cities.render.render_table`` -> "table pictures"; previews and other
    private pictures by their function's name."""
    function = job.rsplit(".", 1)[-1]
    return JOB_WORDS.get(function, f"private pictures ({function})")


def grown_by(before: dict[str, list[float]], after: dict[str, list[float]],
             group: Callable[[str], str | None]) -> dict[str, list[float]]:
    """What a phase added to the workers' [jobs, CPU seconds] counts (``after`` less
    ``before``), summed by ``group`` of each name (None: left out)."""
    grown: dict[str, list[float]] = {}
    for name, (count, cpu) in after.items():
        key = group(name)
        if key is None:
            continue
        was = before.get(name, [0, 0.0])
        total = grown.setdefault(key, [0, 0.0])
        total[0] += count - was[0]
        total[1] += cpu - was[1]
    return grown


def _table_game(job: str) -> str | None:
    """``bot.games.cities.render.render_table`` -> "cities"; any other job: None."""
    parts = job.split(".")
    if parts[-1] != "render_table" or parts[:2] != ["bot", "games"]:
        return None
    return parts[2]


def cpu_breakdown(report: Report, scenario: str, bot_cpu: float,
                  before: dict[str, list[float]], after: dict[str, list[float]],
                  stats: dict[str, Any], *, window_cpu: float | None = None) -> None:
    """Where a move's CPU went: the bot process itself, then the render workers by kind of
    job (their own count of each job's CPU), per move of the phase. ``window_cpu``: the
    bot's and workers' CPU from /proc over the window the job counts cover (the drive and
    the pictures still being drawn after it), which they add up to at most."""
    moves = stats.get("moves") or 0
    if not moves:
        return
    report.add(scenario, "  CPU per move: the bot process", bot_cpu * 1000 / moves, "ms")
    kinds = grown_by(before, after, job_words)
    for words, (count, cpu) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        if count <= 0:
            continue
        report.add(scenario, f"  CPU per move: {words}",
                   f"{cpu * 1000 / moves:.1f} ms ({count:.0f} jobs, "
                   f"{cpu * 1000 / count:.1f} ms each)")
    # Tables by game: how many a game's move draws (a Cities turn is several of the
    # bot's moves) and what each costs.
    tables = grown_by(before, after, _table_game)
    per_game = stats.get("per_game") or {}
    for game, (count, cpu) in sorted(tables.items()):
        game_moves = (per_game.get(game) or {}).get("moves") or 0
        if count <= 0 or not game_moves:
            continue
        report.add(scenario, f"    {game}: table pictures a move",
                   f"{count / game_moves:.2f} ({count:.0f} for {game_moves} moves, "
                   f"{cpu * 1000 / count:.1f} ms each)")
    stats["cpu_breakdown"] = {"bot_s": bot_cpu, "render": kinds, "tables_by_game": tables,
                              "window_cpu_s": window_cpu}


def worker_age_figures(report: Report, scenario: str, before: dict[str, list[float]],
                       after: dict[str, list[float]], stats: dict[str, Any]) -> None:
    """A table picture's CPU by its worker's age in jobs (``PoolStats.table_cpu_by_age``):
    a worker replaced (for its memory, or after its jobs) starts with empty caches, and
    its first pictures cost more than a warm one's; within one phase, compared bucket by
    bucket, this is what the replacements cost whatever the machine's speed that day."""
    ages = {age: grown for age, grown in grown_by(before, after, str).items()
            if grown[0] > 0}
    if not ages:
        return
    order = sorted(ages, key=lambda age: int(age.split("-")[0].rstrip("+")))
    report.add(scenario, "  table pictures by their worker's jobs done (ms each, jobs)",
               " · ".join(f"{age}: {ages[age][1] * 1000 / ages[age][0]:.1f} "
                          f"({ages[age][0]:.0f})" for age in order))
    stats["table_cpu_by_worker_age"] = ages


SPARE_COUNTS = ("lent", "not_lent_for_memory", "given_back_for_memory")


def spare_figures(report: Report, scenario: str, before: dict[str, int],
                  after: dict[str, int], stats: dict[str, Any]) -> None:
    """How often the pool lent its spare render worker in a phase (pictures over a second
    behind: ``RenderPool._maybe_lend``), and how often the memory budget kept it from being
    lent or took it back (``MEMORY_BUDGET_MB``). The pictures of a busy minute on 2 cores
    wait for the one standing worker when the budget has no room for a second: this row
    says so, where the bot's log (at WARNING in a load test) does not."""
    grown = {key: after.get(key, 0) - before.get(key, 0) for key in SPARE_COUNTS}
    report.add(scenario, "  spare render worker lent (kept back for memory; given back for it)",
               f"{grown['lent']} ({grown['not_lent_for_memory']}; "
               f"{grown['given_back_for_memory']})")
    stats["spare_worker"] = grown


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
    busiest_at = peak_start(counted, 1.0)
    report.add(scenario, "requests under the global limit: mean / busiest second",
               f"{len(counted) / seconds:.1f} / {busiest} per s", "", "<= 50 per s", busiest <= 50)
    kinds: dict[str, int] = {}
    for bucket in limiter.buckets.values():
        n = sum(1 for t in bucket.attempts if since <= t < until)
        if n:
            kinds[bucket.name] = kinds.get(bucket.name, 0) + n
    top = sorted(kinds.items(), key=lambda kv: -kv[1])[:5]
    report.add(scenario, "  requests by kind, a second (the five most)",
               " · ".join(f"{name} {n / seconds:.1f}" for name, n in top))
    report.add(scenario, "answered 429 by Discord (global / per route)",
               f"{on_global} / {len(hits) - on_global}", "", "0", not hits)
    own = city.players.own_stalls
    own_ms = own.longest(since, until) if own is not None else None
    if own_ms is not None:
        # the fake counts a request when its loop gets to it; a stall here bunches them
        report.add(scenario, "the fake Discord's own longest stall", own_ms, "ms", "<= 50 ms",
                   own_ms <= 50)
    return {"global_requests": len(counted), "busiest_second": busiest,
            "busiest_second_at_s": None if busiest_at is None else round(busiest_at - since, 1),
            "rate_limited_global": on_global, "rate_limited_route": len(hits) - on_global,
            "rate_limited_examples": [str(h) for h in hits[:5]], "fake_stall_ms": own_ms,
            "requests_by_kind": kinds}


def _kinds(clicks: list[Click]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in clicks:
        kind = c.kind.split(":", 1)[-1]
        out[kind] = out.get(kind, 0) + 1
    return out


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
