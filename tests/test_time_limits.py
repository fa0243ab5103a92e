"""A test's time limit stretches on a busy machine and still ends a hang (tests/time_limits.py).

The limits here are fractions of a second and the machine's slowdown is given, not measured:
what is checked is when the limit gives up, relative to the limit, never how fast anything is.
"""

from __future__ import annotations

import subprocess
import threading

import pytest

from tests import time_limits


def _limit(seconds: float, slowdowns: list[float], *, speed: float = 1.0
           ) -> tuple[time_limits.Limit, threading.Event, list[tuple[float, float]]]:
    ended = threading.Event()
    calls: list[tuple[float, float]] = []

    def expired(elapsed: float, stretch: float) -> None:
        calls.append((elapsed, stretch))
        ended.set()

    def slowdown() -> float:
        return slowdowns.pop(0) if len(slowdowns) > 1 else slowdowns[0]

    return time_limits.Limit(seconds, speed, expired, name="t", slowdown=slowdown), ended, calls


@pytest.mark.parametrize(("seconds", "slowdown", "speed", "stretch"), [
    (0.2, 1.0, 1.0, 1.0),                          # an idle machine: at its limit
    (0.2, 3.0, 1.0, 3.0),                          # a busy one: three times the limit
    (0.1, 50.0, 1.0, time_limits.MAX_STRETCH),     # the stretch has a ceiling
    (0.1, 1.0, 2.5, 2.5),                          # a slow processor, from the start
], ids=["idle", "busy", "ceiling", "slow-processor"])
def test_a_hang_ends_at_its_limit_stretched_by_the_machines_slowdown(
        seconds: float, slowdown: float, speed: float, stretch: float) -> None:
    limit, ended, calls = _limit(seconds, [slowdown], speed=speed)
    assert ended.wait(10)
    (elapsed, stretched), = calls
    assert stretched == stretch and elapsed >= seconds * stretch
    limit.cancel()


def test_a_test_that_finishes_in_time_is_never_reported() -> None:
    limit, ended, calls = _limit(0.3, [1.0])
    limit.cancel()
    assert not ended.wait(0.6) and calls == []


def test_the_machine_is_never_taken_for_faster_than_it_is() -> None:
    assert time_limits.contention(samples=2, interval=0.01) >= 1.0
    assert time_limits.machine_speed() >= 1.0


def test_child_processes_are_found_with_their_command() -> None:
    child = subprocess.Popen(["sleep", "30.5"])
    try:
        found = time_limits.descendants()
        assert found[child.pid].command == "sleep 30.5"
    finally:
        time_limits.end_processes([child.pid])
        child.wait()
    assert child.pid not in time_limits.descendants()
