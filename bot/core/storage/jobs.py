"""What the writes do beyond a row or two, as jobs either backend runs: the per-player
totals ``/stats`` reads, the archive of a finished game; and the statements that write a
match's row and its state and results."""

from __future__ import annotations

import json
import zlib
from typing import Any

from .ops import Job, execute, fetch_all, fetch_one

# -- what the jobs do (in the writer thread, or a PostgreSQL transaction) -------------------


def _add_to_totals(guild_id: int, game: str, player_id: str, name: str, score: int, won: bool,
                   extra: dict[str, Any]) -> Job[None]:
    row = yield fetch_one("SELECT games, wins, best, extra FROM player_totals WHERE guild_id=?"
                          " AND game=? AND player_id=?", (guild_id, game, player_id))
    numbers = {k: v for k, v in extra.items() if isinstance(v, int) and not isinstance(v, bool)}
    if row is None:
        yield execute("INSERT INTO player_totals (guild_id, game, player_id, name, games, wins,"
                      " best, extra) VALUES (?,?,?,?,?,?,?,?)",
                      (guild_id, game, player_id, name, 1, int(won), score, json.dumps(numbers)))
        return
    games, wins, best, old = row
    summed = json.loads(old)
    for key, value in numbers.items():
        summed[key] = summed.get(key, 0) + value
    yield execute("UPDATE player_totals SET name=?, games=?, wins=?, best=?, extra=?"
                  " WHERE guild_id=? AND game=? AND player_id=?",
                  (name, games + 1, wins + int(won), max(best, score), json.dumps(summed),
                   guild_id, game, player_id))


def _recount_totals(guild_id: int, game: str, player_id: str) -> Job[None]:
    """A game's results were written again (a replaced result): count the player afresh."""
    yield execute("DELETE FROM player_totals WHERE guild_id=? AND game=? AND player_id=?",
                  (guild_id, game, player_id))
    for name, score, won, extra in (yield fetch_all(
            "SELECT name, score, won, extra FROM results WHERE guild_id=? AND game=?"
            " AND player_id=? AND cpu=0 ORDER BY finished_at", (guild_id, game, player_id))):
        yield from _add_to_totals(guild_id, game, player_id, name, score, bool(won),
                                  json.loads(extra))


def _archive(match_id: int) -> Job[None]:
    """Fold a finished match's action log and final state into one compressed row."""
    rows = yield fetch_all("SELECT seq, player, action, by_computer, at FROM actions"
                           " WHERE match_id=? ORDER BY seq", (match_id,))
    entries = [[seq, player, json.loads(action), by_computer, at]
               for seq, player, action, by_computer, at in rows]
    old = yield fetch_one("SELECT actions FROM archive WHERE match_id=?", (match_id,))
    if old is not None:
        # Saved again after it was archived (a table message id, say): keep the log.
        entries = json.loads(zlib.decompress(old[0])) + entries
    state = yield fetch_one("SELECT state, state_version FROM match_states WHERE match_id=?",
                            (match_id,))
    state_blob = None if state is None else zlib.compress(state[0].encode(), 9)
    state_version = 1 if state is None else state[1]
    if state_blob is None and old is not None:
        state_blob, state_version = yield fetch_one(
            "SELECT state, state_version FROM archive WHERE match_id=?", (match_id,))
    log_json = json.dumps(entries, separators=(",", ":"))
    yield execute(_UPSERT_ARCHIVE,
                  (match_id, zlib.compress(log_json.encode(), 9), state_blob, state_version))
    yield execute("DELETE FROM actions WHERE match_id=?", (match_id,))
    yield execute("DELETE FROM match_states WHERE match_id=?", (match_id,))


# Upserts both databases know (SQLite 3.24 and later), where SQLite alone had INSERT OR
# REPLACE; the row ends up the same.
_UPSERT_ARCHIVE = (
    "INSERT INTO archive (match_id, actions, state, state_version) VALUES (?,?,?,?)"
    " ON CONFLICT (match_id) DO UPDATE SET actions=excluded.actions, state=excluded.state,"
    " state_version=excluded.state_version")
_UPSERT_STATE = (
    "INSERT INTO match_states (match_id, state, state_version) VALUES (?,?,?)"
    " ON CONFLICT (match_id) DO UPDATE SET state=excluded.state,"
    " state_version=excluded.state_version")
_UPSERT_RESULT = (
    "INSERT INTO results (match_id, guild_id, game, player_id, name, cpu, score, won, extra,"
    " finished_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (match_id, player_id) DO UPDATE"
    " SET guild_id=excluded.guild_id, game=excluded.game, name=excluded.name,"
    " cpu=excluded.cpu, score=excluded.score, won=excluded.won, extra=excluded.extra,"
    " finished_at=excluded.finished_at")


_INSERT_MATCH = (
    "INSERT INTO matches (guild_id, channel_id, game, status, host_id, seats, options, seed,"
    " state, version, table_message_id, turn_started_at, extra, created_at, updated_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_UPDATE_MATCH = (
    "UPDATE matches SET guild_id=?, channel_id=?, game=?, status=?, host_id=?, seats=?,"
    " options=?, seed=?, state=?, version=?, table_message_id=?, turn_started_at=?, extra=?,"
    " updated_at=? WHERE id=?")
