"""The load test's loop monitor says what a stall was: the loop busy, waiting for a core,
or asleep (a lock, the GIL), beside what the host took from the machine meanwhile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core.loopmonitor import kernel_place, running_tasks, schedstat_wait_ns, steal_ticks

ROOT = Path(__file__).resolve().parent.parent

# A bot's loop held 90 ms twice: once running (a long computation), once asleep (a
# blocking call). The monitor's file is read after its next write (once a second).
STALLS = """
import asyncio, time
from bot.core import loopmonitor

async def main():
    loopmonitor.start_from_env()
    await asyncio.sleep(0.3)
    until = time.perf_counter() + 0.09
    while time.perf_counter() < until:
        pass
    await asyncio.sleep(0.3)
    time.sleep(0.09)
    await asyncio.sleep(1.5)

asyncio.run(main())
"""


def test_the_proc_files_are_read_as_linux_writes_them() -> None:
    assert schedstat_wait_ns(b"315992 92067 2\n") == 92067
    stat = (b"cpu  2877709 1344760 498704 13151893 41454 0 47499 13779 0 0\n"
            b"cpu0 1438000 672000 249000 6575000 20000 0 23000 6900 0 0\n")
    assert steal_ticks(stat) == 13779
    with pytest.raises(ValueError):
        steal_ticks(b"intr 1 2 3\n")


@pytest.mark.skipif(not os.path.exists("/proc/thread-self/schedstat"),
                    reason="Linux's per-thread scheduler figures")
@pytest.mark.timeout(60)
def test_a_stall_says_whether_the_loop_ran_or_slept(tmp_path: Path) -> None:
    stats = tmp_path / "loopstats.json"
    done = subprocess.run([sys.executable, "-c", STALLS], cwd=ROOT, capture_output=True,
                          text=True, timeout=50,
                          env={**os.environ, "CITYHALL_LOOP_STATS": str(stats)})
    assert done.returncode == 0, done.stderr[-2000:]
    recorded = [s for s in json.loads(stats.read_text())["stalls"] if s[1] >= 80]
    assert len(recorded) >= 2, recorded
    busy, asleep = sorted(recorded)[-2:]  # in the order they happened
    for stall in (busy, asleep):
        _when, _ms, _ran, waited, stolen = stall
        assert waited is not None and waited >= 0
        assert stolen is not None and stolen >= 0
    # Busy: the thread ran, or was ready to and waited for a core, for most of it.
    assert busy[2] + busy[3] >= 60, busy
    # Asleep: most of it neither ran nor waited for a core.
    assert asleep[2] < 30 and asleep[2] + asleep[3] <= asleep[1] - 50, asleep

    # The watcher's look at the stalled thread says where Linux had it: running through
    # the busy one, asleep in the kernel's sleep through the other.
    places = [where.rsplit(" [", 1)[-1] for where, _count in
              json.loads(stats.read_text())["stall_stacks"]]
    assert any(place.startswith("R]") for place in places), places
    assert any(place.startswith("S ") and "sleep" in place for place in places), places


def test_where_linux_has_a_thread_is_read_from_its_task_files(tmp_path: Path) -> None:
    (tmp_path / "stat").write_text("4242 (python3 (bot)) S 1 4242 1 0 -1 4194368 0 0\n")
    (tmp_path / "wchan").write_text("futex_wait_queue")
    assert kernel_place(str(tmp_path)) == " [S futex_wait_queue]"
    (tmp_path / "stat").write_text("4242 (python3) R 1 4242 1 0 -1 4194368 0 0\n")
    assert kernel_place(str(tmp_path)) == " [R]"
    assert kernel_place(str(tmp_path / "gone")) == ""


def _task(proc: Path, pid: int, tid: int, comm: str, state: str, ppid: int, nice: int) -> None:
    folder = proc / str(pid) / "task" / str(tid)
    folder.mkdir(parents=True)
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    # utime stime cutime cstime priority nice ...
    (folder / "stat").write_text(
        f"{tid} ({comm}) {state} {ppid} 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 {nice} 1 0 5\n")


def test_a_loop_waiting_for_a_core_is_told_whose_threads_had_them(tmp_path: Path) -> None:
    me, parent = os.getpid(), os.getppid()
    _task(tmp_path, me, me, "python3", "R", parent, 0)          # the loop's own: left out
    _task(tmp_path, me, me + 1, "python3", "R", parent, 0)      # another bot thread
    _task(tmp_path, me, me + 2, "python3", "S", parent, 0)      # asleep: not counted
    _task(tmp_path, 90001, 90001, "python3", "R", me, 10)       # a render worker
    _task(tmp_path, 90002, 90002, "python3", "R", me, 10)       # another
    _task(tmp_path, parent, parent, "python (load)", "R", 1, 0)  # the load test
    _task(tmp_path, 17, 17, "kworker/0:1", "R", 2, 0)
    (tmp_path / "self").mkdir()                                 # not a process
    assert running_tasks({me}, str(tmp_path)) == [
        "bot", "kworker/0:1", "parent", "2 worker (nice 10)"]
