"""One drawing of a board, however many ask for it while it is being drawn.

A table's picture is asked for by more than one path at a time: a click on an outdated
table is answered with the current board (at a player's priority) while the refresh that
the last move started draws the very same board in the background. Measured under the
mixed load test, a tenth of the table pictures were such second drawings. ``InFlight``
lets the second caller wait for the drawing already under way, when it is of the same
board (the caller's ``board`` key: the match's version, status and language) and at least
as urgent as the caller (a player's answer never waits behind a background queue).

Cancelling one caller leaves the drawing to the others; cancelling the last one cancels
the drawing (its job then leaves the render queue, as a lone caller's would).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class _Drawing(Generic[T]):
    board: Hashable
    urgency: int  # lower is more urgent (the render pool's Priority)
    task: asyncio.Future[T]
    waiters: int = 0


class InFlight(Generic[T]):
    """The drawing under way for each key (a match), shared by whoever asks for its board."""

    def __init__(self) -> None:
        self._drawing: dict[Hashable, _Drawing[T]] = {}
        self.shared = 0  # callers that waited for a drawing already under way

    def __len__(self) -> int:
        return len(self._drawing)

    async def get(self, key: Hashable, board: Hashable, urgency: int,
                  draw: Callable[[], Awaitable[T]]) -> T:
        drawing = self._drawing.get(key)
        if (drawing is None or drawing.board != board or drawing.urgency > urgency
                or drawing.task.done()):
            drawing = _Drawing(board, urgency, asyncio.ensure_future(draw()))
            self._drawing[key] = drawing
            drawing.task.add_done_callback(functools.partial(self._done, key, drawing))
        else:
            self.shared += 1
        drawing.waiters += 1
        try:
            return await asyncio.shield(drawing.task)
        except asyncio.CancelledError:
            if drawing.waiters == 1 and not drawing.task.done():
                drawing.task.cancel()  # nobody else waits for it
            raise
        finally:
            drawing.waiters -= 1

    def _done(self, key: Hashable, drawing: _Drawing[T], _task: object) -> None:
        if self._drawing.get(key) is drawing:
            del self._drawing[key]
        if not drawing.task.cancelled():
            drawing.task.exception()  # retrieved: each waiter got it through its shield
