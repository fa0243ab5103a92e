"""make mutation's PostgreSQL (CITYHALL_TEST_PG_KEEP, tests/conftest.py).

mutmut runs pytest in its own process, then again for each mutant in a fork of that process.
If those sessions could not reach a working server, every mutant that a PostgreSQL test
reaches would count as killed by the error: a mutation score that lies. So the sessions of
one process, and its forks, share one server; the forks drop the databases they made; the
server goes when the process that started it ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pg_support import binaries

ROOT = Path(__file__).resolve().parent.parent

SESSIONS = '''
import os, subprocess, sys
import pytest

run = ["-o", "addopts=", "-q", "-p", "no:cacheprovider", "-k", "postgresql",
       "tests/test_storage.py::test_a_match_reads_back_as_it_was_saved"]
codes = [int(pytest.main(run)), int(pytest.main(run))]
forks = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        os._exit(int(pytest.main(run)))
    forks.append(pid)
codes += [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in forks]
server = sys.modules["tests.conftest"]._pg_start.server
listed = subprocess.run(
    [str(server.bin / "psql"), "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres",
     "-Atc", "SELECT datname FROM pg_database WHERE datname LIKE 'test%'"],
    check=True, capture_output=True, text=True).stdout.split()
print("exit codes", codes)
print("forks", forks)
print("databases", listed)
print("server", server.root)
'''


@pytest.mark.timeout(120)
def test_sessions_and_their_forks_share_one_server_and_leave_nothing() -> None:
    if binaries() is None:
        pytest.skip("the pgserver wheel is not installed (pip install -e '.[dev]')")
    env = {**os.environ, "CITYHALL_TEST_PG_KEEP": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run([sys.executable, "-c", SESSIONS], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=100)
    out = done.stdout
    said = {key: line.removeprefix(key + " ") for line in out.splitlines()
            for key in ("exit codes", "forks", "databases", "server")
            if line.startswith(key + " ")}
    assert done.returncode == 0, out + done.stderr
    assert said["exit codes"] == "[0, 0, 0, 0]", out
    # Passed, not skipped: the test ran on the server each time.
    assert out.count("1 passed") == 4 and "skipped" not in out, out
    # Each fork dropped the databases it made; the parent's own are kept for reuse.
    forks = said["forks"].strip("[]").split(", ")
    databases = said["databases"]
    assert all(f"test_{pid}_" not in databases for pid in forks), out
    assert "test_" in databases, out
    # The server ended with the process: its folder is gone and no process runs from it.
    assert not Path(said["server"]).exists()
    running = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert said["server"] not in running
