"""The test suite itself: a failing or hanging test ends the run, with its failure said.

A copy of the project gets one bad test at a time, and pytest runs it in a subprocess, as
CI would. The subprocess's 60 s limit only detects a hang (the run would otherwise never
end); it is not a measure of speed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LEAKS_A_CONNECTION = '''
from pathlib import Path

from bot.core.storage import Storage


async def test_fails_with_the_database_open(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "db.sqlite3")
    assert await storage.get(1) is not None, "deliberate failure, storage left open"
'''

HANGS = '''
import asyncio
from pathlib import Path

from bot.core.storage import Storage


async def test_waits_forever(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "db.sqlite3")
    await asyncio.Event().wait()
    await storage.close()
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("project")
    skip = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.sqlite3*")
    for folder in ("bot", "cogs", "fakediscord", "tests"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def _run(project: Path, name: str, source: str, *options: str, within: float = 60,
         after: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    (project / "tests" / name).write_text(source)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options,
             f"tests/{name}", *after],
            cwd=project, env=env, capture_output=True, text=True, timeout=within)
    except subprocess.TimeoutExpired as hung:
        output = hung.stdout.decode() if isinstance(hung.stdout, bytes) else hung.stdout
        pytest.fail(f"pytest on {name} was still running after {within:g} s:\n{output or ''}")


# Above the subprocess's own 60 s bound, so that a hang is reported by this test (and the
# hung pytest killed) rather than by the per-test timeout, which would end this whole run.
@pytest.mark.timeout(120)
def test_a_failing_test_that_leaves_its_database_open_still_ends_the_run(project: Path) -> None:
    done = _run(project, "test_leaks_a_connection.py", LEAKS_A_CONNECTION)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout
    assert "deliberate failure, storage left open" in done.stdout


@pytest.mark.timeout(120)
def test_a_hanging_test_is_stopped_and_reported(project: Path) -> None:
    done = _run(project, "test_hangs.py", HANGS, "-o", "timeout=5")
    assert done.returncode != 0, done.stdout + done.stderr
    output = done.stdout + done.stderr
    name = "tests/test_hangs.py::test_waits_forever"
    assert f"TIMEOUT: {name} still running after" in output, output
    assert "its limit: 5 s on an idle machine" in output, output
    # where each thread and each task was stuck: the test's own await, by line
    assert "--- thread MainThread" in output, output
    assert "asyncio task(s)" in output and "in test_waits_forever" in output, output
    assert f"TIMEOUT: {name}: ending the run." in output, output


SLOW_NEIGHBOURS = """
import time

import pytest


@pytest.mark.parametrize("n", range(60))
def test_takes_a_second(n: int) -> None:
    time.sleep(1)
"""


@pytest.mark.timeout(150)
def test_a_hanging_test_ends_a_parallel_run_too(project: Path) -> None:
    """As `make test` runs: the worker with the hung test reports it and ends; the other
    worker is not handed the rest of the run."""
    (project / "tests" / "test_slow_neighbours.py").write_text(SLOW_NEIGHBOURS)
    try:
        done = _run(project, "test_hangs.py", HANGS, "-o", "timeout=5", "-n", "2",
                    "--dist", "loadgroup", "--max-worker-restart", "0", within=120,
                    after=("tests/test_slow_neighbours.py",))
    finally:
        (project / "tests" / "test_slow_neighbours.py").unlink()
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "TIMEOUT: tests/test_hangs.py::test_waits_forever still running after" in output, output
    assert "--- thread MainThread" in output, output
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed is None or int(passed.group(1)) < 60, done.stdout


LEAVES_A_PROCESS = """
import subprocess


def test_starts_a_server_and_forgets_it() -> None:
    subprocess.Popen(["sleep", "617.25"])
"""


@pytest.mark.timeout(120)
def test_a_test_that_leaves_a_process_running_fails_with_its_name(project: Path) -> None:
    done = _run(project, "test_leaves_a_process.py", LEAVES_A_PROCESS)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("tests/test_leaves_a_process.py::test_starts_a_server_and_forgets_it left 1 "
            "process(es) running") in done.stdout, done.stdout
    assert "sleep 617.25" in done.stdout
    # and it was ended, not left to the tests after it
    still = subprocess.run(["pgrep", "-f", "sleep 617.25"], capture_output=True, text=True)
    assert still.stdout == "", still.stdout
