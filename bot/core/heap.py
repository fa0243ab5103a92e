"""Freed memory given back to the system: glibc's ``malloc_trim(0)``.

A picture is a few MB of pixels drawn, encoded and let go; glibc keeps the freed pages in
its heap for the next allocation, so a process's resident memory stays at the high-water
mark of everything it ever held at once. Trimming returns the free pages (~0.3 ms for a
render worker's heap). The render workers trim when idle (``bot/render/worker.py``), the
bot every ``HEAP_TRIM_S`` (``CityhallBot``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def trimmer() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)`` as a function of no arguments, or None where the C library
    has none (musl, macOS): there is nothing to do then."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)
