"""The load test starts a phase on a settled bot: its loop quiet *and* its render workers
done with the last phase's pictures, so that backlog is not charged to the next phase
(bot/tools/botprocess.py ``settle``). A worker drawing leaves the loop quiet; the first
version of ``settle`` watched only the loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, cast

from bot.tools import procs
from bot.tools.botprocess import BotProcess
from bot.tools.players import NO_CHANGE_S, WATCH_S, Click, Watch, settle_pictures

# A "bot" whose one child, a "render worker", spends three seconds of CPU on a
# backlog, notes that it is done, and idles.
WORKER = """
import sys, time
end = time.process_time() + 3.0
while time.process_time() < end:
    pass
open(sys.argv[1], "w").write("drawn")
time.sleep(60)
"""
BOT = """
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]])
time.sleep(60)
"""


async def quiet_loop(bot: BotProcess) -> None:
    """The bot's loop monitor, as ``python -m bot run`` writes it: every second quiet."""
    seconds: list[list[float]] = []
    while True:
        seconds.append([time.time(), 0.0])
        bot.stats_path.write_text(json.dumps({"seconds": seconds[-10:]}))
        await asyncio.sleep(0.5)


async def test_a_phase_waits_for_the_render_workers_backlog(tmp_path: Path) -> None:
    done = tmp_path / "worker-done"
    bot = BotProcess(cast(Any, None), {}, tmp_path, cast(Any, None))
    bot.started_wall = time.time()
    bot.process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", BOT, WORKER, str(done))

    monitor = asyncio.create_task(quiet_loop(bot))
    try:
        await asyncio.sleep(0.6)  # the loop has two quiet seconds to show
        waited = await bot.settle(timeout=60)
        assert waited is not None
        assert done.exists(), "settled while the worker was still drawing"
    finally:
        monitor.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await monitor
        for pid in procs.descendants(bot.process.pid)[::-1]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await bot.process.wait()


class _Tables:
    """What ``settle_pictures`` reads of a channel: its watched clicks."""

    def __init__(self, watches: list[Watch]) -> None:
        self.watches = watches


async def test_a_phase_times_its_last_moves_to_their_pictures() -> None:
    # A phase's last move: its table's words changed, its board picture comes 0.3 s after
    # the phase's last click. Before 2 Dec the figures were taken at once and left it out.
    move = Click("play", time.monotonic(), 5.0, True)
    moved = Watch(time.monotonic(), click=move)
    moved.changed_at = time.monotonic()
    moved.settle()
    # A click that changed nothing (a picker opened) is not waited for past NO_CHANGE_S.
    looked = Watch(time.monotonic() - NO_CHANGE_S, click=Click("look", 0.0, 5.0, True))

    async def picture_arrives() -> None:
        await asyncio.sleep(0.3)
        moved.picture_at = time.monotonic()
        moved.settle()

    arriving = asyncio.create_task(picture_arrives())
    waited = await settle_pictures(cast(Any, [_Tables([moved, looked])]))
    await arriving
    assert 0.25 <= waited < NO_CHANGE_S
    assert move.changed and move.picture_ms is not None and move.picture_ms >= 250


async def test_a_picture_that_never_comes_is_waited_for_no_longer_than_a_watch() -> None:
    lost = Watch(time.monotonic() - WATCH_S + 0.2, click=Click("play", 0.0, 5.0, True))
    lost.changed_at = lost.began
    waited = await settle_pictures(cast(Any, [_Tables([lost])]))
    assert 0.1 <= waited < 1.0 and lost.picture_at is None


async def test_a_quiet_bot_is_found_quiet_however_slowly_the_load_test_looks(
        tmp_path: Path, monkeypatch: Any) -> None:
    # Beside a 10,000-match fake Discord each look took ~0.6 s, and a window of the looks
    # under 2.2 s old never spanned the two seconds asked for: a restart's bot, idle,
    # was "not quiet in 300 s".
    bot = BotProcess(cast(Any, None), {}, tmp_path, cast(Any, None))
    bot.started_wall = time.time()
    bot.process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import time; time.sleep(60)")
    measured = procs.tree_cpu_seconds

    def slowly(root: int) -> float:
        time.sleep(0.1)  # with the half-second pause, a look every ~0.6 s
        return measured(root)

    monkeypatch.setattr(procs, "tree_cpu_seconds", slowly)
    bot.stats_path.write_text(json.dumps({"seconds": []}))
    monitor = asyncio.create_task(quiet_loop(bot))
    try:
        waited = await bot.settle(timeout=15)
        assert waited is not None and waited < 10
    finally:
        monitor.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await monitor
        with contextlib.suppress(ProcessLookupError):
            bot.process.kill()
        await bot.process.wait()
