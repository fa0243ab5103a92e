"""`python -m bot bench --json` runs and reports every game (figures are not asserted:
performance is measured by the benchmark, never by timed tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.games import GAMES

ROOT = Path(__file__).resolve().parent.parent


# The whole quick benchmark, with Discord's rate-limit windows a tenth as long (the clicks
# of its games would otherwise wait a second for each table edit): the figures are not
# asserted, only that every game reports them.
@pytest.mark.timeout(120)
def test_bench_reports_images_and_clicks_for_every_game() -> None:
    env = {**os.environ, "FAKEDISCORD_RATE_LIMIT_SCALE": "0.1"}
    done = subprocess.run([sys.executable, "-m", "bot", "bench", "--json", "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["games"]) == set(GAMES)
    for game, entry in report["games"].items():
        assert set(entry["images"]) == {"start", "middle", "end"}, game
        for figures in entry["images"].values():
            assert figures["bytes"] > 1000 and figures["p95_ms"] >= figures["median_ms"] > 0
        click = entry["click"]
        assert click is not None, f"{game} has no click benchmark"
        assert click["clicks"] >= 10 and click["p95_ms"] >= click["median_ms"] > 0
