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


async def test_a_phase_waits_for_the_render_workers_backlog(tmp_path: Path) -> None:
    done = tmp_path / "worker-done"
    bot = BotProcess(cast(Any, None), {}, tmp_path, cast(Any, None))
    bot.started_wall = time.time()
    bot.process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", BOT, WORKER, str(done))

    async def quiet_loop() -> None:
        # The bot's loop monitor, as ``python -m bot run`` writes it: every second quiet.
        seconds: list[list[float]] = []
        while True:
            seconds.append([time.time(), 0.0])
            bot.stats_path.write_text(json.dumps({"seconds": seconds[-10:]}))
            await asyncio.sleep(0.5)

    monitor = asyncio.create_task(quiet_loop())
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
