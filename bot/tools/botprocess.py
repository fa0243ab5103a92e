"""The bot as an admin runs it (``python -m bot run``), pointed at the fake Discord, with
the opt-in loop monitor's file to read its stalls from; with ``--processes N``, N of them,
each owning its own Discord shards (``SHARD_COUNT``, ``SHARD_IDS``) over one PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.tools import procs
from bot.tools.report import Report

if TYPE_CHECKING:
    from bot.tools.loadconfig import Config
    from fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent.parent


class BotProcess:
    """``python -m bot run`` as an admin starts it, pointed at the fake."""

    def __init__(self, fake: FakeDiscord, database: dict[str, str], work: Path, config: Config,
                 *, shards: tuple[int, ...] | None = None, shard_count: int = 1,
                 name: str = "bot") -> None:
        """``database``: DATABASE_PATH or DATABASE_URL. ``shards``: the SHARD_IDS of
        ``shard_count`` this process owns (None: the plain one-process bot); ``name``
        prefixes its log and loop-stats files when there are several."""
        self.fake, self.database, self.work, self.config = fake, database, work, config
        self.shards, self.shard_count, self.name = shards, shard_count, name
        # one process keeps the file names it always had
        self.prefix = "" if name == "bot" else f"{name}-"
        self.stats_path = work / f"{self.prefix}loopstats.json"
        self.process: asyncio.subprocess.Process | None = None
        self.started = 0.0  # time.monotonic() just before the process was spawned
        self.started_wall = 0.0
        self.starts = 0

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def _env(self) -> dict[str, str]:
        # PYTHONDONTWRITEBYTECODE (set on some development machines and CI) is dropped: a
        # deployed bot starts from its compiled modules, and compiling every module again
        # at each start would add about a second to the measured restart.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "DEV_GUILD", "DATABASE_", "SHARD_"))
               and k != "PYTHONDONTWRITEBYTECODE"}
        env.update(self.database)
        if self.shards is not None:
            env.update(SHARD_COUNT=str(self.shard_count),
                       SHARD_IDS=",".join(str(s) for s in self.shards))
        if self.fake.rate_limit_scale != 1.0:  # the tests' shortened windows, as the fake's
            env.update(DISCORD_RATE_LIMIT_SCALE=str(self.fake.rate_limit_scale))
        env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN=self.fake.token,
                   DISCORD_API_BASE=self.fake.api_base, CPU_DELAY="0", LOG_LEVEL="WARNING",
                   TURN_SECONDS=str(self.config.turn_seconds),
                   CITYHALL_LOOP_STATS=str(self.stats_path))
        # No DEV_GUILD_ID: the load spans several guilds, so commands are synced globally
        # (the fake makes global commands usable at once).
        return env

    async def start(self, timeout: float = 120.0) -> float:
        """Spawn the bot; return seconds from spawn to its gateway READY."""
        known = set(self.fake.sessions)
        # The previous process's figures stay beside for a look afterwards.
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.stats_path, self.work / f"{self.prefix}loopstats-{self.starts}.json")
        self.starts += 1
        log = open(self.log_path, "wb")  # noqa: SIM115 - the child owns it
        self.started, self.started_wall = time.monotonic(), time.time()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run", cwd=str(ROOT), env=self._env(),
            stdout=log, stderr=asyncio.subprocess.STDOUT)
        log.close()

        def ready() -> bool:
            if self.process is not None and self.process.returncode is not None:
                raise RuntimeError(f"the bot exited with {self.process.returncode}; see "
                                   f"{self.log_path}")
            if self.shards is None:
                return any(s.connection is not None for k, s in self.fake.sessions.items()
                           if k not in known)
            return set(self.shards) <= {
                s.shard[0] for k, s in self.fake.sessions.items()
                if k not in known and s.connection is not None and s.shard[1] == self.shard_count}

        await self.fake.wait_until(ready, timeout, "the bot's gateway READY")
        return time.monotonic() - self.started

    async def kill(self) -> None:
        """kill -9: no goodbye, no clean shutdown."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        await self.fake.wait_until(
            lambda: not any(s.connection is not None and self._mine(s.shard)
                            for s in self.fake.sessions.values()),
            15, "the killed bot's socket to close")

    def _mine(self, shard: tuple[int, int]) -> bool:
        return self.shards is None or (shard[1] == self.shard_count and shard[0] in self.shards)

    @property
    def log_path(self) -> Path:
        return self.work / f"{self.prefix or 'bot-'}{self.starts}.log"

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 15)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()

    def rss(self) -> dict[str, Any]:
        return procs.tree_rss(self.pid)

    def loop_stats(self) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = json.loads(self.stats_path.read_text())
            return data
        except (OSError, ValueError):
            return None

    def stall_between(self, begin_wall: float, end_wall: float) -> dict[str, Any]:
        """Longest stall and the worst one-second p99 in a wall-clock window. Stalls of
        20 ms and more carry their own time; a second that only partly overlaps the window
        counts only when it held nothing that long (so a start-up stall just before READY
        is not charged to what follows)."""
        data = self.loop_stats()
        if not data:
            return {"max_ms": None, "p99_ms": None, "seconds": 0}
        notable = float(data.get("notable_ms", 20.0))
        rows = [r for r in data.get("seconds", [])
                if r[0] > begin_wall and r[0] - 1.0 <= end_wall
                and (r[0] - 1.0 >= begin_wall - 0.05 or r[1] < notable)]
        recorded = [s for s in data.get("stalls", []) if begin_wall <= s[0] <= end_wall]
        stalls = [s[1] for s in recorded]
        if not rows and not stalls:
            return {"max_ms": None, "p99_ms": None, "seconds": 0}
        longest = max(recorded, key=lambda s: s[1], default=None)
        return {"max_ms": max([r[1] for r in rows] + stalls),
                "p99_ms": max((r[2] for r in rows), default=None), "seconds": len(rows),
                # what the loop's thread itself ran during its longest recorded stall, how
                # long it waited for a core, and what the host took from the machine's
                # cores meanwhile (bot/core/loopmonitor.py; older files lack the last two)
                "longest_cpu_ms": _part(longest, 2),
                "longest_waited_ms": _part(longest, 3),
                "longest_stolen_ms": _part(longest, 4)}

    # A settled bot and its render workers use less than this share of a core: an idle
    # bot with 10,000 matches uses ~1 %, a worker drawing a backlog a whole core.
    QUIET_CPU = 0.15

    async def settle(self, quiet_ms: float = 50.0, timeout: float = 120.0) -> float | None:
        """Wait until the bot's loop has been quiet for two whole seconds and the bot and
        its render workers used under ``QUIET_CPU`` of a core over them, so one phase's
        backlog (pictures still to draw and send) is not charged to the next; the seconds
        waited, None if it never was."""
        began = time.monotonic()
        # The last 2-3 s of (time.monotonic(), CPU seconds of the bot and its workers).
        cpu: list[tuple[float, float]] = []
        while time.monotonic() - began < timeout:
            now = time.monotonic()
            cpu.append((now, procs.tree_cpu_seconds(self.pid)))
            # From the newest sample two seconds old or more: however long a round of
            # this loop takes (it ran 0.6 s a round beside a 10,000-match fake, and a
            # window of samples under 2.2 s old then never spanned the 1.9 s asked for).
            while len(cpu) > 1 and now - cpu[1][0] >= 2.0:
                cpu.pop(0)
            spent = cpu[-1][1] - cpu[0][1]
            idle = now - cpu[0][0] >= 1.9 and spent < self.QUIET_CPU * (now - cpu[0][0])
            data = self.loop_stats() or {}
            rows = [r for r in data.get("seconds", []) if r[0] > self.started_wall]
            if idle and len(rows) >= 2 and all(r[1] < quiet_ms for r in rows[-2:]) \
                    and time.time() - rows[-1][0] < 1.5:
                return time.monotonic() - began
            await asyncio.sleep(0.5)
        return None

    async def wait_for_stats(self, after_wall: float, timeout: float = 5.0) -> None:
        """Until the monitor has written a second that ends after ``after_wall``."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            data = self.loop_stats()
            if data and data.get("seconds") and data["seconds"][-1][0] > after_wall + 1.0:
                return
            await asyncio.sleep(0.2)


class Bots:
    """Every bot process of a run, measured as one bot: an admin's figures cover them all.
    Memory is summed over every process and its render workers; a stall is the worst any
    process had; a restart kills them all at once and waits for the last READY."""

    def __init__(self, processes: list[BotProcess]) -> None:
        self.processes = processes

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes]

    def descendants(self) -> list[int]:
        return [pid for p in self.processes for pid in procs.descendants(p.pid)]

    async def start(self) -> float:
        """Spawn every process at once (as systemd starts its units); seconds from the
        spawn to the last one's READY."""
        return max(await asyncio.gather(*(p.start() for p in self.processes)))

    async def kill(self) -> None:
        await asyncio.gather(*(p.kill() for p in self.processes))

    async def stop(self) -> None:
        await asyncio.gather(*(p.stop() for p in self.processes))

    def rss(self) -> dict[str, Any]:
        trees = [p.rss() for p in self.processes]
        per: dict[str, float] = {}
        for tree in trees:
            per.update(tree["per_process_mb"])
        return {"total_mb": round(sum(t["total_mb"] for t in trees), 1),
                "total_pss_mb": round(sum(t["total_pss_mb"] for t in trees), 1),
                "processes": sum(t["processes"] for t in trees), "per_process_mb": per,
                "per_bot": [{"name": p.name, "shards": p.shards, "pid": p.pid,
                             "total_mb": tree["total_mb"], "processes": tree["processes"]}
                            for p, tree in zip(self.processes, trees, strict=True)]}

    def cpu_seconds(self) -> float:
        """CPU seconds run so far by every bot process and its render workers."""
        return sum(procs.tree_cpu_seconds(p.pid) for p in self.processes)

    def bot_cpu_seconds(self) -> float:
        """CPU seconds of the bot processes alone, without their render workers."""
        return sum(procs.cpu_seconds(pid) for pid in self.pids)

    def render_cpu(self) -> dict[str, list[float]]:
        """Every process's render workers' [jobs, CPU seconds] per kind of job so far, as
        the bots' loop monitors last wrote them (``bot.core.loopmonitor``, ``render_cpu``)."""
        return self._summed_pairs("render_cpu")

    def render_age(self) -> dict[str, list[float]]:
        """The same for their table pictures, by the worker's age in jobs
        (``PoolStats.table_cpu_by_age``, reporter ``render_age``)."""
        return self._summed_pairs("render_age")

    def _summed_pairs(self, key: str) -> dict[str, list[float]]:
        total: dict[str, list[float]] = {}
        for process in self.processes:
            for name, (count, cpu) in ((process.loop_stats() or {}).get(key)
                                       or {}).items():
                counted = total.setdefault(name, [0, 0.0])
                counted[0] += count
                counted[1] += cpu
        return total

    def render_workers(self) -> dict[str, int]:
        """Render workers started, replaced, and replaced for their memory so far, over
        every bot process, as their loop monitors last wrote them."""
        total: dict[str, int] = {}
        for process in self.processes:
            for key, value in ((process.loop_stats() or {}).get("render_workers")
                               or {}).items():
                total[key] = total.get(key, 0) + int(value)
        return total

    def bots_mb(self, rss: dict[str, Any]) -> float:
        """The bot processes alone in an rss() answer, without their render workers."""
        return round(sum(rss["per_process_mb"].get(str(pid), 0.0) for pid in self.pids), 1)

    def stall_between(self, begin_wall: float, end_wall: float) -> dict[str, Any]:
        return worst([p.stall_between(begin_wall, end_wall) for p in self.processes])

    def stall_since_start(self, end_wall: float) -> dict[str, Any]:
        return worst([p.stall_between(p.started_wall, end_wall) for p in self.processes])

    async def settle(self, timeout: float = 120.0) -> float | None:
        """Until every process and its workers are quiet; None if one never was."""
        if len(self.processes) == 1:
            return await self.processes[0].settle(timeout=timeout)
        began = time.monotonic()
        for p in self.processes:
            if await p.settle(timeout=timeout) is None:
                return None
        return time.monotonic() - began

    async def wait_for_stats(self, after_wall: float) -> None:
        await asyncio.gather(*(p.wait_for_stats(after_wall) for p in self.processes))


def _part(stall: list[Any] | None, index: int) -> float | None:
    """One field of a recorded stall, None where the monitor did not write it."""
    if stall is None or len(stall) <= index or stall[index] is None:
        return None
    return float(stall[index])


def worst(stalls: list[dict[str, Any]]) -> dict[str, Any]:
    """The worst of several processes' stall figures (one process: its own, unchanged)."""
    if len(stalls) == 1:
        return stalls[0]
    measured = [s for s in stalls if s["max_ms"] is not None]
    if not measured:
        return {"max_ms": None, "p99_ms": None, "seconds": 0}
    top = max(measured, key=lambda s: s["max_ms"])
    return {"max_ms": top["max_ms"],
            "p99_ms": max((s["p99_ms"] for s in measured if s["p99_ms"] is not None),
                          default=None),
            "seconds": max(s["seconds"] for s in measured),
            "longest_cpu_ms": top.get("longest_cpu_ms"),
            "longest_waited_ms": top.get("longest_waited_ms"),
            "longest_stolen_ms": top.get("longest_stolen_ms"),
            "per_process": stalls}


def stall_figures(report: Report, scenario: str, stall: dict[str, Any]) -> None:
    value = stall["max_ms"]
    report.add(scenario, "longest event-loop stall", value, "ms", "<= 50 ms",
               None if value is None else value <= 50)
    if stall.get("longest_cpu_ms") is not None:
        # far below the stall: the loop's thread was waiting (for a core, the GIL, the host)
        report.add(scenario, "  of which the loop's thread ran", stall["longest_cpu_ms"], "ms")
    if stall.get("longest_waited_ms") is not None:
        report.add(scenario, "  of which it waited for a free core",
                   stall["longest_waited_ms"], "ms")
    if stall.get("longest_stolen_ms") is not None:
        # Every core together, in 10 ms ticks: a host pausing this 2-core machine for
        # 60 ms shows ~120 ms. Not part of the stall's sum: the machine's, not the thread's.
        report.add(scenario, "  meanwhile the host took from this machine's cores (steal)",
                   stall["longest_stolen_ms"], "ms")


