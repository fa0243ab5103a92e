"""What an admin sees of the bot: its processes' memory, the machine, the database file."""

from __future__ import annotations

import contextlib
import os
import platform
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.core.loopmonitor import steal_ticks

PROC = Path("/proc")


def _ppid(pid: int) -> int | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name sits in parentheses and may hold spaces: read after the last ")"
    fields = text[text.rfind(")") + 2:].split()
    return int(fields[1]) if len(fields) > 1 else None


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (render workers and the like)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            parent = _ppid(int(entry.name))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if (PROC / str(pid)).exists():
            found.append(pid)
            todo.extend(children.get(pid, []))
    return found


def _proc_field_bytes(pid: int, name: str, field: str) -> int:
    """A ``kB`` line of ``/proc/<pid>/<name>`` in bytes (0 if the process is gone)."""
    try:
        for line in (PROC / str(pid) / name).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rss_bytes(pid: int) -> int:
    return _proc_field_bytes(pid, "status", "VmRSS:")


def pss_bytes(pid: int) -> int:
    """Proportional set size: resident memory with each shared page divided among the
    processes sharing it, so a sum over processes counts shared memory once."""
    return _proc_field_bytes(pid, "smaps_rollup", "Pss:")


def cpu_seconds(pid: int, *, children: bool = False) -> float:
    """CPU time (user + system) a process has run; with ``children``, also what its
    finished children it has waited for ran (replaced render workers). 0 when gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rfind(")") + 2:].split()
    # after the name: state(0) ppid ... utime(11) stime(12) cutime(13) cstime(14)
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def stolen_seconds() -> float | None:
    """CPU time this (virtual) machine's host has taken from its cores since boot, all cores
    together (``/proc/stat``'s steal), or None where the system does not say."""
    try:
        return steal_ticks((PROC / "stat").read_bytes()) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def tree_cpu_seconds(root: int) -> float:
    """CPU time of the bot and every process below it (render workers), the workers it
    has replaced included."""
    return sum(cpu_seconds(pid, children=pid == root) for pid in descendants(root))


def tree_rss(root: int) -> dict[str, Any]:
    """Resident memory of the bot and all its child processes: summed RSS (``total_mb``,
    what the targets are read against: a page the processes share is counted in each), and
    summed PSS (``total_pss_mb``: each shared page counted once, split between the
    processes sharing it; what the machine holds for them)."""
    pids = descendants(root)
    per = {pid: rss_bytes(pid) for pid in pids}
    return {"total_mb": round(sum(per.values()) / 2**20, 1), "processes": len(per),
            "total_pss_mb": round(sum(pss_bytes(pid) for pid in pids) / 2**20, 1),
            "per_process_mb": {str(pid): round(b / 2**20, 1) for pid, b in per.items()}}


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_mb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_mb = int(line.split()[1]) // 1024
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {"nproc": cpus, "cpu_model": model, "memory_mb": memory_mb, "load_avg": load,
            "python": sys.version.split()[0], "platform": platform.platform(),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}


def database_bytes(path: Path, *, checkpoint: bool) -> dict[str, int]:
    """The database file's size; with ``checkpoint``, after folding the WAL into it (as an
    admin's ``sqlite3 file 'PRAGMA wal_checkpoint(TRUNCATE)'`` would)."""
    if checkpoint and path.exists():
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    wal = path.with_name(path.name + "-wal")
    out = {"db": path.stat().st_size if path.exists() else 0,
           "wal": wal.stat().st_size if wal.exists() else 0}
    if checkpoint and path.exists():
        # Pages on SQLite's free list are reused before the file grows, so the file's size
        # says little about what a game added; the pages holding data do.
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as db:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
            size = db.execute("PRAGMA page_size").fetchone()[0]
        out["in_use"] = (pages - free) * size
    return out
