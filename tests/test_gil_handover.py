"""The bot hands the GIL back to its event loop within a millisecond (bot/process.py): a
thread building a Big City screen must not hold the loop, and every click behind it, for
CPython's default 5 ms at a time."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from bot import process


@pytest.fixture
def switch_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


@pytest.mark.usefixtures("switch_interval")
def test_the_bot_asks_for_a_one_millisecond_switch_interval() -> None:
    sys.setswitchinterval(0.005)  # CPython's default
    process._hand_the_gil_back_soon()
    assert sys.getswitchinterval() == pytest.approx(0.001)
