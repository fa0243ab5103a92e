"""Many timers on one: at most one alarm per key (a match), all on a single loop timer.

A thousand unfinished matches each waiting for a turn to run out used to be a thousand
sleeping tasks, each a dozen objects (task, coroutine, futures, a timer handle, contexts)
that every full garbage collection walks. Here an alarm is an entry in a dict and a tuple
in a heap, and the loop holds one timer, for the earliest.

Times are the caller's clock (the runtime's ``clock``, wall-clock seconds), turned into
the loop's time when the loop timer is set. An alarm that comes due calls ``on_due(key)``
once; setting a key again replaces its alarm, and a replaced or cancelled alarm's heap
entry is skipped when it comes up.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable


class Alarms:
    def __init__(self, on_due: Callable[[int], None], clock: Callable[[], float]) -> None:
        self.on_due = on_due
        self.clock = clock
        self._when: dict[int, float] = {}
        self._heap: list[tuple[float, int]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0  # the clock time the loop timer is set for

    def __len__(self) -> int:
        return len(self._when)

    def when(self, key: int) -> float | None:
        return self._when.get(key)

    def set(self, key: int, at: float) -> None:
        if self._when.get(key) == at:
            return
        self._when[key] = at
        heapq.heappush(self._heap, (at, key))
        if len(self._heap) > 2 * len(self._when) + 64:
            # Replaced and cancelled alarms' entries: rebuilt rather than left to pile up.
            self._heap = [(when, k) for k, when in self._when.items()]
            heapq.heapify(self._heap)
        if self._timer is None or at < self._timer_at:
            self._arm()

    def cancel(self, key: int) -> None:
        self._when.pop(key, None)  # its heap entry is skipped when it comes up

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._when.clear()
        self._heap.clear()

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._heap and self._when.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)
        if not self._heap:
            return
        self._timer_at = self._heap[0][0]
        delay = max(0.0, self._timer_at - self.clock())
        self._timer = asyncio.get_running_loop().call_later(delay, self._ring)

    def _ring(self) -> None:
        self._timer = None
        now = self.clock()
        due: list[int] = []
        while self._heap and self._heap[0][0] <= now:
            at, key = heapq.heappop(self._heap)
            if self._when.get(key) == at:
                del self._when[key]
                due.append(key)
        # Armed before the callbacks run, which may set alarms of their own.
        self._arm()
        for key in due:
            self.on_due(key)
