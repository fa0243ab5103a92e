"""`python -m bot backup FILE` as an admin (or cron) runs it: while another process keeps
writing moves, the copy is one complete, consistent Cityhall database whose games go on
from where the copy caught them; an existing file is not overwritten without --force."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.core.runtime import Runtime
from bot.core.storage import APPLICATION_ID, Storage
from bot.games import GAMES
from tests.process_harness import Database

ROOT = Path(__file__).resolve().parent.parent
WAIT = 30.0  # only a hang detector
TABLES = {"matches", "actions", "results", "match_states", "archive", "player_totals"}


def _backup(*args: str, db: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_PATH"}
    env.update(PYTHONPATH=str(ROOT), DATABASE_PATH=str(db))
    return subprocess.run([sys.executable, "-m", "bot", "backup", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=WAIT)


async def _acks_until(child: asyncio.subprocess.Process, count: int,
                      acked: dict[int, int]) -> None:
    """Read the writer's acknowledgements (``ack <match> <version>``) until ``count``."""
    assert child.stdout is not None
    seen = 0
    while seen < count:
        line = (await asyncio.wait_for(child.stdout.readline(), WAIT)).decode()
        assert line, "the writing process ended"
        if line.startswith("ack "):
            _, match, version = line.split()
            acked[int(match)] = max(acked.get(int(match), 0), int(version))
            seen += 1


def _check_complete(copy: Path, acked_before: dict[int, int]) -> int:
    """The copy is a whole Cityhall database, every match in it replays from its action log
    to its saved state, and every move acknowledged before the backup began is in it.
    Returns how many matches were replayed."""
    with contextlib.closing(sqlite3.connect(f"file:{copy}?mode=ro", uri=True)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables >= TABLES
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        # one self-contained file: nothing left in a WAL beside it
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        ids = [r[0] for r in conn.execute("SELECT id FROM matches ORDER BY id")]
    assert not Path(f"{copy}-wal").exists()
    db = Database(copy)
    for match_id in ids:
        saved = db.match(match_id)
        rows = db.actions(match_id)
        assert [r.seq for r in rows] == list(range(2, saved.version + 1)), match_id
        engine = GAMES[saved.game].engine
        state = engine.new(saved.player_ids, saved.options, saved.seed)
        for row in rows:
            state, _events = engine.apply(state, row.player, row.action)
        assert json.dumps(state, sort_keys=True) == json.dumps(saved.state, sort_keys=True), \
            f"match {match_id}: the action log does not replay to the saved state"
        assert saved.version >= acked_before.get(match_id, 0), \
            f"match {match_id}: a move acknowledged before the backup is missing"
    return len(ids)


async def _play_on(copy: Path) -> int:
    """Open the copy as the bot would and make one move in every unfinished match."""
    storage = await Storage.open(copy)
    try:
        runtime = Runtime(storage, GAMES, turn_seconds=3600)
        restored = await runtime.load()
        for match in restored:
            assert match.state is not None
            version = match.version
            engine, computer = GAMES[match.game].engine, GAMES[match.game].computer
            player = engine.to_act(match.state)[0]
            action = (computer.normal(match.state, player)
                      if match.state["phase"] == "goals"
                      else engine.legal(match.state, player)[0].action)
            outcome = await runtime.act(match.id, player, action)
            assert outcome.match.version == version + 1
        return len(restored)
    finally:
        await storage.close()


async def test_a_backup_while_another_process_writes_is_complete_and_playable(
        tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.durability_child", str(db), "7", cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    acked: dict[int, int] = {}
    copies = []
    try:
        for n in range(2):
            await _acks_until(child, 400, acked)
            before = dict(acked)
            copy = tmp_path / "backups" / f"cityhall-{n}.sqlite3"
            copy.parent.mkdir(exist_ok=True)
            # the admin's cron job, from its own folder
            done = await asyncio.to_thread(_backup, str(copy), db=db, cwd=tmp_path / "backups")
            assert done.returncode == 0, done.stdout + done.stderr
            assert f"Backed up {db} to {copy}: 200 game(s)" in done.stdout, done.stdout
            copies.append((copy, before))
        await _acks_until(child, 100, acked)  # still writing after the backups
    finally:
        child.kill()
        await child.wait()
    for copy, before in copies:
        assert _check_complete(copy, before) == 200
    assert await _play_on(copies[-1][0]) > 0


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    db = tmp_path / "cityhall.sqlite3"
    asyncio.run(_open_and_close(db))
    target = tmp_path / "last-night.sqlite3"
    target.write_text("yesterday's backup")
    refused = _backup(str(target), db=db, cwd=tmp_path)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert refused.stdout.strip() == f"{target} already exists; add --force to replace it."
    assert target.read_text() == "yesterday's backup"

    forced = _backup(str(target), "--force", db=db, cwd=tmp_path)
    assert forced.returncode == 0, forced.stdout + forced.stderr
    _check_complete(target, {})
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no leftovers


def test_backing_up_a_missing_database_creates_none(tmp_path: Path) -> None:
    db = tmp_path / "typo.sqlite3"
    done = _backup("copy.sqlite3", db=db, cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stdout.strip() == f"There is no database at {db} (DATABASE_PATH); nothing to " \
                                  f"back up."
    assert not db.exists() and not (tmp_path / "copy.sqlite3").exists()


def test_an_in_memory_database_setting_is_a_sentence_not_a_backup(tmp_path: Path) -> None:
    done = _backup("copy.sqlite3", db=Path(":memory:"), cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stdout.startswith("Cannot back up: DATABASE_PATH: ':memory:' would keep")
    assert list(tmp_path.iterdir()) == []


async def _open_and_close(db: Path) -> None:
    storage = await Storage.open(db)
    await storage.close()


def test_the_nightly_backup_example_works_on_its_first_night(tmp_path: Path) -> None:
    """docs/operating.md: `backup backups/cityhall-$(date +%F).sqlite3` with no backups/ folder yet:
    the folder is made, the backup is whole. A folder that cannot be made is a sentence."""
    db = tmp_path / "cityhall.sqlite3"
    asyncio.run(_open_and_close(db))
    done = _backup("backups/cityhall-2026-11-29.sqlite3", db=db, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    _check_complete(tmp_path / "backups" / "cityhall-2026-11-29.sqlite3", {})
    (tmp_path / "taken").write_text("a file, not a folder")
    refused = _backup("taken/cityhall.sqlite3", db=db, cwd=tmp_path)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert refused.stdout.strip().startswith(f"Could not make the folder {tmp_path / 'taken'}:")
