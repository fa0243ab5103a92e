"""How long a test may wait on a busy machine: shared by the tests' time limits
(tests/time_limits.py) and the fake Discord's waits, which the load test uses outside pytest
(so nothing here imports pytest)."""

from __future__ import annotations

import os
from pathlib import Path

# The most a limit or a wait is stretched: at four times the idle CPU cost a test passes,
# past it the run ends anyway, so a hang on a saturated machine is still reported within
# minutes.
MAX_STRETCH = 4.0


def busy_stretch() -> float:
    """How many times longer than on an idle machine a wait may take now: the one-minute
    load average per core, at least 1 and at most ``MAX_STRETCH``. Read at once (no
    sampling), so a wait that ran out can ask without stalling the event loop."""
    try:
        load = float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 1.0  # no /proc (not Linux): waits are not stretched
    return min(MAX_STRETCH, max(1.0, load / (os.cpu_count() or 1)))
