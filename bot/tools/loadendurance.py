"""The load test's endurance phases: kill -9 and restart (every match answering a click
again), the soak on the restored bot with its memory samples, and the database's growth
per game played to the end."""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import time
from typing import TYPE_CHECKING

from bot.tools import procs
from bot.tools.botprocess import Bots, stall_figures
from bot.tools.loadclicks import limit_figures, sustained
from bot.tools.loaddb import LoadDatabase
from bot.tools.players import Cityscape, Recorder, Table, is_final, seat, shows_only
from bot.tools.report import Report, click_figures
from fakediscord import FakeDiscord

if TYPE_CHECKING:
    from bot.tools.loadconfig import Config


ORPHAN_WAIT_S = 10.0


async def restart(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
                  recorder: Recorder, spread: float, retry: float = 5.0,
                  give_up: float = 60.0, *, moves: bool = True) -> None:
    """kill -9 (every bot process at once), start again, and click every match's table
    until each one answers: the first clicks go out evenly over ``spread`` seconds after
    the (last) READY (0.2 s by default: a crowd, many in the same 100 ms), a match that did
    not answer (or answered with an error) is clicked again ``retry`` seconds later, as a
    person would try again; matches still silent after ``give_up`` seconds are reported.
    With ``moves``, each first click is the one its player would make next (a move, or the
    button that opens their picker: ``Player.step``); else, and where nobody is due, a
    button that shows something privately."""
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
            click = None
            if moves and not table.busy:
                table.busy = True
                try:
                    click = await city.step(table, "restore")
                finally:
                    table.busy = False
            target = city.table_click(table) if click is None else None
            if target is not None:
                user, msg, custom_id = target
                click = await city.players.send("restore", city.fake.click(user, msg, custom_id),
                                                table, watch_table=not shows_only(custom_id))
            if click is not None:
                first_sent.setdefault(i, click.sent)
                if click.ok and click.latency_ms is not None:
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
    for game in sorted({t.game for t in tables}):
        mine = [i for i, t in enumerate(tables) if t.game == game]
        times = [answered_at[i] for i in mine if i in answered_at]
        report.add("restart", f"  {game}: READY -> every match answered / answering",
                   f"{max(times) - ready_at:.2f} s / {len(times)}/{len(mine)}"
                   if times else f"— / 0/{len(mine)}")
    sent = sorted(first_sent.values())
    if sent:
        first = sent[0]
        report.add("restart", "first clicks sent in the first 100 ms / 200 ms after the first",
                   f"{sum(1 for t in sent if t - first <= 0.1)} / "
                   f"{sum(1 for t in sent if t - first <= 0.2)}")
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


async def soak(report: Report, bot: Bots, city: Cityscape, tables: list[Table],
               config: Config) -> None:
    # (seconds, all processes MB, the bot process alone MB, processes: a lent spare worker
    # makes one more)
    samples: list[tuple[float, float, float, int]] = []
    pss: list[float] = []  # each sample's PSS, all processes (a shared page counted once)
    began = time.monotonic()

    def take() -> None:
        rss = bot.rss()
        samples.append((round(time.monotonic() - began, 1), rss["total_mb"], bot.bots_mb(rss),
                        int(rss.get("processes", 0))))
        pss.append(float(rss.get("total_pss_mb", 0.0)))

    async def sample() -> None:
        while True:
            take()
            await asyncio.sleep(config.sample_every)

    sampler = asyncio.create_task(sample())
    workers_before = bot.render_workers()
    try:
        await sustained(report, bot, city, tables, config.soak_rate, config.soak, "soak",
                        p95_target=60.0 if config.soak_rate <= 35 else None,
                        picture_target=1000.0 if config.soak_rate <= 35 else None)
    finally:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
    take()
    workers = bot.render_workers()
    replaced = {key: workers.get(key, 0) - workers_before.get(key, 0)
                for key in ("replaced", "replaced_for_memory", "handed_over")}
    report.add("soak", "render workers replaced (of them for their memory)",
               f"{replaced['replaced']} ({replaced['replaced_for_memory']})")
    report.add("soak", "  of them drawing on while their successor started",
               replaced["handed_over"])
    values = [total for _, total, _, _ in samples]
    report.add("soak", "RSS first sample", values[0], "MB")
    report.add("soak", "RSS last sample", values[-1], "MB")
    report.add("soak", "RSS max", max(values), "MB", "<= 300 MB", max(values) <= 300)
    _, _, its_bot, processes = max(samples, key=lambda row: row[1])
    report.add("soak", "RSS max: the bot process / processes then",
               f"{its_bot:.1f} MB / {processes}")
    report.add("soak", "  PSS max (a shared page counted once)", max(pss), "MB")
    report.add("soak", "RSS growth last - first", values[-1] - values[0], "MB")
    # "Flat after warm-up": the soak starts right after the restart, with cold render
    # workers and an allocator that has not yet reached its working size; a worker is
    # replaced after 2,000 pictures or over 150 MB (in the mixed soak, for its memory every
    # ~24 s: the "render workers replaced" row), which drops its memory at random moments.
    # Measured at 1,000 matches, the bot process grows for about four minutes and then holds
    # (its count of Python objects, sampled each minute, goes up and down with the garbage
    # awaiting collection but does not climb), so the first half of the soak is the warm-up:
    # the figure with a target compares the medians of the minute at half time and of the
    # last minute; from the second minute is shown too, without one.
    end = samples[-1][0]
    half = end / 2
    # All processes together move in steps: a render worker grows over its life
    # (about 110 -> 160 MB for two) and drops when it is replaced, so two medians a few
    # minutes apart compare two points of that saw. What must not grow is its peak: the
    # highest sample of the second half against the highest of the first (after the
    # first minute's warm-up).
    first = [total for t, total, _, _ in samples if 60 <= t < half]
    second = [total for t, total, _, _ in samples if t >= half]
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


def _median_between(samples: list[tuple[float, float, float, int]], column: int, start: float,
                    end: float) -> float | None:
    values = [row[column] for row in samples if start <= row[0] < end]
    return statistics.median(values) if values else None


async def growth(report: Report, fake: FakeDiscord, city: Cityscape, db: LoadDatabase,
                 games: int, kinds: list[str] | None = None, give_up: float = 600.0) -> None:
    """Play ``games`` games of each of ``kinds`` (one kind after the other, seated as the
    load's tables are) to the end by clicks in new channels, and compare the database
    before and after each kind: the checkpointed SQLite file's pages in use, or
    PostgreSQL's size of Cityhall's tables (LoadDatabase.size). Without ``kinds``: two
    people a table playing one-round Cityscape (the light profile). A kind's games still
    unfinished after ``give_up`` seconds are left (and reported as such)."""
    if games <= 0:
        return
    guild = fake.add_guild("Growth")
    batches: list[tuple[str, list[Table]]] = []
    n = 0
    for kind in kinds or ["cityscape"]:
        tables = []
        for i in range(games):
            channel = await fake.add_channel(f"grow-{n}", guild_id=guild.id)
            host = await fake.add_member(f"ghost{n}", guild_id=guild.id)
            guest = await fake.add_member(f"gguest{n}", guild_id=guild.id)
            table = Table(guild.id, channel["id"], host, guest, kind)
            if kinds:
                await seat(fake, table, i + 1)  # the first with a computer player
            tables.append(table)
            n += 1
        batches.append((kind, tables))
    city.players.watch([t for _, batch in batches for t in batch])
    await asyncio.sleep(0.5)  # GUILD_CREATE reaches the bot
    began_all = time.monotonic()
    first_before: dict[str, object] | None = None
    finished_all = grown_all = 0
    per_kind: dict[str, dict[str, object]] = {}
    for kind, tables in batches:
        before_bytes, before = await db.size()
        first_before = first_before or before
        began = time.monotonic()
        print(f"{time.strftime('%H:%M:%S')} loadtest: growth: {len(tables)} {kind} games",
              file=sys.stderr, flush=True)
        finished = sum(await asyncio.gather(*(_play_to_end(city, t, began, give_up)
                                              for t in tables)))
        await asyncio.sleep(1.0)  # the last results are committed before the final table shows
        after_bytes, after = await db.size()
        grown = after_bytes - before_bytes
        per_game = grown / finished if finished else None
        finished_all += finished
        grown_all += grown
        clicks = sum(1 for c in city.players.recorder.clicks
                     if c.kind.startswith("growth") and c.game == kind and c.sent >= began)
        per_kind[kind] = {"finished": finished, "games": len(tables), "bytes": grown,
                          "per_game": per_game, "seconds": time.monotonic() - began,
                          "clicks": clicks}
        if kinds:
            report.add("growth", f"  {kind}: bytes per finished game ({finished}/{len(tables)}"
                       f" games, {clicks} clicks)", per_game, "B", "<= 5000 B",
                       None if per_game is None else per_game <= 5000)
    total = sum(len(t) for _, t in batches)
    per_game = grown_all / finished_all if finished_all else None
    report.add("growth", "games played to the end by clicks", f"{finished_all}/{total}")
    report.add("growth", "seconds for them", time.monotonic() - began_all, "s")
    report.add("growth", "database bytes per finished game", per_game, "B", "<= 5000 B",
               None if per_game is None else per_game <= 5000)
    if db.postgres:
        report.add("growth", "  measured as", db.growth_measure())
    report.details["growth"] = {"before": first_before, "after": after, "finished": finished_all,
                                "measure": db.growth_measure(), "per_game": per_kind}


async def _play_to_end(city: Cityscape, table: Table, began: float, give_up: float) -> bool:
    """Click in this channel until its game is over, as a person would: after a click that
    showed nothing to choose from, look at the table again once it changes."""

    def over() -> bool:
        msg = city.table_message(table) if table.stage == "playing" else None
        return msg is not None and is_final(msg)

    while time.monotonic() - began < give_up:
        while not table.ready(time.monotonic()):
            await asyncio.sleep(0.05)
        if over():  # (not a new game: Player.step opens one on a finished table)
            return True
        if await city.step(table, "growth") is None:
            await asyncio.sleep(0.1)
    return False
