"""Pictures drawn in worker processes: off the event loop, off the bot's GIL.

Drawing and encoding a table costs 15-20 ms of CPU per click. In a thread that still holds
the one GIL the event loop needs, so one process saturates one core and clicks queue
behind pictures. Here each picture is drawn by a separate Python process.

Use::

    pool = bot.games.render_pool(workers=2)   # None: one per core; 0: in-process, one thread
    await pool.start()
    png = await pool.render("bigcity", "render_table", view)
    png = await pool.render("cities", "render_preview", view, "ann", choices,
                            priority=Priority.INTERACTIVE)
    png = await pool.render("bigcity", "render_table", view, key=match_id)  # coalesces
    pool.queued(Priority.BACKGROUND)       # queue depth, for metrics
    await pool.close()

``think(game, state, player, level, budget)`` runs the pool's ``thinker`` (the catalogue's
``bot.games.computer_move``: a computer player's move at its level) in a worker the same
way, after every picture; ``later(module, function, *args)`` runs work nobody waits for (a
finished game's animation) after that, at the lowest priority.

The pool knows no game: ``modules`` maps each game to the module of its pictures, and
``bot.games.render_pool`` makes a pool for the catalogue's games. ``render(game, function,
*args)`` calls ``<that module>.<function>(*args)`` in a worker and returns what it returns (PNG bytes, or the list ``render_extras`` gives). The
renderers are pure functions of views, and views are JSON-like, so arguments and results
travel pickled over the worker's stdin and stdout (the arguments pickled when the job is
queued: a waiting picture holds a few KB of pickle, not its view's objects).
``scripts/render_pool_report.py`` measures what that costs: a 1-4 KB pickled view out and a 50-75 KB PNG back add ~1 ms to
a picture's round trip and ~0.6-0.9 ms of CPU in this process (against 14-20 ms to draw).

Scheduling:
- The queue, not the pipes, decides what runs next: every INTERACTIVE job (a player waits
  for an ephemeral picture or a preview) is dispatched before any BACKGROUND job (table
  refreshes after moves and restarts). Within a priority, first come first served. A
  worker drawing a picture while more wait is sent the next one behind it
  (``_send_ahead``), so it never waits for a busy event loop between two: an INTERACTIVE
  picture queued after that waits for one BACKGROUND picture at most.
- A BACKGROUND job with a ``key`` (a match id) that is still queued when another one with
  the same key arrives is replaced by the newer one, which takes its place in the queue.
  The older caller gets :class:`Superseded` raised, not the newer picture: its caller
  (a table refresh) would pair the picture with its own, older, text and buttons, and
  the newer caller is going to publish anyway. A job already running is never replaced.
- ``spare`` workers more are lent while pictures fall behind (the oldest queued picture has
  waited ``LEND_AFTER_S``): each is started then, with ``SPARE_CACHE_SCALE`` of the caches,
  draws pictures only (never thinking or later work) and is stopped after
  ``SPARE_IDLE_S`` without one. ``bot.app`` lends the core the default leaves to the event
  loop (``default_spare``): at 100 clicks a second on 2 cores the one worker drew ~80 % of
  a core and the tables came seconds late. None is lent unless all processes leave room
  for it in ``MEMORY_BUDGET_MB``, and a lent one is given back once they are over it:
  memory is a small VPS's limit, and pictures come later instead.
- A caller that is cancelled while its job waits takes the job out of the queue.
- ``turn()`` lets ``BACKGROUND_AHEAD`` background pictures be prepared at once; a table
  refresh takes its snapshot of the match inside its turn, so a backlog of thousands of
  tables (a restart's crowd on a slow host) waits holding match ids, not snapshots.
- THINKING jobs (a hard computer player's move, up to a second each) run after every
  picture, and LOW jobs (animations, seconds each) after them; together they run on at
  most ``workers - 1`` workers at once (one when there is one): however many hard players
  are thinking, a worker is left for the next picture.
- Workers run at nice ``WORKER_NICE`` (10) from the moment they are started: on busy
  cores the bot's event loop, which answers clicks, is scheduled first, and pictures (and
  a new worker's imports) use what is left.

Failures:
- An exception in the renderer is raised from ``render`` as itself (if it pickles; else
  as :class:`RenderError`), with the worker's traceback as a note.
- A worker that dies (segfault, OOM kill) is replaced; its job is run once more on
  another worker (``retries``), then fails with :class:`WorkerDied`. A picture sent
  ahead to it never ran: it goes back to the head of its queue, no attempt counted.
- A job running longer than ``timeout`` seconds kills its worker and fails with
  :class:`RenderTimeout` (not retried: it would most likely hang again).
- A worker is replaced after ``max_jobs`` jobs, or sooner when its resident memory has
  grown past ``max_mb`` (checked every ``MEMORY_CHECK_EVERY`` jobs, where /proc says it),
  which returns whatever heap fragmentation it built up; caches are warm again after a
  few pictures. Where the memory budget leaves room (``SUCCESSOR_MB``), the worn worker
  draws on until its successor has started, so pictures do not wait for the start; a lent
  worker is simply stopped.
- A slot whose worker cannot be started three times in a row falls back to drawing in a
  thread of this process, so pictures keep coming (logged as an error).

Workers are fresh interpreters (the "spawn" model: nothing is forked from this process,
which has threads), started with asyncio's subprocess support rather than
``multiprocessing``: that leaves no helper process (resource tracker, fork server)
behind after :meth:`RenderPool.close`, and replies are read by the event loop itself. A
worker imports every game's pictures module, then ``gc.freeze()``-s so the collector never walks
the modules' objects again. A worker whose parent disappears sees its stdin close and
exits.

``workers=0`` draws in one thread of this process, for offline tools and tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import logging
import os
import pickle
import re
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bot.core.i18n import ENGLISH, current

from .worker import _HEADER, _PICKLE, WORKER_NICE, RenderPoolError, _call

log = logging.getLogger(__name__)

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_START_ATTEMPTS = 3
DEFAULT_JOB_S = 0.02  # a picture's drawing time before the pool has measured any


class Priority(enum.IntEnum):
    """Lower runs first."""

    INTERACTIVE = 0
    BACKGROUND = 1
    # A hard computer player's move (:meth:`RenderPool.think`): up to a second of CPU, and
    # nobody is looking at a spinner for it, so every picture goes first.
    THINKING = 2
    # Work nobody waits for (a finished game's animation, bot/render/animation.py: seconds
    # of CPU): after everything else, on the workers thinking may use, and its caller skips
    # it when the pool is busy (docs/rematch-and-animation.md).
    LOW = 3


# What runs on the workers that pictures leave over: at most ``thinking_slots`` at once.
_SPARE = (Priority.THINKING, Priority.LOW)
_PICTURES = (Priority.INTERACTIVE, Priority.BACKGROUND)
# A spare worker is lent when the oldest picture waiting has waited this long, and given
# back after this long without a picture to draw; never in the first LEND_NOT_BEFORE_S
# after start, when a restart's crowd of first clicks is answered (a worker's start costs
# CPU that crowd would wait for: 0.1 s to start and 0.1 s more for its first picture of
# each game on a 2-core AMD EPYC with the files in the page cache, 3 Dec; ~1.5 s was
# written here on 30 Nov, unmeasured since: a slower host and a cold disk cost more).
LEND_AFTER_S = 1.0
SPARE_IDLE_S = 20.0
LEND_NOT_BEFORE_S = 30.0
# Memory the bot and its render workers may use together (resident, from /proc, read at
# most every LEND_MEMORY_CHECK_S): a small VPS's budget (issue 25: 300 MB in all). A spare
# worker is lent only while what is used now leaves room for it (SPARE_MB), and given back
# as soon as all processes are over the budget. With 10,000 matches the bot is ~195 MB
# and a lent worker took all processes from 283 to 373 MB after a restart; with 1,000 on
# a slow host the spare was lent through a 20-minute soak at 35 clicks a second and all
# processes reached 394 MB (2 Dec). The workers' own memory is bounded apart (``max_mb``).
MEMORY_BUDGET_MB = 300.0
SPARE_MB = 90.0  # a lent worker's resident memory once warm (half the caches): 60-100 MB
LEND_MEMORY_CHECK_S = 1.0
# Background pictures prepared and queued at once (``turn``): the rest wait for their turn
# holding nothing but their match. Each one prepared holds its match's snapshot (a decoded
# state, 5-20 KB of objects) and its table's words until it is drawn; a 10,000-match
# restart on a slow host had ~2,200 of them waiting (2 Dec: ~500 objects each, the bot
# 94 MB bigger at the peak, and as big after: freed memory stays with the process). Enough
# to keep a worker and a lent one busy between two turns of the event loop.
BACKGROUND_AHEAD = 16
# A lent worker keeps half the caches a standing one does (the environment variable the
# caches read, bot/render/cache.py): it comes and goes, and memory is the VPS's limit.
SPARE_CACHE_SCALE = 0.5
# A standing worker is replaced once its resident memory passes this (docs/configuration.md):
# its caches are bounded, but what drawing leaves in the heap between them is not, and in a
# 20-minute soak the bot and one worker reached 309 MB (30 Nov), the worker near the end of
# its 2,000 jobs.
WORKER_MAX_MB = 150.0
# A successor's resident memory while it starts beside the worn worker it replaces (33 MB
# once imported, AMD EPYC, 2 Dec): started beside it only where that fits in the budget.
SUCCESSOR_MB = 35.0


class Superseded(RenderPoolError):
    """A newer BACKGROUND job with the same key replaced this one before it ran."""


class WorkerDied(RenderPoolError):
    """The worker drawing this job exited (crash, kill) and the retries were used up."""


class RenderTimeout(RenderPoolError):
    """The job ran longer than the pool's timeout; its worker was killed."""


class PoolClosed(RenderPoolError):
    """The pool is closed (or closing) and takes no more jobs."""


@dataclass(eq=False)
class _Job:
    module: str
    function: str
    # The arguments pickled (``_pack``) where a worker process will draw the job: a queued
    # picture holds its 2-5 KB pickle, not the 15-35 KB of Python objects its view is made
    # of (a restart's crowd on a slow host queued ~2,200 table pictures at once; issue 25,
    # item 6). A tuple where a thread of this process draws it (``workers=0``).
    args: tuple[Any, ...] | bytes
    priority: Priority
    key: Hashable | None
    future: asyncio.Future[Any]
    attempts: int = 0
    # the language the picture's words are drawn in: the caller's (bot.core.i18n.current)
    language: str = ENGLISH
    queued_at: float = field(default_factory=time.monotonic)


@dataclass
class PoolStats:
    """Counters since ``start`` (for metrics and the benchmark)."""

    done: int = 0
    failed: int = 0
    superseded: int = 0
    worker_deaths: int = 0
    workers_started: int = 0
    recycled: int = 0
    recycled_for_memory: int = 0  # of those, for their memory (``max_mb``)
    handed_over: int = 0  # of those, drawing on while their successor started
    # Workers lent under a backlog of pictures (``spare``), and given back when it was over.
    lent: int = 0
    # Backlogs a spare was not lent for, and spares given back, for the budget
    # (``memory_budget_mb``).
    not_lent_for_memory: int = 0
    given_back_for_memory: int = 0
    # Seconds the renderer functions ran inside workers: what a round trip costs beyond
    # this is the pool's overhead (pickling, pipes, scheduling).
    worker_seconds: float = 0.0
    # The same for computer players' thinking, kept apart: a hard move costs up to a second,
    # and counted with the pictures it would make every picture look fifty times slower.
    thinking_seconds: float = 0.0
    # LOW jobs' (animations), kept apart for the same reason.
    later_seconds: float = 0.0
    per_priority: dict[Priority, int] = field(
        default_factory=lambda: dict.fromkeys(Priority, 0))
    # Per kind of job ("<module>.<function>"): [jobs, CPU seconds in the worker], where the
    # workers' CPU goes (the load test's breakdown per move, docs/pictures-cost.md).
    cpu_by_job: dict[str, list[float]] = field(default_factory=dict)
    # Table pictures' [jobs, CPU seconds] by how many jobs their worker had done before
    # (``age_bucket``): a new worker starts with empty caches, so this is what replacing
    # one costs (the load test's soak, docs/performance.md).
    table_cpu_by_age: dict[str, list[float]] = field(default_factory=dict)

    def count_cpu(self, job: str, cpu: float, worker_jobs: int | None = None) -> None:
        counted = self.cpu_by_job.setdefault(job, [0, 0.0])
        counted[0] += 1
        counted[1] += cpu
        if worker_jobs is not None and job.endswith(".render_table"):
            aged = self.table_cpu_by_age.setdefault(age_bucket(worker_jobs), [0, 0.0])
            aged[0] += 1
            aged[1] += cpu


# A worker's age in jobs done, in the buckets its table pictures are counted by.
AGE_BUCKETS = (150, 400, 800)


def age_bucket(jobs_before: int) -> str:
    """``"1-150"``, ``"151-400"``, ``"401-800"`` or ``"801+"``: which of a worker's jobs
    one is, given the jobs it had done before it."""
    low = 1
    for high in AGE_BUCKETS:
        if jobs_before < high:
            return f"{low}-{high}"
        low = high + 1
    return f"{low}+"


def _module_of(game: str, modules: Mapping[str, str]) -> str:
    if game not in modules:
        raise ValueError(f"unknown game {game!r}; the pool draws {', '.join(sorted(modules))}")
    return modules[game]


_WORKER_CODE = "from bot.render.worker import worker_main; worker_main()"


# -- the parent side -----------------------------------------------------------------------


class _WorkerGone(Exception):
    pass


class _Process:
    """One worker process and its pipes, seen from the event loop."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.jobs = 0  # sent to it
        self.worn = False  # due to be replaced (``RenderPool._worn``): nothing more is sent ahead
        self._ids = itertools.count(1)

    @classmethod
    async def start(cls, preload: Iterable[str], env: Mapping[str, str] | None = None,
                    ) -> _Process:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", _WORKER_CODE,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=1 << 20, env=None if env is None else dict(env))
        # Lowered from its first instant, not once it has imported the pictures: those
        # imports are ~0.3 s of CPU, and a worker replaced every few hundred jobs spent
        # them at the bot's priority, taking a core from the event loop (a 54 ms stall
        # in which the loop's thread ran 0.3 ms and waited for a core).
        with contextlib.suppress(OSError):  # a sandbox may forbid it; drawing works anyway
            os.setpriority(os.PRIO_PROCESS, proc.pid,
                           min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICE))
        worker = cls(proc)
        try:
            await worker._send(("init", list(sys.path), list(preload)))
            reply = await worker._receive()
            if reply[0] != "ready":
                raise _WorkerGone(f"unexpected greeting {reply[0]!r}")
        except BaseException:
            await worker.kill()
            raise
        return worker

    async def _send(self, message: Any) -> None:
        await self._write(pickle.dumps(message, _PICKLE))

    async def _write(self, data: bytes) -> None:
        """One pickled message, behind its length."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(_HEADER.pack(len(data)) + data)
            await self.proc.stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise _WorkerGone(str(exc)) from exc

    async def _receive(self) -> Any:
        assert self.proc.stdout is not None
        try:
            (size,) = _HEADER.unpack(await self.proc.stdout.readexactly(_HEADER.size))
            data = await self.proc.stdout.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise _WorkerGone("the worker's output ended") from exc
        return pickle.loads(data)

    async def send(self, module: str, function: str, args: tuple[Any, ...] | bytes,
                   language: str = ENGLISH) -> int:
        """Send a job (``args`` pickled already, ``_pack``, or a tuple pickled here); its
        id, for ``answer``. The worker reads it once it has answered the jobs sent before
        it."""
        job_id = next(self._ids)
        # Pickled before anything is sent: arguments that do not pickle are the caller's
        # error, not the worker's.
        packed = args if isinstance(args, bytes) else _pack(args)
        message = pickle.dumps(("job", job_id, module, function, packed, language), _PICKLE)
        await self._write(message)
        self.jobs += 1
        return job_id

    async def answer(self, job_id: int, timeout: float | None,
                     ) -> tuple[bool, Any, str, float, float]:
        """The reply to ``job_id``, the oldest job sent and not answered: (ok, value or
        exception, traceback text, seconds the call took in the worker, its CPU seconds);
        raises _WorkerGone or TimeoutError."""
        reply = await asyncio.wait_for(self._receive(), timeout)
        tag, reply_id = reply[0], reply[1]
        if reply_id != job_id:
            raise _WorkerGone(f"reply {reply_id} to job {job_id}")
        if tag == "ok":
            return True, reply[2], "", reply[3], reply[4]
        return False, reply[2], reply[3], 0.0, 0.0

    async def stop(self, grace: float = 2.0) -> None:
        """Ask the worker to finish, and kill it if it does not within ``grace`` s."""
        with contextlib.suppress(_WorkerGone):
            await self._send(("stop",))
        try:
            await asyncio.wait_for(self.proc.wait(), grace)
        except TimeoutError:
            await self.kill()
        self._close_pipes()

    async def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        await self.proc.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        # Closed now rather than when collected, perhaps after the event loop has closed
        # (a lent worker is stopped while the bot runs on).
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            transport.close()


def default_workers(cores: int | None = None) -> int:
    """Render workers for a machine of ``cores`` (this one's by default): one per core but
    one, and at least one: the bot's event loop keeps a core of its own. On 2 cores under
    the mixed load test one worker instead of two held all processes at 280 MB instead of
    431 MB, with pictures as quick at 35 clicks a second and quicker in the soak, but later
    at 100 clicks a second (issue 25, docs/performance.md, 30 Nov 06:30)."""
    count = (os.cpu_count() or 1) if cores is None else cores
    return max(1, count - 1)


def default_spare(workers: int | None, cores: int | None = None) -> int:
    """Spare workers for ``RENDER_WORKERS`` (None: the default): the core the default
    leaves to the event loop is lent to pictures that fall behind (a second worker while
    the backlog lasts, with half the caches): at 100 clicks a second on 2 cores one worker
    drew ~80 % of a core and pictures came up to seconds late (issue 25, performance.md).
    None where the admin chose the number of workers, or on one core."""
    count = (os.cpu_count() or 1) if cores is None else cores
    return 1 if workers is None and count >= 2 else 0


class RenderPool:
    """Worker processes drawing game pictures; see the module docstring.

    ``workers``: processes (None: one per core but one, at least one: ``default_workers``;
    0: one thread in this process).
    ``max_jobs``: a worker is replaced after this many jobs (None: never).
    ``max_mb``: ... or once its resident memory is over this many MB (None: never).
    ``timeout``: seconds a job may run before its worker is killed (None: no limit).
    ``retries``: how often a job whose worker died is run again.
    ``modules``: each game's name mapped to the module of its pictures (``bot.games``
    gives the catalogue's: ``bot.games.render_pool``); a test adds its own.
    ``preload``: more modules each worker imports before its first job.
    ``thinker``: (module, function) a worker runs for :meth:`think` (None: no thinking).
    ``spare``: workers more lent while pictures fall behind.
    ``memory_budget_mb``: ... only while this process and its workers leave room for one
    (``SPARE_MB``) in this many MB, given back when they are over it (None: no budget).
    The pool itself knows no game.
    """

    # How often (in jobs) a worker's memory is read from /proc (``rss_kib``): ~15 us. After
    # every job since 3 Dec: read every 8th, a worker bound to 150 MB was seen at 165 MB.
    MEMORY_CHECK_EVERY = 1
    # How much one job can raise a worker's resident memory before the next reading (an
    # animation's frames, a table's layers drawn anew after a cache was emptied: up to
    # 14 MB in a replay of a run's 7,624 jobs, 3 Dec). A worker is replaced before what it
    # holds and this leave the other processes less than the budget (``_memory_bound``).
    JOB_RISE_MB = 15.0
    # How long the other processes' memory (the bot, other workers) read for that is used
    # before it is read again: it moves slowly, and the worker's own is read every job.
    OTHERS_READ_EVERY_S = 1.0
    # ... but never below this: a bot too big for the budget on its own would otherwise
    # have its worker replaced after every job once it is past ``MEMORY_MIN_JOBS``.
    MEMORY_BOUND_FLOOR_MB = 60.0
    # A worker is not replaced for its memory before this many jobs: where a fresh one is
    # already over ``max_mb`` (another platform, bigger libraries), replacing it would
    # only start workers (0.2-1.5 s of CPU each) over and over; said once instead.
    MEMORY_MIN_JOBS = 200

    def __init__(self, workers: int | None = None, *, max_jobs: int | None = 2000,
                 max_mb: float | None = WORKER_MAX_MB,
                 timeout: float | None = 60.0, retries: int = 1,
                 modules: Mapping[str, str] | None = None, preload: Iterable[str] = (),
                 thinker: tuple[str, str] | None = None, spare: int = 0,
                 memory_budget_mb: float | None = MEMORY_BUDGET_MB) -> None:
        self.workers = default_workers() if workers is None else workers
        self.spare = spare if self.workers > 0 else 0
        self.memory_budget_mb = memory_budget_mb
        self._memory_read_at = -LEND_MEMORY_CHECK_S
        self._memory_allows_lending = True
        if self.workers < 0:
            raise ValueError("workers must be 0 or more")
        self.max_jobs = max_jobs
        self.max_mb = max_mb
        self._said_young_and_big = False
        # The other processes' memory as ``_memory_bound`` last read it, when, for which worker.
        self._others_mb = 0.0
        self._others_read_at = -self.OTHERS_READ_EVERY_S
        self._others_read_for = 0
        self.timeout = timeout
        self.retries = retries
        self.modules = dict(modules or {})
        self.extra_preload = list(preload)
        self.thinker = thinker
        self.stats = PoolStats()
        self._queues: dict[Priority, deque[_Job]] = {p: deque() for p in Priority}
        self._keyed: dict[Hashable, _Job] = {}
        self._work = asyncio.Event()
        self._slots: list[asyncio.Task[None]] = []
        self._procs: dict[int, _Process] = {}  # slot -> its live worker
        self._running: dict[int, _Job] = {}  # slot -> the job it draws now
        self._ahead: dict[int, _Job] = {}  # slot -> the job sent behind it (``_send_ahead``)
        self._idle_slots = 0  # slots waiting for a job
        self._stopping: set[_Process] = set()  # workers out of their slots, stopping
        # slot -> the worker being started to take over from its worn one (``_succeed``)
        self._successors: dict[int, asyncio.Task[_Process]] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._started = False
        self._started_at = 0.0
        self._closing = False
        self._lent: set[int] = set()  # slots of the spare workers lent now
        self._next_slot = 0
        self._turns = asyncio.Semaphore(BACKGROUND_AHEAD)
        # Callers waiting for a ``turn``: [since, still waiting], oldest first.
        self._turn_queue: deque[list[Any]] = deque()
        self._awaiting_turn = 0

    # -- life ------------------------------------------------------------------------------

    @property
    def preload(self) -> list[str]:
        # The thinker's module too: a hard player's first move should not wait for imports.
        thinking = [self.thinker[0]] if self.thinker else []
        return list(dict.fromkeys([*self.modules.values(), *self.extra_preload, *thinking]))

    async def start(self) -> None:
        """Start the workers; raises if none of them can be started."""
        if self._started:
            return
        self._started = True
        self._started_at = time.monotonic()
        self._next_slot = max(1, self.workers)
        if self.workers == 0:
            self._slots.append(asyncio.create_task(self._thread_slot(0)))
            return
        started = await asyncio.gather(*(_Process.start(self.preload)
                                         for _ in range(self.workers)),
                                       return_exceptions=True)
        errors = [s for s in started if isinstance(s, BaseException)]
        if errors:
            for s in started:
                if isinstance(s, _Process):
                    await s.kill()
            self._closing = True
            raise RenderPoolError(f"could not start render workers: {errors[0]!r}")
        for slot, worker in enumerate(started):
            assert isinstance(worker, _Process)
            self._procs[slot] = worker
            self.stats.workers_started += 1
            self._slots.append(asyncio.create_task(self._process_slot(slot)))

    async def close(self) -> None:
        """Stop taking jobs, fail the queued ones, and stop every worker (killing the busy).

        Returns once no worker process is left.
        """
        if self._closing and not self._slots:
            return
        self._closing = True
        for queue in self._queues.values():
            while queue:
                job = queue.popleft()
                if not job.future.done():
                    job.future.set_exception(PoolClosed("the render pool closed"))
        self._keyed.clear()
        self._work.set()
        for task in self._slots:
            task.cancel()
        await asyncio.gather(*self._slots, return_exceptions=True)
        self._slots.clear()
        successors, self._successors = list(self._successors.values()), {}
        for successor in successors:
            successor.cancel()
        for outcome in await asyncio.gather(*successors, return_exceptions=True):
            if isinstance(outcome, _Process):
                await outcome.kill()
        for jobs in (self._running, self._ahead):
            for slot, job in list(jobs.items()):
                if not job.future.done():
                    job.future.set_exception(PoolClosed("the render pool closed"))
                del jobs[slot]
        procs, self._procs = [*self._procs.values(), *self._stopping], {}
        self._stopping.clear()
        await asyncio.gather(*(p.kill() for p in procs), return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def __aenter__(self) -> RenderPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- jobs ------------------------------------------------------------------------------

    async def render(self, game: str, function: str, *args: Any,
                     priority: Priority = Priority.BACKGROUND,
                     key: Hashable | None = None) -> Any:
        """What ``<the game's pictures module>.<function>(*args)`` returns, drawn by a worker.

        Raises the renderer's own exception, :class:`Superseded` (a newer keyed
        BACKGROUND job replaced this one), :class:`WorkerDied`, :class:`RenderTimeout`
        or :class:`PoolClosed`.
        """
        if self._closing:
            raise PoolClosed("the render pool is closed")
        if not self._started:
            raise RenderPoolError("start() the render pool first")
        if not _NAME.fullmatch(function) or function.startswith("_"):
            raise ValueError(f"not a renderer function name: {function!r}")
        module = _module_of(game, self.modules)
        priority = Priority(priority)
        packed = self._packed(args)
        del args  # this frame waits as long as the job: it keeps the pickle only
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        old = self._keyed.get(key) if key is not None and priority is Priority.BACKGROUND \
            else None
        if old is not None and not old.future.done():
            # The queued job becomes this one, keeping its place in the queue.
            old.future.set_exception(Superseded(f"a newer picture for {key!r} was asked for"))
            self.stats.superseded += 1
            old.module, old.function, old.args, old.future = module, function, packed, future
            old.attempts, old.language = 0, current()
        else:
            job = _Job(module, function, packed, priority, key, future, language=current())
            self._queues[priority].append(job)
            if key is not None and priority is Priority.BACKGROUND:
                self._keyed[key] = job
            self._work.set()
            self._maybe_lend()
        return await future

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """A background picture's turn to be prepared and queued: at most
        ``BACKGROUND_AHEAD`` at once, in the order they asked. A caller that would hold a
        snapshot while its picture waits (a table refresh) takes its snapshot inside::

            async with pool.turn():
                view = build_the_view()
                png = await pool.render(game, "render_table", view, key=match_id)

        Callers waiting for their turn count as queued BACKGROUND pictures (``queued``),
        and the oldest one's wait as the backlog a spare worker is lent for."""
        waiting = [time.monotonic(), True]
        self._turn_queue.append(waiting)
        self._awaiting_turn += 1
        try:
            await self._turns.acquire()
        finally:
            self._awaiting_turn -= 1
            waiting[1] = False
            while self._turn_queue and not self._turn_queue[0][1]:
                self._turn_queue.popleft()
        try:
            yield
        finally:
            self._turns.release()

    async def think(self, game: str, state: Any, player: str, level: str,
                    budget: Any) -> Any:
        """The move of ``player``'s computer player at ``level`` (the pool's ``thinker``,
        ``bot.games.computer_move``), worked out by a worker at the lowest priority. The
        result is the same as in this process: a level's draws are keyed by the state,
        never by where it runs."""
        if self.thinker is None:
            raise RenderPoolError("this render pool was made without a thinker")
        if self._closing:
            raise PoolClosed("the render pool is closed")
        if not self._started:
            raise RenderPoolError("start() the render pool first")
        packed = self._packed((game, state, player, level, budget))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queues[Priority.THINKING].append(
            _Job(*self.thinker, packed, Priority.THINKING, None, future))
        self._work.set()
        return await future

    async def later(self, module: str, function: str, *args: Any) -> Any:
        """What ``<module>.<function>(*args)`` returns, worked out by a worker at LOW
        priority: after every picture and computer move waiting, and on the workers they
        leave over (``thinking_slots``, shared with thinking). ``module`` is one the workers
        may import (``bot.render.animation``); cancelling the caller while the job waits
        takes it out of the queue."""
        if self._closing:
            raise PoolClosed("the render pool is closed")
        if not self._started:
            raise RenderPoolError("start() the render pool first")
        if not _NAME.fullmatch(function) or function.startswith("_"):
            raise ValueError(f"not a function name: {function!r}")
        packed = self._packed(args)
        del args
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queues[Priority.LOW].append(
            _Job(module, function, packed, Priority.LOW, None, future, language=current()))
        self._work.set()
        return await future

    def _packed(self, args: tuple[Any, ...]) -> tuple[Any, ...] | bytes:
        """A job's arguments as it waits: pickled where a worker process will draw it (the
        caller learns at once when they do not pickle), as they are for a thread here."""
        return args if self.workers == 0 else _pack(args)

    def queued(self, priority: Priority | None = None) -> int:
        """Jobs waiting for a worker (of one priority, or all)."""
        queues = self._queues.values() if priority is None else [self._queues[priority]]
        waiting = self._awaiting_turn if priority in (None, Priority.BACKGROUND) else 0
        return waiting + sum(1 for q in queues for job in q if not job.future.done())

    def in_flight(self) -> int:
        """Jobs sent to a worker and not answered yet."""
        return len(self._running) + len(self._ahead)

    def expected_wait(self, priority: Priority = Priority.INTERACTIVE) -> float:
        """Seconds a job of ``priority`` submitted now would likely wait for its picture:
        the jobs ahead of it (queued at that priority or a higher one, and those being
        drawn) shared by the workers, at the pool's mean time per job so far. Workers
        thinking for computer players are left out: a picture does not wait for them."""
        thinking = sum(1 for job in self._running.values() if job.priority in _SPARE)
        ahead = sum(self.queued(p) for p in Priority if p <= priority) \
            + self.in_flight() - thinking
        pictures = self.stats.done - sum(self.stats.per_priority[p] for p in _SPARE)
        measured = pictures and self.stats.worker_seconds  # thread slots time nothing
        per_job = self.stats.worker_seconds / pictures if measured else DEFAULT_JOB_S
        return (ahead + 1) * per_job / max(1, self.workers - thinking)

    def pids(self) -> list[int]:
        """Process ids of the live workers (empty for ``workers=0``)."""
        return [p.pid for p in self._procs.values()]

    @property
    def thinking_slots(self) -> int:
        """How many workers may think for computer players at once."""
        return max(1, self.workers - 1)

    def _take(self, pictures_only: bool = False) -> _Job | None:
        for priority in _PICTURES if pictures_only else Priority:
            queue = self._queues[priority]
            if priority in _SPARE and queue and sum(
                    1 for job in self._running.values()
                    if job.priority in _SPARE) >= self.thinking_slots:
                return None  # a worker stays free for pictures; woken when one finishes
            while queue:
                job = queue.popleft()
                if job.key is not None and self._keyed.get(job.key) is job:
                    del self._keyed[job.key]
                if not job.future.done():  # done here: its caller was cancelled
                    return job
        return None

    async def _next(self) -> _Job:
        job = await self._next_of(pictures_only=False, idle=None)
        assert job is not None  # no ``idle``: it waits for one
        return job

    async def _next_of(self, *, pictures_only: bool, idle: float | None,
                       until: asyncio.Task[Any] | None = None) -> _Job | None:
        """The next job (only pictures: a lent worker's); None after ``idle`` seconds
        without one (None: waits for ever), or once ``until`` is done."""
        give_back = None if idle is None else time.monotonic() + idle
        while True:
            if self._closing:
                raise asyncio.CancelledError
            job = self._take(pictures_only)
            if job is not None:
                return job
            if until is not None and until.done():
                return None
            self._work.clear()
            self._idle_slots += 1
            try:
                if give_back is None:
                    await self._work.wait()
                    continue
                left = give_back - time.monotonic()
                if left <= 0:
                    return None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._work.wait(), left)
            finally:
                self._idle_slots -= 1

    def _backlog_s(self) -> float:
        """How long the oldest picture still queued (or waiting for its ``turn``) has
        waited."""
        now = time.monotonic()
        oldest = self._turn_queue[0][0] if self._turn_queue else None
        for priority in _PICTURES:
            for job in self._queues[priority]:
                if not job.future.done():
                    oldest = job.queued_at if oldest is None else min(oldest, job.queued_at)
                    break
        return 0.0 if oldest is None else now - oldest

    def _maybe_lend(self) -> None:
        """Lend a spare worker when pictures have fallen behind (``LEND_AFTER_S``)."""
        if (len(self._lent) >= self.spare or self._closing
                or time.monotonic() - self._started_at < LEND_NOT_BEFORE_S
                or self._backlog_s() < LEND_AFTER_S or not self._room_to_lend()):
            return
        slot, self._next_slot = self._next_slot, self._next_slot + 1
        self._lent.add(slot)
        self.stats.lent += 1
        log.info("Pictures fell over %.0f s behind: a spare render worker is lent.",
                 LEND_AFTER_S)
        task = asyncio.create_task(self._lent_slot(slot))
        self._slots.append(task)
        task.add_done_callback(lambda t: self._slots.remove(t) if t in self._slots else None)

    def _resident_mb(self, leaving_out: int | None = None) -> float:
        """This process's and its workers' resident memory (0 where /proc does not say),
        but for the process ``leaving_out``."""
        return sum(rss_kib(pid) for pid in (os.getpid(), *self.pids())
                   if pid != leaving_out) / 1024

    def _room_to_lend(self) -> bool:
        """Whether this process and its workers leave room for a spare worker in
        ``memory_budget_mb``, read from /proc at most every ``LEND_MEMORY_CHECK_S``; said
        in the log when that changes."""
        budget = self.memory_budget_mb
        now = time.monotonic()
        if budget is None or now - self._memory_read_at < LEND_MEMORY_CHECK_S:
            return budget is None or self._memory_allows_lending
        self._memory_read_at = now
        resident = self._resident_mb()
        room = resident + SPARE_MB <= budget
        if not room and self._memory_allows_lending:
            self.stats.not_lent_for_memory += 1
            log.info("Pictures fell behind, but the bot and its render workers use %.0f MB: "
                     "no room for a spare worker in %.0f MB.", resident, budget)
        self._memory_allows_lending = room
        return room

    def _over_budget(self) -> bool:
        """Whether this process and its workers use more than ``memory_budget_mb``."""
        return self.memory_budget_mb is not None and \
            self._resident_mb() > self.memory_budget_mb

    async def _lent_slot(self, slot: int) -> None:
        """A spare worker: started now, drawing pictures (never thinking or later work)
        until none has come for ``SPARE_IDLE_S``, then stopped (its memory given back)."""
        try:
            env = dict(os.environ)
            scale = float(env.get("CITYHALL_RENDER_CACHE_SCALE", "1") or 1)
            env["CITYHALL_RENDER_CACHE_SCALE"] = str(scale * SPARE_CACHE_SCALE)
            try:
                worker = await _Process.start(self.preload, env)
            except (_WorkerGone, OSError) as exc:
                log.warning("Could not lend a spare render worker: %s", exc)
                return
            self._procs[slot] = worker
            self.stats.workers_started += 1
            await self._process_slot(slot, lent=True)
        finally:
            self._lent.discard(slot)

    def _requeue(self, job: _Job) -> None:
        """Put a job whose worker died back at the head of its queue."""
        self._queues[job.priority].appendleft(job)
        if job.key is not None and job.priority is Priority.BACKGROUND \
                and job.key not in self._keyed:
            self._keyed[job.key] = job
        self._work.set()

    def _finish(self, job: _Job, ok: bool, value: Any, text: str = "") -> None:
        if job.future.done():
            return  # the caller gave up meanwhile
        if ok:
            self.stats.done += 1
            self.stats.per_priority[job.priority] += 1
            job.future.set_result(value)
            return
        self.stats.failed += 1
        if text and isinstance(value, BaseException):
            value.add_note(f"in the render worker:\n{text}")
        job.future.set_exception(value)

    # -- slots -----------------------------------------------------------------------------

    async def _process_slot(self, slot: int, lent: bool = False) -> None:
        # The job sent to the worker behind the one it draws (``_send_ahead``), its id, and
        # the worker's jobs before it.
        ahead: tuple[_Job, int, int] | None = None
        while True:
            worker = self._procs.get(slot)
            if ahead is not None and worker is not None:
                job, job_id, worker_jobs = ahead
                ahead = None
                self._ahead.pop(slot, None)
            else:
                self._unsend(slot)  # if any, its worker is gone: back to the queue
                ahead = None
                worker = await self._worker_for(slot, worker, lent)
                if worker is None:
                    return
                if lent:
                    picture = await self._next_of(pictures_only=True, idle=SPARE_IDLE_S)
                    if picture is not None and self._over_budget():
                        # At the head of its queue, for the standing worker.
                        self._requeue(picture)
                        picture = None
                        self.stats.given_back_for_memory += 1
                        log.info("The bot and its render workers are over %.0f MB: the "
                                 "spare render worker is given back.", self.memory_budget_mb)
                    elif picture is None:
                        log.info("Pictures caught up: the spare render worker is given back.")
                    if picture is None:
                        self._procs.pop(slot, None)
                        await self._retire(worker)
                        return
                    job = picture
                else:
                    # A worn worker draws on while its successor starts; idle, it waits
                    # for a job or for the successor, whichever comes first.
                    next_job = await self._next_of(pictures_only=False, idle=None,
                                                   until=self._successors.get(slot))
                    if next_job is None:
                        continue  # the successor is ready: it takes over first
                    job = next_job
                job.attempts += 1
                worker_jobs = worker.jobs
                try:
                    job_id = await worker.send(job.module, job.function, job.args,
                                               job.language)
                except (pickle.PicklingError, TypeError, AttributeError) as exc:
                    self._finish(job, False, exc)  # nothing reached the worker
                    continue
                except _WorkerGone as exc:
                    await self._died(slot, worker, job, exc)
                    continue
            self._running[slot] = job
            try:
                if not lent and job.priority in _PICTURES:
                    ahead = await self._send_ahead(slot, worker)
                ok, value, text, seconds, cpu = await worker.answer(job_id, self.timeout)
                self.stats.count_cpu(f"{job.module}.{job.function}", cpu, worker_jobs)
                if job.priority is Priority.THINKING:
                    self.stats.thinking_seconds += seconds
                elif job.priority is Priority.LOW:
                    self.stats.later_seconds += seconds
                else:
                    self.stats.worker_seconds += seconds
            except asyncio.CancelledError:
                self._finish(job, False, PoolClosed("the render pool closed"))
                if ahead is not None:
                    self._finish(ahead[0], False, PoolClosed("the render pool closed"))
                    self._ahead.pop(slot, None)
                raise
            except TimeoutError:
                log.error("render job %s.%s ran over %s s; killing worker %s", job.module,
                          job.function, self.timeout, worker.pid)
                del self._procs[slot]
                await worker.kill()
                self._finish(job, False, RenderTimeout(
                    f"{job.function} ran longer than {self.timeout} s"))
                self._unsend(slot)
                ahead = None
            except _WorkerGone as exc:
                self._unsend(slot)
                ahead = None
                await self._died(slot, worker, job, exc)
            else:
                self._finish(job, ok, value, text)
            finally:
                self._running.pop(slot, None)
                if job.priority in _SPARE and any(self._queues[p] for p in _SPARE):
                    self._work.set()  # a job held back by the cap may go now
            if self._procs.get(slot) is not worker:
                continue
            if not worker.worn and slot not in self._successors and self._worn(worker):
                worker.worn = True
                if not lent and self._room_for(SUCCESSOR_MB):
                    self._succeed(slot)
            if worker.worn and ahead is None and slot not in self._successors:
                # Stopped first: no successor is starting beside it.
                del self._procs[slot]
                self.stats.recycled += 1
                await self._retire(worker)

    async def _worker_for(self, slot: int, worker: _Process | None,
                          lent: bool) -> _Process | None:
        """The worker ``slot`` sends its next job to: its successor once that has started,
        a new one where it has none; None when the slot is done (a lent worker that died),
        or draws in a thread from now on."""
        successor = self._successors.get(slot)
        if successor is not None and (worker is None or successor.done()):
            worker = await self._take_over(slot, worker)
        if worker is not None:
            return worker
        if lent:
            return None  # a lent worker that died is not replaced: the next backlog lends
        worker = await self._replace(slot)
        if worker is None:
            # Processes cannot be started here any more: keep drawing, in a thread.
            await self._thread_slot(slot)
        return worker

    async def _send_ahead(self, slot: int, worker: _Process) -> tuple[_Job, int, int] | None:
        """Send the next picture waiting to ``worker`` while it draws one, so it reads it
        the moment it has answered instead of waiting for the event loop to send it: at
        100 clicks a second on 2 cores the worker waited on the busy loop ~10 % of its time
        between two pictures (docs/performance.md, 2 Dec). At most one picture goes ahead,
        only behind a picture, only while no other worker is idle (it would draw it
        sooner), and not to a worn worker, unless a successor is starting beside it: an
        INTERACTIVE picture queued after it waits for one BACKGROUND picture at most."""
        successor = self._successors.get(slot)
        if self._idle_slots or self._closing or (
                worker.worn and (successor is None or successor.done())):
            return None
        job = self._take(pictures_only=True)
        if job is None:
            return None
        job.attempts += 1
        worker_jobs = worker.jobs
        self._ahead[slot] = job
        try:
            job_id = await worker.send(job.module, job.function, job.args, job.language)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            self._ahead.pop(slot, None)
            self._finish(job, False, exc)
            return None
        except _WorkerGone:
            # The reply to the job it draws says so; this one goes to the next worker.
            self._unsend(slot)
            return None
        return job, job_id, worker_jobs

    def _unsend(self, slot: int) -> None:
        """Put the job sent ahead to ``slot``'s worker, which is gone, back in its queue,
        its attempt not counted: it never ran."""
        job = self._ahead.pop(slot, None)
        if job is not None:
            job.attempts -= 1
            if not job.future.done():
                self._requeue(job)

    async def _died(self, slot: int, worker: _Process, job: _Job, exc: BaseException) -> None:
        """``worker`` exited with ``job`` sent to it: run the job again, or fail it."""
        self.stats.worker_deaths += 1
        if self._procs.get(slot) is worker:
            del self._procs[slot]
        code = await worker.proc.wait()
        log.error("render worker %s died (exit %s) drawing %s.%s: %s", worker.pid,
                  code, job.module, job.function, exc)
        if job.attempts <= self.retries and not job.future.done():
            self._requeue(job)
        else:
            self._finish(job, False, WorkerDied(
                f"the render worker died (exit code {code}) drawing {job.function}"))

    def _room_for(self, megabytes: float) -> bool:
        """Whether this process and its workers leave ``megabytes`` in the memory budget."""
        budget = self.memory_budget_mb
        return budget is None or self._resident_mb() + megabytes <= budget

    def _succeed(self, slot: int) -> None:
        """Start the worker that takes over from ``slot``'s worn one. The worn one goes on
        drawing meanwhile: stopped first, it left every picture waiting through a new
        worker's start (0.3 s on an idle core, more on busy ones; in the soak one came every
        ~30 s, and the pictures' p95 doubled, docs/performance.md). For that second the two
        hold ~35 MB more than one (``SUCCESSOR_MB``): without room for it in the budget the
        worn worker is stopped first, as a lent one always is."""
        successor = asyncio.create_task(_Process.start(self.preload))
        # A slot waiting for a job wakes to hand over when the successor is ready.
        successor.add_done_callback(lambda _task: self._work.set())
        self._successors[slot] = successor

    async def _take_over(self, slot: int, worn: _Process | None) -> _Process | None:
        """Install ``slot``'s successor (waiting for it to start if need be) and stop the
        worn worker; None when the successor could not be started (the slot then starts
        one the usual way, ``_replace``)."""
        task = self._successors[slot]
        try:
            # Shielded: a slot cancelled here (the pool closing) leaves the successor
            # listed, and close() kills it.
            successor: _Process | None = await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.error("could not start a render worker to replace a worn one: %s", exc)
            successor = None
        self._successors.pop(slot, None)
        retiring = worn is not None and self._procs.get(slot) is worn
        # The successor is listed before the worn worker is stopped: the pool closing
        # meanwhile finds both.
        if successor is not None:
            self._procs[slot] = successor
            self.stats.workers_started += 1
        elif retiring:
            del self._procs[slot]
        if worn is not None and retiring:
            self.stats.recycled += 1
            if successor is not None:
                self.stats.handed_over += 1
            await self._retire(worn)
        return successor

    async def _retire(self, worker: _Process) -> None:
        """Stop a worker taken out of its slot. Until it has stopped it is listed in
        ``_stopping``: a pool closing meanwhile (which cancels this) kills it."""
        self._stopping.add(worker)
        await worker.stop()
        self._stopping.discard(worker)

    def _worn(self, worker: _Process) -> bool:
        """Whether ``worker`` is due to be replaced: its jobs, or its memory."""
        if self.max_jobs is not None and worker.jobs >= self.max_jobs:
            return True
        if self.max_mb is None or worker.jobs % self.MEMORY_CHECK_EVERY:
            return False
        resident = rss_kib(worker.pid) / 1024  # 0 where /proc does not say
        bound = self._memory_bound(worker)
        if resident <= bound:
            return False
        if worker.jobs < self.MEMORY_MIN_JOBS:
            # Over its own max_mb this young, the platform's worker is bigger than ours:
            # worth an admin's look. Over what a big bot leaves it is only the budget at work.
            if resident > self.max_mb and not self._said_young_and_big:
                self._said_young_and_big = True
                log.warning("A render worker uses %.0f MB after only %d jobs, over the %.0f MB "
                            "it is replaced at: it is kept for its first %d jobs, and replaced "
                            "after them only if it is still over.", resident, worker.jobs,
                            self.max_mb, self.MEMORY_MIN_JOBS)
            return False
        self.stats.recycled_for_memory += 1
        log.info("Render worker %s uses %.0f MB after %d jobs (over %.0f): replaced.",
                 worker.pid, resident, worker.jobs, bound)
        return True

    def _memory_bound(self, worker: _Process) -> float:
        """The resident memory ``worker`` is replaced over: ``max_mb``, or less where the
        bot and the other workers leave less of ``memory_budget_mb`` (with ``JOB_RISE_MB``
        for the next job). The bot's own memory moves with its matches and its traffic: in
        a 20-minute soak it was 114-145 MB (3 Dec), and with a worker held to 150 MB alone
        all processes reached 304 MB. A bot this big leaves a worker less (never under
        ``MEMORY_BOUND_FLOOR_MB``), and a small one no more than ``max_mb``."""
        assert self.max_mb is not None
        budget = self.memory_budget_mb
        if budget is None:
            return self.max_mb
        now = time.monotonic()
        if now - self._others_read_at >= self.OTHERS_READ_EVERY_S \
                or self._others_read_for != worker.pid:
            self._others_read_at, self._others_read_for = now, worker.pid
            self._others_mb = self._resident_mb(leaving_out=worker.pid)
        return min(self.max_mb, max(self.MEMORY_BOUND_FLOOR_MB,
                                    budget - self._others_mb - self.JOB_RISE_MB))

    async def _replace(self, slot: int) -> _Process | None:
        for attempt in range(_START_ATTEMPTS):
            try:
                worker = await _Process.start(self.preload)
            except (_WorkerGone, OSError) as exc:
                log.error("could not start a render worker (attempt %s): %s", attempt + 1, exc)
                await asyncio.sleep(0.5 * 2 ** attempt)
                continue
            self._procs[slot] = worker
            self.stats.workers_started += 1
            return worker
        log.error("render slot %s draws in a thread from now on", slot)
        return None

    async def _thread_slot(self, slot: int) -> None:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=max(1, self.workers),
                                                thread_name_prefix="render")
        loop = asyncio.get_running_loop()
        while True:
            job = await self._next()
            self._running[slot] = job
            job.attempts += 1
            call: Callable[[], Any] = _bind(job)
            try:
                value = await loop.run_in_executor(self._executor, call)
            except asyncio.CancelledError:
                self._finish(job, False, PoolClosed("the render pool closed"))
                raise
            except Exception as exc:
                self._finish(job, False, exc)
            else:
                self._finish(job, True, value)
            finally:
                self._running.pop(slot, None)
                if job.priority in _SPARE and any(self._queues[p] for p in _SPARE):
                    self._work.set()  # a job held back by the cap may go now


def _pack(args: tuple[Any, ...]) -> bytes:
    return pickle.dumps(args, _PICKLE)


def _bind(job: _Job) -> Callable[[], Any]:
    """The job as a call in a thread (a slot whose worker processes could not be started
    draws jobs queued for them, pickled, too)."""
    module, function, language = job.module, job.function, job.language
    packed = job.args
    if isinstance(packed, bytes):
        return lambda: _call(module, function, pickle.loads(packed), language)
    return lambda: _call(module, function, packed, language)


def rss_kib(pid: int) -> int:
    """Resident set size of a process in KiB, from /proc (0 where that is unavailable)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
