"""Computer players and turn timers: one background task per unfinished match.

The task wakes whenever the match changes, lets due computer players move (with a short
pause so people can follow), and otherwise sleeps until the humans' turn timer runs out,
when the computer player moves for them. Everything it does goes through the runtime, so
it is saved exactly like a click, and ``on_outcome`` tells the channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from .records import ACTIVE
from .runtime import Outcome, Runtime

log = logging.getLogger(__name__)

OnOutcome = Callable[[Outcome], Awaitable[None]]


class Driver:
    def __init__(self, runtime: Runtime, on_outcome: OnOutcome, *, cpu_delay: float = 1.0,
                 cpu_delay_for: Callable[[int], float] | None = None) -> None:
        self.runtime = runtime
        self.on_outcome = on_outcome
        self.cpu_delay = cpu_delay
        # Per server (/settings), read before every computer move so a change applies at once.
        self.cpu_delay_for = cpu_delay_for
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._wake: dict[int, asyncio.Event] = {}
        self._waiting: dict[int, bool] = {}

    def kick(self, match_id: int) -> None:
        """The match changed: re-plan its computer moves and timer."""
        event = self._wake.setdefault(match_id, asyncio.Event())
        event.set()
        task = self._tasks.get(match_id)
        if task is None or task.done():
            self._tasks[match_id] = asyncio.create_task(self._run(match_id),
                                                        name=f"cityhall-match-{match_id}")

    async def idle(self, match_id: int, timeout: float = 10.0) -> None:
        """Wait until the match's task has nothing left to do right now (tests, bench)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            match = self.runtime.get(match_id)
            task = self._tasks.get(match_id)
            busy = match is not None and self.runtime.computers_due(match)
            if not busy and (task is None or task.done() or self._waiting.get(match_id)):
                return
            await asyncio.sleep(0.01)
        raise TimeoutError(f"match {match_id} did not settle")

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def _run(self, match_id: int) -> None:
        wake = self._wake.setdefault(match_id, asyncio.Event())
        self._waiting[match_id] = False
        while True:
            wake.clear()
            match = self.runtime.get(match_id)
            if match is None or match.status != ACTIVE:
                break
            if self.runtime.computers_due(match):
                pause = self.cpu_delay if self.cpu_delay_for is None \
                    else self.cpu_delay_for(match.guild_id)
                if pause:
                    await asyncio.sleep(pause)
                try:
                    outcome = await self.runtime.step_computer(match_id)
                except Exception:
                    # A bug in one game must not stop the others. The match stays as it
                    # was saved; the host can /game end it.
                    log.exception("A computer move failed in match %s (server %s, channel %s); "
                                  "the game stays as saved until its host ends it.", match_id,
                                  match.guild_id, match.channel_id)
                    break
                if outcome is not None:
                    await self._deliver(outcome)
                continue
            deadline = self.runtime.deadline(match)
            delay = None if deadline is None else max(0.0, deadline - self.runtime.clock())
            self._waiting[match_id] = True
            try:
                await asyncio.wait_for(wake.wait(), timeout=delay)
                continue  # something changed: plan again
            except TimeoutError:
                pass
            finally:
                self._waiting[match_id] = False
            try:
                outcomes = await self.runtime.time_out(match_id)
            except Exception:
                log.exception("The move for a player out of time failed in match %s (server "
                              "%s, channel %s); the game stays as saved until its host ends "
                              "it.", match_id, match.guild_id, match.channel_id)
                break
            for outcome in outcomes:
                await self._deliver(outcome)
        # The match is over (or gone): drop its bookkeeping. No await since the last check,
        # so no kick can slip in between.
        self._tasks.pop(match_id, None)
        self._waiting.pop(match_id, None)
        self._wake.pop(match_id, None)

    async def _deliver(self, outcome: Outcome) -> None:
        try:
            await self.on_outcome(outcome)
        except Exception:
            log.exception("Could not tell channel %s about a move in match %s.",
                          outcome.match.channel_id, outcome.match.id)
