from __future__ import annotations

import os
import sys
import threading

import pytest

pytest_plugins = ["tests.fakediscord.pytest_plugin"]

_exit_status: int | None = None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _exit_status
    _exit_status = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Safety net: a thread someone forgot to stop (an unclosed aiosqlite connection, a
    server loop) must not hold the run after the summary has been printed; Python would wait
    for every non-daemon thread before exiting, with no output and no end. The summary and
    the exit status are already known, so the process ends here with that status."""
    if _exit_status is None:
        return  # the session never ran (e.g. --help); nothing to protect
    leaked = [t for t in threading.enumerate()
              if t is not threading.main_thread() and t.is_alive() and not t.daemon]
    if not leaked:
        return
    names = ", ".join(sorted(t.name for t in leaked))
    print(f"\nconftest: ending the run; threads still running after the tests: {names}",
          file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_exit_status)
