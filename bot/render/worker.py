"""A render worker's side of the pool (``bot/render/pool.py``): read a job from stdin, call
the function it names, write the reply to stdout, until told to stop.

A job is a frame: an 8-byte big-endian length, then a pickle. The parent sends
``("init", sys.path, preload)`` first, then ``("job", id, module, function, args,
language)`` (``args`` a pickle of the arguments' tuple, made when the job was queued) or
``("stop",)``; the worker answers ``("ready", pid)``, then ``("ok", id, value, seconds,
cpu_seconds)`` or ``("error", id, exception, traceback)`` per job (the CPU is what the pool
counts per kind of job: ``PoolStats.cpu_by_job``).
"""

from __future__ import annotations

import gc
import importlib
import os
import pickle
import select
import signal
import struct
import sys
import time
import traceback
from typing import Any, BinaryIO

from bot.core.heap import trimmer
from bot.core.i18n import ENGLISH, speaking

_HEADER = struct.Struct(">Q")
_PICKLE = pickle.HIGHEST_PROTOCOL
IDLE_TRIM = 0.25  # seconds without a job before a worker returns freed memory
# Workers run at a lower CPU priority than the bot: when the cores are busy, answering a
# click (the event loop) goes first and a table picture waits, which newest-state-wins
# redraws absorb. An idle core still goes to the workers in full.
WORKER_NICE = 10


class RenderPoolError(RuntimeError):
    """Base of the pool's own failures (not a renderer's exceptions)."""


class RenderError(RenderPoolError):
    """A renderer raised an exception that could not be sent back as itself."""


def _call(module: str, function: str, args: tuple[Any, ...], language: str = ENGLISH) -> Any:
    target = getattr(importlib.import_module(module), function, None)
    if not callable(target):
        raise AttributeError(f"{module} has no function {function!r}")
    with speaking(language):
        return target(*args)


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None  # the parent closed our stdin: it is gone or wants us gone
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int) -> Any | None:
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    data = _read_exactly(fd, size)
    return None if data is None else pickle.loads(data)


def _write_frame(stream: BinaryIO, message: Any) -> None:
    data = pickle.dumps(message, _PICKLE)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _error_reply(job_id: int, exc: BaseException) -> Any:
    text = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc, _PICKLE))
        sendable: BaseException = exc
    except Exception:
        sendable = RenderError(f"{type(exc).__name__}: {exc}")
    return ("error", job_id, sendable, text)


def worker_main() -> None:
    """A worker's life: read jobs from stdin, write replies to stdout, until told to stop.

    The protocol owns the real stdout; file descriptor 1 is pointed at stderr so a stray
    ``print`` in a renderer ends up in the log instead of corrupting a reply. A bot killed
    while its worker was drawing leaves the reply nowhere to go: the worker then exits
    quietly, as it does when its stdin closes, never with a traceback in the log.
    """
    try:
        _work()
    except BrokenPipeError:
        # os._exit: a normal exit would flush the reply stream again, to the same
        # closed pipe, and print "Exception ignored" about it.
        os._exit(0)


def _work() -> None:
    # Ctrl-C reaches the whole process group, and systemd sends SIGTERM to the whole unit:
    # the parent finishes its work and then stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    jobs = sys.stdin.fileno()  # read unbuffered, so select() sees every waiting byte
    hello = _read_frame(jobs)
    if hello is None:
        return
    _tag, path, preload = hello
    sys.path[:] = path
    # At nice WORKER_NICE already: the pool lowered this process as it started it.
    for name in preload:
        importlib.import_module(name)
    # Everything imported so far lives as long as the process; freezing it keeps the
    # collector from walking (and the refcount-free pages from being touched by) it.
    gc.collect()
    gc.freeze()
    trim = trimmer()
    _write_frame(replies, ("ready", os.getpid()))
    dirty = False
    while True:
        if dirty and trim is not None and not select.select([jobs], [], [], IDLE_TRIM)[0]:
            # Idle: give the pictures' freed pages back. A busy worker never pays for it,
            # and without it the heap keeps the high-water mark of every picture drawn.
            trim()
            dirty = False
        message = _read_frame(jobs)
        if message is None or message[0] == "stop":
            return
        _tag, job_id, module, function, packed, language = message
        dirty = True
        try:
            args = pickle.loads(packed)  # pickled once, when the job was queued
            started, cpu = time.perf_counter(), time.process_time()
            value = _call(module, function, args, language)
            reply: Any = ("ok", job_id, value, time.perf_counter() - started,
                          time.process_time() - cpu)
            data = pickle.dumps(reply, _PICKLE)
        except Exception as exc:
            data = pickle.dumps(_error_reply(job_id, exc), _PICKLE)
        replies.write(_HEADER.pack(len(data)))
        replies.write(data)
        replies.flush()
