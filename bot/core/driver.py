"""Computer players and turn timers.

When a match changes (``kick``), a short task lets its due computer players move (with a
short pause so people can follow) and plays for humans whose time ran out; then it ends,
leaving at most an alarm for when the humans now due run out of time (``bot/core/alarms.py``),
which kicks the match again. A match waiting for its players costs no task. Everything goes
through the runtime, so it is saved exactly like a click, and ``on_outcome`` tells the
channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable

from . import diskfull
from .alarms import Alarms
from .diskfull import is_disk_full
from .records import ACTIVE, Match
from .runtime import Outcome, Runtime
from .storage import DatabaseLost

# A computer move the full disk refused is tried again this much later.
DISK_FULL_RETRY = 30.0

log = logging.getLogger(__name__)

OnOutcome = Callable[[Outcome], Awaitable[None]]


class Driver:
    def __init__(self, runtime: Runtime, on_outcome: OnOutcome, *, cpu_delay: float = 1.0,
                 cpu_delay_for: Callable[[int], float] | None = None,
                 on_settled: Callable[[int], None] | None = None) -> None:
        self.runtime = runtime
        self.on_outcome = on_outcome
        # Told when a match's task ends (its computer moves done, or one failed).
        self.on_settled = on_settled
        self.cpu_delay = cpu_delay
        # Per server (/settings), read before every computer move so a change applies at once.
        self.cpu_delay_for = cpu_delay_for
        # Matches being worked on now, and those kicked meanwhile (planned again after).
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._closed = False
        self.timers = Alarms(self.kick, lambda: self.runtime.clock())

    def kick(self, match_id: int) -> None:
        """The match changed (or its turn timer rang): re-plan its computer moves and timer."""
        if self._closed:
            return
        if match_id in self._tasks:
            self._again.add(match_id)
            return
        self._tasks[match_id] = asyncio.create_task(self._run(match_id),
                                                    name=f"cityhall-match-{match_id}")

    def restore(self, matches: Iterable[Match]) -> None:
        """After a (re)start, plan every active match as a kick would, without a task each
        (10,000 matches, 10,000 tasks at once): an alarm at its turn's deadline, a kick
        only where a computer player is due. Neither decodes a state (Runtime.deadline)."""
        for match in matches:
            if match.status != ACTIVE:
                continue
            if self.runtime.computers_due(match):
                self.kick(match.id)
                continue
            deadline = self.runtime.deadline(match)
            if deadline is not None:
                self.timers.set(match.id, deadline)

    def pause(self, guild_id: int) -> float:
        """Seconds a computer player waits before its move in this server (/settings)."""
        return self.cpu_delay if self.cpu_delay_for is None else self.cpu_delay_for(guild_id)

    async def moved_first(self, match_id: int, patience: float) -> None:
        """Let the computer players due now in this match move, and wait (at most
        ``patience`` seconds) until they have and the channel was told: for a caller that
        would otherwise show a board they are about to replace."""
        self.kick(match_id)
        task = self._tasks.get(match_id)
        if task is not None and task is not asyncio.current_task():
            await asyncio.wait({task}, timeout=patience)

    def continuing(self, match_id: int) -> bool:
        """Whether the caller runs in this match's own task, which looks for the next due
        computer move as soon as the caller returns (``on_outcome`` of a computer move)."""
        task = self._tasks.get(match_id)
        return task is not None and task is asyncio.current_task()

    async def idle(self, match_id: int, timeout: float = 10.0) -> None:
        """Wait until the match has nothing left to do right now (tests, bench)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            match = self.runtime.get(match_id)
            busy = match is not None and self.runtime.computers_due(match)
            if not busy and match_id not in self._tasks:
                return
            await asyncio.sleep(0.01)
        raise TimeoutError(f"match {match_id} did not settle")

    async def close(self) -> None:
        self._closed = True
        self.timers.close()
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def _run(self, match_id: int) -> None:
        try:
            await self._work(match_id)
        finally:
            # No await since the last check, so no kick can slip in between.
            self._tasks.pop(match_id, None)
            self._again.discard(match_id)
            if self.on_settled is not None and not self._closed:
                self.on_settled(match_id)

    async def _work(self, match_id: int) -> None:
        while True:
            self._again.discard(match_id)
            match = self.runtime.get(match_id)
            if match is None or match.status != ACTIVE:
                self.timers.cancel(match_id)  # over (or gone): nothing more to plan
                return
            if self.runtime.computers_due(match):
                self.timers.cancel(match_id)
                pause = self.pause(match.guild_id)
                if pause:
                    await asyncio.sleep(pause)
                try:
                    outcome = await self.runtime.step_computer(match_id)
                except Exception as exc:
                    if isinstance(exc, DatabaseLost):
                        return  # said once, by the database writer; nothing to retry
                    if is_disk_full(exc):
                        # Not a bug in the game: tried again a little later.
                        diskfull.NOTES.note(f"a computer move in match {match_id}")
                        self.timers.set(match_id, self.runtime.clock() + DISK_FULL_RETRY)
                        return
                    # A bug in one game must not stop the others. The match stays as it
                    # was saved; the host can /game end it.
                    log.exception("A computer move failed in match %s (server %s, channel %s); "
                                  "the game stays as saved until its host ends it.", match_id,
                                  match.guild_id, match.channel_id)
                    return
                if outcome is not None:
                    await self._deliver(outcome)
                continue
            deadline = self.runtime.deadline(match)
            if deadline is None:
                self.timers.cancel(match_id)
            elif self.runtime.clock() < deadline:
                self.timers.set(match_id, deadline)
            else:
                try:
                    outcomes = await self.runtime.time_out(match_id)
                except Exception as exc:
                    if isinstance(exc, DatabaseLost):
                        return
                    if is_disk_full(exc):
                        diskfull.NOTES.note(f"a timed-out turn in match {match_id}")
                        self.timers.set(match_id, self.runtime.clock() + DISK_FULL_RETRY)
                        return
                    log.exception("The move for a player out of time failed in match %s "
                                  "(server %s, channel %s); the game stays as saved until its "
                                  "host ends it.", match_id, match.guild_id, match.channel_id)
                    return
                for outcome in outcomes:
                    await self._deliver(outcome)
                if not outcomes and match_id not in self._again:
                    # Nothing was due after all (the turn changed under us): look again
                    # in a second rather than spin.
                    self.timers.set(match_id, self.runtime.clock() + 1.0)
                    return
                continue
            if match_id not in self._again:
                return  # nothing to do until a click, or the alarm

    async def _deliver(self, outcome: Outcome) -> None:
        try:
            await self.on_outcome(outcome)
        except Exception:
            log.exception("Could not tell channel %s about a move in match %s.",
                          outcome.match.channel_id, outcome.match.id)
