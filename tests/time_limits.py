"""Per-test time limits that a busy machine does not trip, and a hang that explains itself.

A test's limit (``timeout`` in pyproject.toml, or its ``timeout`` marker) is what it may take
on an idle 2-core machine like CI's, with a wide margin. When it runs out, the limit is
stretched by how much slower the machine is right now (``slowdown``), up to ``MAX_STRETCH``
times, and the test goes on if it is still within that: a correct test on a machine shared
with other work passes; a deadlocked one is still caught, on an idle machine at its limit.

A test that runs out of the stretched limit ends the run, after saying, before any fixture
tears anything down: its name, the limit, every thread's stack and every asyncio task's
chain of awaits. The child processes the run started (bots, render workers, the PostgreSQL
server) are ended with it, so none outlives the run holding a port or a folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CoroutineType, GeneratorType
from typing import IO, Any, NamedTuple

import pytest

from fakediscord.patience import MAX_STRETCH

# pure_python_work() takes about 0.033 s on CI's 2-core machine (AMD EPYC, 29 Nov 2026);
# a machine slower than this stretches every limit by its ratio to it (the margin keeps
# timing noise from stretching anything on CI's own machine).
REFERENCE_WORK_SECONDS = 0.045


def pure_python_work() -> float:
    """Seconds one fixed piece of interpreter work takes here (the best of three)."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        total = 0
        for i in range(300_000):
            total += i * i % 7
        best = min(best, time.perf_counter() - began)
    return best


def machine_speed() -> float:
    """How many times slower than CI's idle machine this one computes (at least 1).

    The best of three runs, taken at the start of the run: it measures the processor, not
    whatever else shares it at that moment (``contention`` measures that, when it matters).
    """
    return max(1.0, pure_python_work() / REFERENCE_WORK_SECONDS)


def contention(samples: int = 10, interval: float = 0.05) -> float:
    """How many times over the machine's cores are asked for right now (at least 1): the
    tasks ready to run per core, sampled for half a second, or the one-minute load average
    per core if that is higher (a hog that pauses between bursts)."""
    cores = os.cpu_count() or 1
    runnable: list[int] = []
    load = 0.0
    for _ in range(samples):
        try:
            fields = Path("/proc/loadavg").read_text().split()
        except OSError:
            return 1.0  # no /proc (not Linux): limits are not stretched
        load = float(fields[0])
        # "running/total": the running count includes this thread, which is only sampling
        runnable.append(max(0, int(fields[3].split("/")[0]) - 1))
        time.sleep(interval)
    return max(1.0, sum(runnable) / len(runnable) / cores, load / cores)


class Limit:
    """One test's limit: a timer that, when it runs out, stretches by the machine's slowdown
    and runs on, or calls ``expired``."""

    def __init__(self, seconds: float, speed: float, expired: Callable[[float, float], None],
                 *, name: str, slowdown: Callable[[], float] = contention) -> None:
        self.seconds = seconds
        self.speed = speed
        self._expired = expired
        self._slowdown = slowdown
        self._name = name
        self._began = time.monotonic()
        self._lock = threading.Lock()
        self._cancelled = False
        self._timer: threading.Timer | None = None
        self._arm(seconds * speed)

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(max(0.05, delay), self._check)
        timer.name = f"time limit of {self._name}"
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _check(self) -> None:
        stretch = min(MAX_STRETCH, self.speed * self._slowdown())
        elapsed = time.monotonic() - self._began
        allowed = self.seconds * stretch
        with self._lock:
            if self._cancelled:
                return
            if elapsed < allowed:
                self._arm(allowed - elapsed)
                return
        self._expired(elapsed, stretch)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
            timer.join()


# ----------------------------------------------------------------- what was stuck ---


def thread_stacks(out: IO[str]) -> None:
    me = threading.get_ident()
    names = {t.ident: t.name for t in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        if ident == me:
            continue
        out.write(f"\n--- thread {names.get(ident, '?')} ({ident}) ---\n")
        out.write("".join(traceback.format_stack(frame)))


def _await_chain(task: asyncio.Task[Any]) -> Iterator[str]:
    """Where a task is: each coroutine it is inside, outermost first, and what the innermost
    one waits for (a future, an event's waiter, a sleep)."""
    awaited: Any = task.get_coro()
    while awaited is not None:
        if isinstance(awaited, CoroutineType):
            frame, awaited = awaited.cr_frame, awaited.cr_await
        elif isinstance(awaited, GeneratorType):
            frame, awaited = awaited.gi_frame, awaited.gi_yieldfrom
        elif hasattr(awaited, "cr_frame"):  # a coroutine of a C extension's kind
            frame, awaited = awaited.cr_frame, getattr(awaited, "cr_await", None)
        else:
            break  # a future's iterator: the future itself is the task's waiter
        if frame is not None:
            code = frame.f_code
            yield f'  File "{code.co_filename}", line {frame.f_lineno}, in {code.co_name}'
    waiter = getattr(task, "_fut_waiter", None)
    if waiter is not None:
        yield f"    waiting for {waiter!r}"[:300]


def task_stacks(out: IO[str]) -> None:
    """Every running event loop's tasks (found among live objects: the loop runs in another
    thread, out of reach of get_running_loop)."""
    loops = [obj for obj in gc.get_objects()
             if isinstance(obj, asyncio.AbstractEventLoop) and obj.is_running()]
    for loop in loops:
        try:
            tasks = sorted(asyncio.all_tasks(loop), key=lambda t: t.get_name())
        except RuntimeError:  # the set changed while being read; the loop runs on
            tasks = []
        out.write(f"\n--- {len(tasks)} asyncio task(s) of {type(loop).__name__} ---\n")
        for task in tasks:
            out.write(f"{task.get_name()}:\n")
            try:
                out.write("\n".join(_await_chain(task)) + "\n")
            except Exception as exc:  # a task that finished while being read
                out.write(f"    (unreadable: {exc!r})\n")


# ------------------------------------------------------------------ child processes ---


class Process(NamedTuple):
    parent: int
    command: str


def descendants(root: int | None = None) -> dict[int, Process]:
    """This process's child processes and theirs, by pid."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # ended meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue  # ended, only waiting for its parent to read its status
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        commands[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    found: dict[int, Process] = {}
    frontier = [root or os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = Process(ppid, commands[pid] or "?")
                frontier.append(pid)
    return found


def end_processes(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def report_and_end_run(item: pytest.Item, limit: Limit, elapsed: float, stretch: float,
                       before_exit: Callable[[], None]) -> None:
    """Say what the test was doing, end the processes it started, and end the run."""
    capman = item.config.pluginmanager.getplugin("capturemanager")
    try:
        if capman is not None:
            capman.suspend_global_capture(in_=True)
        out = sys.stderr
        out.write(f"\n\nTIMEOUT: {item.nodeid} still running after {elapsed:.0f} s "
                  f"(its limit: {limit.seconds:g} s on an idle machine, stretched "
                  f"{stretch:.1f}× for this one's speed and load)\n")
        thread_stacks(out)
        task_stacks(out)
        out.write(f"\nTIMEOUT: {item.nodeid}: ending the run.\n")
        out.flush()
    except Exception:
        traceback.print_exc()
    finally:
        try:
            before_exit()
            end_processes(list(descendants()))
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(1)
