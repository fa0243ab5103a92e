"""Opt-in event-loop stall monitor, for load tests that watch the bot from outside.

With ``CITYHALL_LOOP_STATS=<path>`` set, a ticker task asks to wake every 10 ms; how late
it actually wakes is how long something else held the loop (a stall). Once a second the
figures are written atomically to ``<path>`` as JSON::

    {"pid": 123, "started": 1700000000.0, "updated": 1700000042.0, "samples": 4100,
     "max_stall_ms": 38.2, "p99_stall_ms": 4.1,
     "seconds": [[1700000041.0, 2.3, 1.9, 98], ...]}

``max_stall_ms``/``p99_stall_ms`` cover the whole run; ``seconds`` holds, for each of the
last 15 minutes' seconds, [end time (Unix), max stall ms, p99 stall ms, samples], and
``stalls`` the last 2,000 stalls of 20 ms or more as [wake-up time (Unix), ms, CPU ms,
waited ms, stolen ms], so a load test can pick out the stalls of one phase (a restore, a
burst) exactly and say what each was. CPU ms is what the loop's thread itself ran
meanwhile: near the stall, the loop was busy. Waited ms is how long the thread was ready
to run but had no core (Linux's run-queue wait, ``/proc/thread-self/schedstat``). Stolen ms
is the CPU time the host took from this machine's cores meanwhile, all cores together
(``/proc/stat``'s steal, counted in 10 ms ticks): a virtual machine whose host runs
something else stalls every process in it, which no code inside can shorten. What a stall
holds beyond what the thread ran and waited, it slept (the GIL, a lock, a blocking call) or
the machine was not running at all; steal says which. Where ``/proc`` does not say (not
Linux), the last two are None.

To say what a stall was, a watcher thread looks at the loop's thread while it is stalled:
``stall_stacks`` counts the innermost frames it found there (file:line function, most
frequent first), each followed by where Linux had the thread (``kernel_place``: running,
or asleep and in which kernel function, the GIL's or a lock's futex, a pipe, a disk) and,
when it was ready to run and had no core, whose threads had the cores
(``running_tasks``: the bot's, its render workers', the load test's, the kernel's), and ``gc`` the garbage collector's pauses of 10 ms or more per
generation: [count, worst ms, that pause's CPU ms, objects it freed]. Without the variable nothing runs.

Other parts of the bot add figures of their own under a key (``add_reporter``): the render
pool its workers' CPU per kind of job (``render_cpu``), read at each second's write.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import orjson

ENV = "CITYHALL_LOOP_STATS"
TICK = 0.010
KEEP_SECONDS = 900
KEEP_STALLS = 2000
NOTABLE_MS = 20.0
# Stalls are bucketed by the millisecond (the top bucket catches everything longer) so
# the whole-run p99 needs no list of every sample.
BUCKETS = 10_000

_task: asyncio.Task[None] | None = None
_reporters: dict[str, Callable[[], Any]] = {}


class _Clocks:
    """The loop thread's run-queue wait (ns) and the machine's stolen time (ms), read by
    ``pread`` on files opened once (a tick reads both in ~12 us); None where unreadable.
    Opened in the loop's thread: ``/proc/thread-self`` is the thread that opens it."""

    def __init__(self) -> None:
        self._sched = self._open("/proc/thread-self/schedstat")
        self._stat = self._open("/proc/stat")
        self._tick_ms = 1000.0 / os.sysconf("SC_CLK_TCK") if self._stat is not None else 0.0

    @staticmethod
    def _open(path: str) -> int | None:
        try:
            return os.open(path, os.O_RDONLY)
        except OSError:
            return None

    def waited_ns(self) -> int | None:
        if self._sched is None:
            return None
        try:
            return schedstat_wait_ns(os.pread(self._sched, 128, 0))
        except (OSError, ValueError, IndexError):
            return None

    def stolen_ms(self) -> float | None:
        if self._stat is None:
            return None
        try:
            return steal_ticks(os.pread(self._stat, 256, 0)) * self._tick_ms
        except (OSError, ValueError, IndexError):
            return None


def schedstat_wait_ns(text: bytes) -> int:
    """``/proc/<pid>/task/<tid>/schedstat`` is "<ns on a core> <ns waiting for one>
    <timeslices>": the second."""
    return int(text.split()[1])


def steal_ticks(text: bytes) -> int:
    """``/proc/stat`` begins "cpu  user nice system idle iowait irq softirq steal ...",
    all cores together, in clock ticks: the eighth number, steal."""
    first = text.split(b"\n", 1)[0].split()
    if first[0] != b"cpu":
        raise ValueError("not /proc/stat")
    return int(first[8])


def _delta(before: float | None, after: float | None, scale: float = 1.0) -> float | None:
    if before is None or after is None:
        return None
    return round(max(0.0, after - before) * scale, 2)


def add_reporter(name: str, report: Callable[[], Any]) -> None:
    """Write ``report()`` (JSON-able) under ``name`` with each second's figures."""
    _reporters[name] = report
STACK_AFTER = 0.030  # a tick this late means the loop is stuck: look at what it runs
STACK_DEPTH = 6
WATCH_EVERY = 0.025


class _StallWatcher:
    """Samples the loop thread's stack while the loop is late, and times GC pauses."""

    def __init__(self) -> None:
        self.beat = time.monotonic()
        self.loop_thread = threading.get_ident()
        self._loop_tid = threading.get_native_id()
        self._task_dir = f"/proc/self/task/{self._loop_tid}"
        self.stacks: Counter[str] = Counter()
        self.gc_pauses: Counter[str] = Counter()
        self.gc_worst: dict[str, tuple[float, float, int]] = {}
        self._gc_started = 0.0
        self._gc_cpu = 0.0
        self._lock = threading.Lock()  # the watcher thread counts while the loop reports
        gc.callbacks.append(self._on_gc)
        threading.Thread(target=self._run, name="loopmonitor", daemon=True).start()

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            self._gc_cpu = time.thread_time()
            return
        ms = (time.perf_counter() - self._gc_started) * 1000
        if ms >= 10:
            cpu = (time.thread_time() - self._gc_cpu) * 1000
            key = f"gen{info.get('generation')}"
            self.gc_pauses[key] += 1
            if ms > self.gc_worst.get(key, (0.0, 0.0, 0))[0]:
                self.gc_worst[key] = (round(ms, 1), round(cpu, 1),
                                      int(info.get("collected", 0)))

    def _run(self) -> None:
        while True:
            # Each wake-up takes the GIL from the loop's thread; a coarse look keeps the
            # watcher from adding the very stalls it reports.
            time.sleep(WATCH_EVERY)
            if time.monotonic() - self.beat < STACK_AFTER:
                continue
            frame = sys._current_frames().get(self.loop_thread)
            if frame is not None:
                where = _describe(frame) + kernel_place(self._task_dir)
                if where.endswith(" [R]"):  # ready to run and no core: whose were they?
                    others = running_tasks({self._loop_tid, threading.get_native_id()})
                    where += " beside " + (", ".join(others) or "-")
                with self._lock:
                    self.stacks[where] += 1

    def report(self) -> dict[str, Any]:
        with self._lock:
            stacks = self.stacks.most_common(40)
        return {"stall_stacks": stacks,
                "gc": {k: [v, *self.gc_worst[k]] for k, v in self.gc_pauses.items()}}


def kernel_place(task_dir: str) -> str:
    """Where Linux has the loop's thread: " [R]" running (or ready to run), else " [S" or
    " [D" (asleep; D: uninterruptibly, on a disk or the like) and the kernel function it
    sleeps in (``wchan``: futex_wait_queue for a lock or the GIL, do_epoll_wait for the
    loop's own idle wait, ...). "" where ``/proc`` does not say."""
    try:
        with open(f"{task_dir}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0].decode()
        if state == "R":
            return " [R]"
        with open(f"{task_dir}/wchan") as wchan:
            return f" [{state} {wchan.read().strip()}]"
    except (OSError, IndexError, UnicodeDecodeError):
        return ""


def running_tasks(leave_out: set[int], proc: str = "/proc") -> list[str]:
    """The threads of this machine on a core or waiting for one (state R), but those in
    ``leave_out`` (the loop's and the watcher's own), by whose
    they are: "bot" (this process's), "worker" (its children: the render workers),
    "parent" (whoever started the bot: the load test) or the kernel's name for the
    program, each with its nice value where not 0. Read only while the loop is stalled."""
    me, parent = os.getpid(), os.getppid()
    left_out = {str(tid) for tid in leave_out}
    found: Counter[str] = Counter()
    for pid_dir in os.scandir(proc):
        if not pid_dir.name.isdigit():
            continue
        try:
            tasks = list(os.scandir(f"{pid_dir.path}/task"))
        except OSError:
            continue
        for task in tasks:
            if task.name in left_out:
                continue
            try:
                with open(f"{task.path}/stat", "rb") as stat:
                    text = stat.read()
            except OSError:
                continue
            name, _, rest = text.partition(b" (")[2].rpartition(b") ")
            fields = rest.split()
            if not fields or fields[0] != b"R":
                continue
            pid, ppid, nice = int(pid_dir.name), int(fields[1]), int(fields[16])
            whose = ("bot" if pid == me else "worker" if ppid == me else
                     "parent" if pid == parent else name.decode(errors="replace"))
            found[whose if nice == 0 else f"{whose} (nice {nice})"] += 1
    return [f"{n} {whose}" if n > 1 else whose for whose, n in sorted(found.items())]


def _describe(frame: FrameType | None) -> str:
    parts: list[str] = []
    while frame is not None and len(parts) < STACK_DEPTH:
        code = frame.f_code
        parts.append(f"{Path(code.co_filename).name}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return " < ".join(parts)


def start_from_env() -> asyncio.Task[None] | None:
    """Start the monitor on the running loop if CITYHALL_LOOP_STATS names a file."""
    global _task
    path = os.environ.get(ENV, "").strip()
    if not path or _task is not None:
        return _task
    _task = asyncio.get_running_loop().create_task(_watch(Path(path)), name="loopmonitor")
    return _task


def _p99(counts: list[int], total: int) -> float:
    if total == 0:
        return 0.0
    wanted = total - int(total * 0.99)  # samples above the 99th percentile, at least 1
    seen = 0
    for ms in range(len(counts) - 1, -1, -1):
        seen += counts[ms]
        if seen >= wanted:
            return float(ms)
    return 0.0


async def _watch(path: Path) -> None:
    loop = asyncio.get_running_loop()
    started = time.time()
    counts = [0] * BUCKETS
    samples = 0
    worst = 0.0
    seconds: deque[list[float]] = deque(maxlen=KEEP_SECONDS)
    stalls: deque[list[float | None]] = deque(maxlen=KEEP_STALLS)
    window: list[float] = []
    window_end = loop.time() + 1.0
    watcher = _StallWatcher()
    clocks = _Clocks()
    while True:
        asked = loop.time()
        ran = time.thread_time()
        waited = clocks.waited_ns()
        stolen = clocks.stolen_ms()
        watcher.beat = time.monotonic()
        await asyncio.sleep(TICK)
        watcher.beat = time.monotonic()
        stall = max(0.0, (loop.time() - asked - TICK) * 1000)
        samples += 1
        counts[min(BUCKETS - 1, int(stall))] += 1
        worst = max(worst, stall)
        if stall >= NOTABLE_MS:
            stalls.append([round(time.time(), 3), round(stall, 2),
                           round((time.thread_time() - ran) * 1000, 2),
                           _delta(waited, clocks.waited_ns(), 1e-6),
                           _delta(stolen, clocks.stolen_ms())])
        window.append(stall)
        if loop.time() < window_end:
            continue
        window.sort()
        seconds.append([round(time.time(), 3), round(window[-1], 2),
                        round(window[min(len(window) - 1, int(len(window) * 0.99))], 2),
                        len(window)])
        window = []
        window_end = loop.time() + 1.0
        report = {"pid": os.getpid(), "started": started, "updated": time.time(),
                  "samples": samples, "max_stall_ms": round(worst, 2),
                  "p99_stall_ms": _p99(counts, samples), "notable_ms": NOTABLE_MS,
                  "seconds": list(seconds),
                  "stalls": list(stalls), **watcher.report()}
        for name, reporter in list(_reporters.items()):
            try:
                report[name] = reporter()
            except Exception:  # a monitor must never take the bot down
                report[name] = None
        try:
            # tmp + rename: a reader never sees half a file
            tmp = path.with_name(path.name + ".tmp")
            # orjson: the standard library's took ~2.7 ms a second for a long run's report
            tmp.write_bytes(orjson.dumps(report, option=orjson.OPT_NON_STR_KEYS))
            os.replace(tmp, path)
        except OSError:
            pass  # a monitor must never take the bot down
