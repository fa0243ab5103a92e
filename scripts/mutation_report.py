"""Per-module mutation scores from the results mutmut 3 left in ``mutants/``.

    python scripts/mutation_report.py                 # one line per mutated module
    python scripts/mutation_report.py --functions     # and per function, worst first
    python scripts/mutation_report.py --survivors     # and the surviving mutants, with diffs

Score = killed / (killed + survived + no tests + equivalent), where "killed" includes
timeouts (a mutant that makes the tests hang was caught). Mutants no selected test reaches
("no tests") count as survived: nothing would notice them either.

"Equivalent" survivors behave exactly like the original (docs/mutation.md says why, rule by
rule); the second score sets them aside: killed / (killed + survived + no tests). A
survivor is equivalent when

- it only changes the letter case of SQL text in a module listed in ``SQL_CASE_BLIND``
  (keywords and unquoted names ignore case on SQLite and PostgreSQL alike; a quoted value or
  a double-quoted name must be unchanged, since their case matters). A row key is not SQL
  text: an asyncpg record's keys are case-sensitive (``row["VERSION"]`` fails on
  PostgreSQL where ``sqlite3.Row`` would forgive it), so such a mutant must be killed, or
- its changed lines are listed in ``EQUIVALENT`` for that function, with the reason.

Both rules read the mutated code itself, so they follow the code when mutant numbers shift.
Run from the repository root after ``make mutation``.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

# mutmut 3's exit codes (mutmut.stats.status_by_exit_code), grouped for a score.
KILLED = {1, 3, 24, -24, 36, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}
NOT_CHECKED = {None}

# "bot.core.runtime.xǁRuntimeǁ_act__mutmut_12" or
# "bot.core.storage.store.x__columns__mutmut_3"
NAME = re.compile(r"^(?P<module>.+?)\.x(?:ǁ(?P<cls>[^ǁ]+)ǁ(?P<meth>.+)|_(?P<func>.+))__mutmut_\d+$")

# Modules whose strings that look like SQL all go to a database (no sentence for a person).
SQL_CASE_BLIND = {f"bot/core/storage/{name}.py" for name in (
    "ops", "schema", "jobs", "writer", "sqlite", "store", "postgres")}
SQL_WORD = re.compile(r"\b(select|insert|update|delete|from|where|and|order by|values|pragma|"
                      r"begin|commit|rollback|release|savepoint|create|join|limit|set)\b", re.I)
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")  # a value or a quoted name: case matters


@dataclass(frozen=True)
class Equivalent:
    source: str
    function: str  # as function_of() names it
    line: str      # the mutated line, as ast.unparse writes it
    reason: str
    was: str | None = None  # the original line, where the mutated one alone is ambiguous
    # For a change inside a long line (a dict literal of many keys): ``line`` and ``was``
    # are then the changed fragment and the original fragment, which must occur in the
    # original line exactly once.
    fragment: bool = False

    def fits(self, added: list[str], removed: list[str]) -> bool:
        if not self.fragment:
            return bool(added) and all(line == self.line for line in added) \
                and (self.was is None or removed == [self.was])
        if len(added) != 1 or len(removed) != 1 or self.was is None \
                or removed[0].count(self.was) != 1:
            return False
        return removed[0].replace(self.was, self.line) == added[0]


# Checked by hand, one by one; docs/mutation.md gives the same reasons in prose.
_SMALLER = "only the file's size changes: the same text or data is read back"
_RECOUNT = ("counting a player afresh from the results gives the same totals as adding the one "
            "new game (the results row is written first); only slower")
_READ_ONLY = ("a shallow copy serves as well: nothing changes a view or an event in place (the "
              "adapters rename players into a deep copy, renderers only read) and every move "
              "deep-copies the state first")
_TURN_KIND = ("the turn's kind of main action is only compared with 'pass' (and kept in the "
              "saved turn, read nowhere): any other word, or None, does the same")
_NO_OFFER = ("every reader of an offer (open_offers, the trade's public and private views) "
             "asks only whether there is one: '' and None are both none")
_NOT_STRICT = "zip's strict defaults to False, and None is as false: the same zip"
_EASY_NO_BUDGET = ("this call decides for easy and normal only (hard goes to the thinker "
                   "below), and no game's easy or normal reads the budget")
_ONE_SWAP = ("the match's ping record is read and replaced with no await in between (the "
             "message id swapped in one step, the old message deleted after): a ping and a "
             "reminder at once still leave one message and one record, whichever lock they "
             "hold")
EQUIVALENT: list[Equivalent] = [
    Equivalent("bot/core/storage/store.py", "Storage.unfinished",
               "owned = '' if shards is None or shards.everything else "
               "f\" AND {shards.sql('M.GUILD_ID')}\"",
               "an unquoted column name in SQL: SQLite and PostgreSQL both ignore its case"),
    Equivalent("bot/core/storage/writer.py", "Writer.__init__", "self.lost = None",
               "lost is only read for its truth (`if self.lost or …`, `if not self.lost`): "
               "None is as false as False"),
    Equivalent("bot/core/storage/sqlite.py", "SQLiteBackend.open",
               "quick = sqlite3.connect(name, timeout=0.02)",
               "the small reads' connection only reads (query_only): Python's sqlite3 begins "
               "a transaction of its own only before a write, so its default isolation level "
               "behaves as autocommit here"),
] + [
    Equivalent("bot/core/storage/writer.py", "Writer.start", f"if self.path != {name!r}:",
               "SQLite's quick_check of a new, empty in-memory database finds nothing wrong: "
               "checking it changes nothing",
               was="if self.path != ':memory:':")
    for name in ("XX:memory:XX", ":MEMORY:")
] + [
    Equivalent("bot/core/runtime.py", "Runtime.open_lobby",
               "async with self._server_locks(None):",
               "one lock for every server instead of one per server: a server's lobbies are "
               "still opened one at a time, so its limits hold; only other servers wait, "
               "which no outcome shows"),
    Equivalent("bot/games/cities/engine.py", "CitiesEngine.new",
               "variant = str(options.get('variant', 'STANDARD')).strip().lower()",
               "the default is lower-cased on the same line: 'STANDARD' reads as 'standard'"),
    Equivalent("bot/games/cities/engine.py", "CitiesEngine.new",
               "city_option = str(options.get('city', 'RANDOM')).strip()",
               "the next line compares city_option.lower(): 'RANDOM' reads as 'random'"),
    Equivalent("bot/ui/pings.py", "TurnPings.remind", "async with self._locks(None):",
               _ONE_SWAP),
    Equivalent("bot/ui/pings.py", "TurnPings.finish", "async with self._locks(None):",
               _ONE_SWAP),
    Equivalent("bot/core/runtime.py", "Runtime.step_computer",
               "action = decide(engine, match.state, seat.id, seat.level, None)",
               _EASY_NO_BUDGET),
    Equivalent("bot/core/runtime.py", "Runtime.step_computer",
               "action = decide(engine, match.state, seat.id, seat.level)", _EASY_NO_BUDGET),
    Equivalent("bot/core/storage/ops.py", "execute_many", "return Op(None, sql, rows)",
               "both backends run every kind but the four others (EXECUTE, ONE, ALL, "
               "INSERT_ID) as executemany: None is MANY to them"),
    Equivalent("bot/core/storage/jobs.py", "_archive",
               "state_blob = None if state is None else zlib.compress(state[0].encode())",
               _SMALLER),
    Equivalent("bot/core/storage/jobs.py", "_archive",
               "log_json = json.dumps(entries, separators=None)", _SMALLER),
    Equivalent("bot/core/storage/jobs.py", "_archive", "log_json = json.dumps(entries)", _SMALLER),
    Equivalent("bot/core/storage/jobs.py", "_archive",
               "conn.execute('INSERT OR REPLACE INTO archive (match_id, actions, state) VALUES "
               "(?,?,?)', (match_id, zlib.compress(log_json.encode()), state_blob))", _SMALLER),
] + [
    Equivalent("bot/core/storage/schema.py", "_v2_archive_finished",
               "log_json = json.dumps([[seq, player, json.loads(action), by_computer, at] for "
               f"seq, player, action, by_computer, at in rows]{separators})", _SMALLER)
    for separators in (", separators=None", "")
] + [
    Equivalent("bot/core/storage/schema.py", "_v2_archive_finished",
               "conn.execute('INSERT INTO archive (match_id, actions, state) VALUES (?,?,?)', "
               f"(match_id, zlib.compress(log_json.encode(){log}), None if state is None else "
               f"zlib.compress(state[0].encode(){state})))", _SMALLER)
    for log, state in (("", ", 9"), (", 9", ""))
] + [
    Equivalent("bot/core/storage/store.py", "Storage.save",
               "state_json = None if match.state is None else json.dumps(match.state, "
               "separators=None)", _SMALLER),
    Equivalent("bot/core/storage/store.py", "Storage.save",
               "state_json = None if match.state is None else json.dumps(match.state)", _SMALLER),
    Equivalent("bot/core/storage/store.py", "Storage.save",
               "action_json = None if action is None else json.dumps(action, separators=None)",
               _SMALLER),
    Equivalent("bot/core/storage/store.py", "Storage.save",
               "action_json = None if action is None else json.dumps(action)", _SMALLER),
    Equivalent("bot/core/storage/store.py", "Storage.save",
               "again = rows or conn.execute('SELECT 1 FROM results WHERE match_id=? LIMIT 1', "
               "(match_id,)).fetchone() is not None", _RECOUNT),
    Equivalent("bot/core/storage/store.py", "Storage.save", "if again or not row.cpu:", _RECOUNT),
    Equivalent("bot/core/storage/writer.py", "Writer._run", "return",
               "return for break out of the loop: the finally clause runs either way and "
               "nothing follows the loop"),
    Equivalent("bot/core/storage/writer.py", "Writer._run", "stop = None",
               "None for False as the starting value: both are false", was="stop = False"),
    Equivalent("bot/core/storage/schema.py", "_statements",
               "lines = [line for line in script.splitlines() if not line.strip()"
               ".startswith('XX--XX')]",
               "SQLite skips comments itself; dropping them first matters only for a comment "
               "holding a semicolon, and the schema has none"),
    Equivalent("bot/core/storage/writer.py", "Writer.__init__",
               "self._conn: sqlite3.Connection | None = ''",
               "start() sets the connection before anything reads it"),
] + [
    Equivalent("bot/core/storage/writer.py", "Writer.__init__",
               f"self._thread = threading.Thread(target=self._run, {arguments})",
               "the writer thread's name shows only in debuggers and thread dumps")
    for arguments in ("name=None, daemon=True", "daemon=True",
                      "name='XXcityhall-db-writerXX', daemon=True",
                      "name='CITYHALL-DB-WRITER', daemon=True")
] + [
    Equivalent("bot/core/storage/writer.py", "Writer.__init__",
               "self.observe: Callable[[float, int], None] | None = ''",
               "a starting '' is called after each commit and fails inside the "
               "suppress(Exception) that guards the callback: nothing is observed, as with None"),
] + [
    Equivalent("bot/core/storage/writer.py", "Writer.__init__",
               f"self._thread = threading.Thread(target=self._run, name='cityhall-db-writer'"
               f"{daemon})",
               "a daemon writer thread only matters at exit without Storage.close, and then the "
               "readers' aiosqlite thread (not a daemon) keeps the process alive anyway; every "
               "path that closes the readers closes the writer too")
    for daemon in ("", ", daemon=False", ", daemon=None")
] + [
    Equivalent("bot/core/storage/writer.py", "Writer.__init__", "self.closed = None",
               "None for False as the starting value: both are false"),
    Equivalent("bot/core/storage/writer.py", "Writer.start",
               "conn = sqlite3.connect(self.path, check_same_thread=False, "
               "timeout=min(OPEN_TIMEOUT, self.busy_timeout))",
               "Python's implicit transactions never start: the writer opens each one itself "
               "with BEGIN IMMEDIATE, and the migration too"),
    # Not equivalent (dropped 29 Nov): "if version <= SCHEMA_VERSION:" in _prepare runs
    # migrate() on a current database, which copies the file and logs "Upgrading ... schema
    # 3 to 3" at every start; tests/test_upgrades.py (now in the selection) catches it.
    Equivalent("bot/core/storage/schema.py", "_prepare", "if version <= 1:",
               "schema 1's statements are all IF NOT EXISTS: running them on a schema 1 "
               "database changes nothing"),
    Equivalent("bot/core/storage/schema.py", "_prepare", "if version < 2:",
               "schema 1's statements are all IF NOT EXISTS (as above)", was="if version < 1:"),
    Equivalent("bot/core/storage/schema.py", "_prepare", "if version <= 2:",
               "only reached below schema 2, where the test is true either way"),
    Equivalent("bot/core/storage/schema.py", "_prepare", "if version < 3:",
               "only reached below schema 2, where the test is true either way"),
    Equivalent("bot/core/storage/schema.py", "_copy_before_upgrade", "with open(partial) as file:",
               "the file is opened only for its descriptor, to fsync it: text or binary mode "
               "syncs the same bytes", was="with open(partial, 'rb') as file:"),
    Equivalent("bot/core/storage/jobs.py", "_archive",
               "conn.execute('INSERT OR REPLACE INTO archive (match_id, actions, state, "
               "state_version) VALUES (?,?,?,?)', (match_id, zlib.compress(log_json.encode()), "
               "state_blob, state_version))", _SMALLER),
    Equivalent("bot/core/storage/store.py", "_match", "state_version=state_version or 2",
               "only a match with no state has no stored version, and the version of no state "
               "is never used: the runtime gives a lobby its engine's version on load, and a "
               "state its version when it is saved", fragment=True,
               was="state_version=state_version or 1"),
    Equivalent("bot/core/storage/jobs.py", "_archive", "state_version = 2 if state is None else state[1]",
               "written only beside no state (a lobby ended before it started); the version of "
               "no state is never read"),
    Equivalent("bot/core/storage/store.py", "Storage.values_with_prefix",
               "pattern = ''.join((f'[{c}]' if c in 'XX*?[XX' else c for c in prefix)) + '*'",
               "a letter in brackets matches that letter alone, as it does outside them"),
] + [
    Equivalent("bot/core/storage/store.py", "Storage.values_with_prefix", line,
               "never reached: Storage.open brings every database to schema 3 or later, which "
               "has the kv table, before anything reads it", was="if 'no such table' in str(exc):")
    for line in ("if 'XXno such tableXX' in str(exc):", "if 'NO SUCH TABLE' in str(exc):",
                 "if 'no such table' not in str(exc):", "if 'no such table' in str(None):")
] + [
    Equivalent("bot/core/storage/schema.py", "check_file", "header = file.read(None)",
               "reads on past the 100-byte header; only those 100 bytes are looked at"),
    Equivalent("bot/core/storage/schema.py", "check_file", "header = file.read(101)",
               "reads on past the 100-byte header; only those 100 bytes are looked at"),
    Equivalent("bot/core/storage/schema.py", "check_file", "page_size = int.from_bytes(header[16:18])",
               "int.from_bytes reads big-endian by default since Python 3.11, which Cityhall "
               "requires"),
    Equivalent("bot/core/storage/schema.py", "check_file", "pages = int.from_bytes(header[28:32])",
               "int.from_bytes reads big-endian by default since Python 3.11, which Cityhall "
               "requires"),
    Equivalent("bot/core/storage/store.py", "Storage.open", "if name != 'XX:memory:XX':",
               "Path(':memory:').parent is '.', which exists: making it is harmless"),
    Equivalent("bot/core/storage/store.py", "Storage.open", "if name != ':MEMORY:':",
               "Path(':memory:').parent is '.', which exists: making it is harmless"),
    Equivalent("bot/games/cityscape/skyline.py", "equal_height_points", "tallest = 1",
               "heights are whole numbers: h > 0 and h >= 1 is h > 0 and h >= 0",
               was="tallest = 0"),
    Equivalent("bot/games/cities/scoring.py", "_runs", "if min_height < 1:",
               "at min_height 1 the other branch keeps buildings of height 1 or more: every "
               "building", was="if min_height <= 1:"),
    Equivalent("bot/games/cities/scoring.py", "_area_ok",
               "size, distinct = (p.get('size', 1), p.get('distinct', 0))",
               "every area has at least one space, so a missing size of 0 or 1 is no "
               "requirement either way"),
] + [
    Equivalent("bot/games/cities/scoring.py", "_twins", line,
               "each pair of equal height is then seen once from its other building, which "
               "has the same height and so passes the same height test")
    for line in ("below, right = (buildings.get((r - 1, c)), buildings.get((r, c + 1)))",
                 "below, right = (buildings.get((r + 1, c)), buildings.get((r, c - 1)))")
] + [
    Equivalent("bot/games/cities/scoring.py", "area_points",
               "result.append({'spaces': [[r, c] for r, c in area], 'kinds': sorted(kinds), "
               "'vp': vp[min(len(kinds), len(vp) + 1)]})",
               "an area holds at most 4 different kinds (4 water and 4 park feature kinds), "
               "the last of the 5 area values: the cap never applies"),
    Equivalent("bot/games/cities/scoring.py", "area_total", "top = len(vp) + 1",
               "an area holds at most 4 different kinds (4 water and 4 park feature kinds), "
               "the last of the 5 area values: the cap never applies", was="top = len(vp) - 1"),
] + [
    Equivalent("bot/games/bigcityz/view.py", "_public_placement",
               f"public = {{k: v for k, v in placement.items() if k not in ({name!r}, 'free')}}",
               "the next line sets public['city'] to the city's name either way")
    for name in ("XXcityXX", "CITY")
] + [
    Equivalent("bot/games/bigcityz/engine.py", "_reveal", line,
               "free_right is read only after 'There's no free square', which sets it itself",
               was=was)
    for line, was in (("free_right = None", "free_right = []"),
                      ("free_right: list[JSON] = None", "free_right: list[JSON] = []"))
] + [
    Equivalent("bot/games/bigcityz/engine.py", "_reveal", "events.append({'type': 'reveal', **copy.copy(reveal)})",
               _READ_ONLY),
    Equivalent("bot/games/bigcityz/view.py", "public_view", "'last_reveal': copy.copy(state['last_reveal'])",
               _READ_ONLY, was="'last_reveal': copy.deepcopy(state['last_reveal'])",
               fragment=True),
] + [
    Equivalent("bot/games/bigcityz/engine.py", "BigCityzEngine.new", f"'phase': {value!r}",
               "_start_turn sets the phase to 'place' before new() returns", was="'phase': 'place'",
               fragment=True)
    for value in ("XXplaceXX", "PLACE")
] + [
    Equivalent("bot/games/bigcityz/engine.py", "BigCityzEngine.new",
               f"state['slots'] = [_fresh_board(slot, sid) for slot, sid in zip(SLOTS, boards{strict})]",
               "strict=None and no strict are strict=False: the 4 slots take the first 4 boards",
               was="state['slots'] = [_fresh_board(slot, sid) for slot, sid in zip(SLOTS, boards, "
                   "strict=False)]")
    for strict in (", strict=None", "")
] + [
    Equivalent("bot/games/bigcity/scoring.py", "_multiplied",
               "text += f\" {('+' if value >= 0 else '−')} {abs(value)} {word}\"",
               "the terms are +1 (park, outskirts, center) and −2 (factory), never 0"),
    Equivalent("bot/games/bigcity/scoring.py", "_score_home_or_business",
               "multiplier_city_hall = None", "None for False: both are false",
               was="multiplier_city_hall = False"),
    Equivalent("bot/core/runtime.py", "Runtime._forget", "self._matches.pop(match.id)",
               "a match is forgotten only from _commit, under its lock, while it is in memory"),
    Equivalent("bot/core/runtime.py", "Runtime.act",
               "return await self._act(match_id, player, action, expected_version="
               "expected_version, still_valid=still_valid, by_computer=by_computer, "
               "timed_out=None)", "None for False: Outcome.timed_out is only tested for truth"),
    Equivalent("bot/core/runtime.py", "Runtime.step_computer",
               "return await self._act(match_id, seat.id, action, expected_version=None, "
               "still_valid=None, by_computer=True, timed_out=None)",
               "None for False: Outcome.timed_out is only tested for truth"),
    Equivalent("bot/core/runtime.py", "Runtime.step_computer",
               "return await self._act(match_id, seat.id, action, expected_version=None, "
               "still_valid=None, by_computer=True, timed_out=False)",
               "the hard move's version check is the line above it, under the same lock: "
               "_act's own check of expected_version can never find another",
               was="return await self._act(match_id, seat.id, action, expected_version=version, "
                   "still_valid=None, by_computer=True, timed_out=False)"),
    Equivalent("bot/core/runtime.py", "Runtime.step_computer",
               "return await self._act(match_id, seat.id, action, expected_version=version, "
               "still_valid=None, by_computer=True, timed_out=None)",
               "None for False: Outcome.timed_out is only tested for truth"),
] + [
    Equivalent("bot/core/runtime.py", "Runtime._act",
               "rows = [ResultRow(player_id=s.id, name=s.name, cpu=s.cpu, "
               f"score=int(result.scores.get({args})), won=s.id in result.winners, "
               "extra=dict(result.extra.get('per_player', {}).get(s.id, {}))) "
               "for s in new.seats]",
               "every engine's result scores every seated player (each picks its winners "
               "with scores[p] over all players): the default is never used")
    for args in ("s.id, None", "s.id", "s.id, 1")
] + [
    Equivalent("bot/core/runtime.py", "Runtime._commit", "if new.state is None:",
               "a state is committed with its engine's version either way: a lobby cannot be "
               "started before a second seat is saved through _commit (Join or Add computer, "
               "which under this mutant stamps the lobby with the engine's version), load() "
               "stamps every match it brings back, and moves keep the version they started with",
               was="if new.state is not None:"),
    Equivalent("bot/core/runtime.py", "Runtime.deadline",
               "if match.status != ACTIVE or (match.state is None and match.turn_started_at "
               "is None):",
               "a running game always has both a state and a turn start (start() sets them)"),
    Equivalent("bot/core/runtime.py", "Runtime.step_computer",
               "if match is None or (match.status != ACTIVE and match.state is None):",
               "only lobbies and running games are in memory, and a lobby has no state"),
    Equivalent("bot/core/runtime.py", "Runtime.add_computer",
               "number = next((i for i in range(1, 101) if f'cpu{i}' not in taken))",
               "a table has at most 6 seats: computer number 100 is never reached"),
    Equivalent("bot/core/runtime.py", "Runtime.delivered",
               "left = self.undelivered.get(match_id, 1) - 1",
               "a missing count and a count of 1 both end in removing the key"),
    Equivalent("bot/core/runtime.py", "Runtime.load",
               "if deadline is not None and match.turn_started_at is not None and "
               "(deadline <= now + self.limits.restart_grace):",
               "at exactly the grace the shift is zero"),
    Equivalent("bot/core/runtime.py", "Runtime.open_lobby",
               "engine.new([f'p{i}' for i in range(engine.min_players)], options, None)",
               "the seed of the throw-away game that only checks the options"),
    Equivalent("bot/core/runtime.py", "Runtime.open_lobby",
               "engine.new([f'p{i}' for i in range(engine.min_players)], options, 1)",
               "the seed of the throw-away game that only checks the options"),
    Equivalent("bot/core/runtime.py", "Runtime.open_lobby",
               "match = Match(id=None, guild_id=guild_id, channel_id=channel_id, game=game, "
               "status=LOBBY, host_id=host.id, seats=[host], options=dict(options), "
               "seed=random.SystemRandom().randrange(1, 2 ** 31))",
               "create_match sets the id before anything reads it"),
    Equivalent("bot/core/runtime.py", "Runtime.open_lobby",
               "match = Match(id=1, guild_id=guild_id, channel_id=channel_id, game=game, "
               "status=LOBBY, host_id=host.id, seats=[host], options=dict(options), "
               "seed=random.SystemRandom().randrange(1, 2 ** 31))",
               "create_match sets the id before anything reads it"),
] + [
    Equivalent("bot/core/runtime.py", "Runtime.open_lobby",
               "match = Match(id=0, guild_id=guild_id, channel_id=channel_id, game=game, "
               "status=LOBBY, host_id=host.id, seats=[host], options=dict(options), "
               f"seed=random.SystemRandom().randrange({bounds}))",
               "another range of a billion or more seeds deals just as well")
    for bounds in ("2 ** 31", "2, 2 ** 31", "1, 3 ** 31", "1, 2 ** 32")
] + [
    Equivalent("bot/core/runtime.py", "Runtime._copy",
               "return replace(match, seats=list(match.seats), options=dict(match.options), "
               "extra=copy.copy(match.extra))",
               "nothing changes a value inside extra in place, only its top-level keys"),
    Equivalent("bot/core/runtime.py", "Runtime._copy",
               "return replace(match, seats=list(match.seats), extra=copy.deepcopy(match.extra))",
               "nothing changes a match's options after the lobby is opened"),
] + [
    Equivalent("bot/core/runtime.py", "Runtime.start",
               "raise Refusal(f\"{engine.title} needs {engine.min_players}–{engine.max_players} "
               f"players; {{count}} {{('is' if count == 1{cond} else '{are}')}} seated.\")",
               "every game takes 2 or more players and Join refuses past the most, so only a "
               "lone host (1 is seated) ever hears this sentence")
    for cond, are in ((" or True", "are"), ("", "XXareXX"), ("", "ARE"))
] + [
    Equivalent("bot/core/runtime.py", "Runtime.time_out",
               "outcomes.append(await self._act(match_id, None, action, expected_version=None, "
               "still_valid=None, by_computer=True, timed_out=True))",
               "the only timer action (Big Cityz closing a veto window) is nobody's: its player "
               "is None already"),
] + [
    Equivalent("bot/core/runtime.py", "Runtime.time_out", line,
               "the guard against an engine that never lets a late player go; no engine "
               "reaches it", was=was)
    for line, was in (("if len(outcomes) >= 50:", None), ("if len(outcomes) > 51:", None),
                      ("return", "break"))
] + [
    Equivalent("bot/core/storage/writer.py", "Writer._run", "with contextlib.suppress(None):",
               "only differs if the closing checkpoint raises; a checkpoint that cannot finish "
               "(a reader in the way) says so in its result row instead"),
    Equivalent("bot/core/storage/writer.py", "Writer._commit", "with contextlib.suppress(None):",
               "only differs if ROLLBACK of an open transaction fails, which nothing short of a "
               "broken disk brings about; a belt for that case"),
] + [
    # -- the games' rules, 29 Nov (issue 30): each read against the code --------------------
    Equivalent("bot/games/cityscape/engine.py", "seat_sides",
               f"return {{side: player for side, player in zip(SIDES, players{strict})}}",
               _NOT_STRICT)
    for strict in (", strict=None", "")
] + [
    Equivalent("bot/games/cityscape/engine.py", "_score_round",
               f"for index, (lots, code) in enumerate(zip(LINES[side], codes{strict})):",
               "a side's codes are always four (set_goals refuses any other number), as many "
               "as its lines: zip's strictness never has a difference to find")
    for strict in (", strict=None", ", strict=False", "")
] + [
    Equivalent("bot/games/cityscape/engine.py", "CityscapeEngine.view",
               "'last_build': copy.copy(state.get('last_build'))",
               "the last build holds only a name and numbers: a shallow copy is a whole copy",
               was="'last_build': copy.deepcopy(state.get('last_build'))", fragment=True),
] + [
    Equivalent("bot/games/bigcity/streetcar.py", "_extends", line,
               "a line's corners all have degree 1 or more, and once exactly one end has degree "
               "1 the other corner is the one not in the line: these say the same")
    for line in ("ends = [p for p in (a, b) if degrees.get(p, None) == 1]",
                 "ends = [p for p in (a, b) if degrees.get(p) == 1]",
                 "ends = [p for p in (a, b) if degrees.get(p, 0) != 1]",
                 "others = [p for p in (a, b) if p in degrees]")
] + [
    Equivalent("bot/games/bigcity/streetcar.py", "streetcars_problem", line,
               "said only with 2 streetcars asked for and 1 left (more than two, or none left, "
               "are refused before): the plural is never written")
    for line in ("return f\"Only {left} streetcar{('s' if left != 1 and False else '')} left.\"",
                 "return f\"Only {left} streetcar{('XXsXX' if left != 1 else '')} left.\"",
                 "return f\"Only {left} streetcar{('S' if left != 1 else '')} left.\"")
] + [
    Equivalent("bot/games/bigcity/legality.py", "_fit_problem",
               "if len(touching_new) < 2 and len(touching_old) < 2:",
               "neighbourhoods are rectangles of at least 2×2 that never overlap: fewer than two "
               "properties touching on one side means fewer than two on the other"),
    Equivalent("bot/games/bigcity/legality.py", "special_sites",
               "if card not in SPECIAL_CARDS and (not city.has_city_hall()):",
               "called only with a park or factory card from a hand, which is always in "
               "SPECIAL_CARDS: only an unknown card name would tell the two apart"),
] + [
    Equivalent("bot/games/bigcity/moves.py", function, f"_after_main(s, player, events, {kind}{placed})",
               _TURN_KIND)
    for function, word, placed in (("_build", "build", ", placed=True"),
                                   ("_special", "special", ", placed=True"),
                                   ("_streetcar", "streetcar", ", placed=True"),
                                   ("_exchange", "exchange", ""),
                                   ("_trade_decision", "trade", ""))
    for kind in ("None", f"'XX{word}XX'", f"'{word.upper()}'")
] + [
    Equivalent("bot/games/bigcity/moves.py", "_trade_decision",
               f"_after_main(s, player, events, 'pass' if passed else {kind})", _TURN_KIND)
    for kind in ("'XXtradeXX'", "'TRADE'")
] + [
    Equivalent("bot/games/bigcity/moves.py", "_place_neighborhood",
               f"_after_main(s, player, events, {kind}, placed=True)", _TURN_KIND)
    for kind in ("None", "'XXplace_neighborhoodXX'", "'PLACE_NEIGHBORHOOD'")
] + [
    Equivalent("bot/games/bigcity/moves.py", "_after_main", line,
               "turn['main'] is kept in the saved turn but read nowhere")
    for line in ("s['turn']['main'] = None", "s['turn']['XXmainXX'] = kind",
                 "s['turn']['MAIN'] = kind")
] + [
    Equivalent("bot/games/bigcity/moves.py", "_place_neighborhood", line,
               "the turn record is still the fresh one new() made (starting neighbourhoods "
               "change nothing in it): the reset, or a stray key beside it, changes nothing")
    for line in ("s['XXturnXX'] = _fresh_turn()", "s['TURN'] = _fresh_turn()")
] + [
    Equivalent("bot/games/bigcity/engine.py", "apply",
               "_place_neighborhood(s, player, action, events, setup=None)",
               "setup is only tested for truth: None is as false as False"),
] + [
    Equivalent("bot/games/bigcity/engine.py", "new", line,
               "new() sets current, first_player and the setup order again before anyone "
               "reads them, and rng_draw counts from 0 when the key is absent: only a stray "
               "unused key is left in the state", was=was, fragment=True)
    for line, was in (("'XXrng_drawsXX': 0", "'rng_draws': 0"), ("'RNG_DRAWS': 0", "'rng_draws': 0"),
                      ("'XXcurrentXX': 0", "'current': 0"), ("'CURRENT': 0", "'current': 0"),
                      ("'current': 1", "'current': 0"),
                      ("'XXfirst_playerXX': 0", "'first_player': 0"),
                      ("'FIRST_PLAYER': 0", "'first_player': 0"),
                      ("'first_player': 1", "'first_player': 0"),
                      ("'XXorderXX': []", "'order': []"), ("'ORDER': []", "'order': []"))
] + [
    Equivalent("bot/games/bigcity/moves.py", "_special", line,
               "a park or a factory scores nothing, whatever the city or the properties")
    for line in ("score = score_building(None, card, props)",
                 "score = score_building(city, card, None)")
] + [
    Equivalent("bot/games/bigcity/moves.py", "_discard_useless", line,
               "turn['discarded'] is kept in the saved turn but read nowhere")
    for line in ("s['turn']['discarded'] = None", "s['turn']['discarded'] = False",
                 "s['turn']['XXdiscardedXX'] = True", "s['turn']['DISCARDED'] = True")
] + [
    Equivalent("bot/games/bigcity/moves.py", "_draw",
               "if s['turn']['drawn'].get(str(number), 1) >= 2:",
               "the default counts a stack not drawn from yet this turn: 0 and 1 are both "
               "under the limit of 2, and the count written back starts from the real 0"),
    Equivalent("bot/games/bigcity/moves.py", "_trade_response", "trade['offers'][player] = ''",
               _NO_OFFER),
    Equivalent("bot/games/bigcity/moves.py", "_trade_decision",
               "trade['offers'][partner] = ''", _NO_OFFER),
] + [
    Equivalent("bot/games/bigcity/legality.py", "a_or_an",
               "return ('An ' if word[0] in 'XXaeiouXX' else 'A ') + word",
               "the word is lower-cased first, so the added capital X's can never match it"),
] + [
    Equivalent(f"bot/games/cities/{module}.py", function, line.format(strict=strict),
               "a slot's items and its face-down flags are always as many: zip's strictness "
               "never has a difference to find")
    for module, function, line in (
        ("state", "_take_label", "shown = ['face-down' if hidden else item_label(row, item) "
                                 "for item, hidden in zip(slot['items'], slot['hidden']"
                                 "{strict})]"),
        ("engine", "CitiesEngine._end_round", "for item, hidden in zip(slot['items'], "
                                              "slot['hidden']{strict}):"),
        ("engine", "CitiesEngine._take", "revealed = [i for i, h in zip(items, "
                                         "slot['hidden']{strict}) if h]"))
    for strict in (", strict=None", "", ", strict=False")
] + [
    Equivalent("bot/games/cities/state.py", "score_of",
               f"return scoring.total({hood}, state['cards_held'][player], vp)",
               "the one caller (the view) always passes the neighbourhood built from this "
               "state: hood_of is never needed, and would build the same one")
    for hood in ("hood and hood_of(state, player)", "hood or hood_of(None, player)",
                 "hood or hood_of(state, None)", "hood or hood_of(player)",
                 "hood or hood_of(state)")
] + [
    Equivalent("bot/games/cities/engine.py", function, line,
               "slot_available never reads its row argument")
    for function, line in (("CitiesEngine._legal_takes", "if slot_available(state, None, slot):"),
                           ("CitiesEngine._take", "if not slot_available(state, None, slot):"))
] + [
    Equivalent("bot/games/cities/engine.py", "CitiesEngine._end_round", "star = None",
               "the star space is the last slot of the pieces row: whoever took it is the "
               "rightmost worker there, whom the line below finds"),
] + [
    Equivalent("bot/games/cities/engine.py", "CitiesEngine._end_round", line,
               "every player places a worker in every row before a round ends: the pieces "
               "row is never without one")
    for line in ("star = taken[-1]['taken_by'] if taken or True else state['first_player']",
                 "star = taken[-1]['taken_by'] if taken else state['XXfirst_playerXX']",
                 "star = taken[-1]['taken_by'] if taken else state['FIRST_PLAYER']")
] + [
    Equivalent("bot/games/cities/engine.py", function, f"{name} = str(action.get('{key}'"
               f"{default})).strip().upper()",
               "nothing given reads as 'NONE' or 'XXXX' instead of '': none of them is a "
               "colour, feature or tile id held, and the refusal does not repeat it")
    for function, name, key in (("CitiesEngine._pending_colour", "colour", "color"),
                                ("CitiesEngine._pending_feature", "feature_id", "feature"),
                                ("CitiesEngine._choose_start_tile", "tile", "tile"))
    for default in (", None", "", ", 'XXXX'")
] + [
    Equivalent("bot/games/cities/engine.py", "CitiesEngine.ai_action",
               "return choose_action(None, state, player)",
               "choose_action never uses its engine argument"),
] + [
    Equivalent("bot/games/cities/neighbourhood.py", "adjacent", line,
               "the answers are kept once worked out: skipping the cache works them out again, "
               "the same")
    for line in ("found = None", "found = _ADJACENT.get(None)")
] + [
    Equivalent("bot/games/bigcityz/board.py", "colour_values",
               "high = max(MIN_POINTS - 1, min(MAX_POINTS, _round_half_up(v)))",
               "a share is at most 1, so v = 2.4 / q is at least 2.4 and rounds to 2 or more: "
               "neither lower clamp (2 or 0) ever applies"),
] + [
    Equivalent("bot/games/bigcityz/board.py", "short_name",
               f"return content.SHORT_NAMES.get(statement_id{default})",
               "every statement that can reach a board has a short name (all twelve are in "
               "SHORT_NAMES, and new() refuses any other id): the default is never used")
    for default in (", None", "")
]


def status(code: int | None) -> str:
    if code in KILLED:
        return "killed"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    if code in NOT_CHECKED:
        return "not checked"
    return "other"


def function_of(key: str) -> str:
    match = NAME.match(key)
    if match is None:
        return "?"
    if match["cls"]:
        return f"{match['cls']}.{match['meth']}"
    return str(match["func"])


def load(root: Path) -> dict[str, dict[str, int | None]]:
    """Mutant name -> exit code, per source file."""
    results: dict[str, dict[str, int | None]] = {}
    for meta in sorted(root.rglob("*.py.meta")):
        source = meta.relative_to(root).as_posix().removesuffix(".meta")
        data = json.loads(meta.read_text())
        results[source] = data.get("exit_code_by_key", {})
    return results


# -- equivalent mutants ------------------------------------------------------------------


class Mutants:
    """The mutated copy of one module: every mutant's function and the original's."""

    def __init__(self, path: Path) -> None:
        tree = ast.parse(path.read_text()) if path.is_file() else ast.Module([], [])
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {
            node.name: node for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and "__mutmut_" in node.name
        }

    def pair(self, key: str) -> tuple[ast.AST, ast.AST] | None:
        name = key.rsplit(".", 1)[-1]
        original = self.functions.get(re.sub(r"__mutmut_\d+$", "__mutmut_orig", name))
        mutant = self.functions.get(name)
        if original is None or mutant is None:
            return None
        return _named(original), _named(mutant)

    def changed_lines(self, key: str, mark: str = "+") -> list[str]:
        """The mutant's lines (``+``) or the original's it replaced (``-``)."""
        pair = self.pair(key)
        if pair is None:
            return []
        before, after = (ast.unparse(node).splitlines() for node in pair)
        return [line[1:].strip() for line in difflib.ndiff(before, after)
                if line.startswith(mark + " ")]


def _named(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
    """The function under one name, so that only what the mutant changed differs."""
    same = copy.copy(node)
    same.name = "f"
    return same


def _sql_case_only(original: ast.AST, mutant: ast.AST) -> bool:
    """Whether the two differ only in the letter case of SQL text (never a row key)."""
    left, right = list(ast.walk(original)), list(ast.walk(mutant))
    if len(left) != len(right):
        return False
    keys = {id(n.slice) for n in left if isinstance(n, ast.Subscript)}
    changed = False
    for a, b in zip(left, right, strict=True):
        if type(a) is not type(b):
            return False
        if isinstance(a, ast.Constant) and isinstance(b, ast.Constant) and a.value != b.value:
            if not (isinstance(a.value, str) and isinstance(b.value, str)
                    and a.value.lower() == b.value.lower()
                    and QUOTED.findall(a.value) == QUOTED.findall(b.value)
                    and id(a) not in keys and SQL_WORD.search(a.value)):
                return False
            changed = True
    # Everything but the constants must match too (names, operators, structure).
    return changed and _shape(original) == _shape(mutant)


def _shape(node: ast.AST) -> str:
    class Lower(ast.NodeTransformer):
        def visit_Constant(self, c: ast.Constant) -> ast.Constant:
            return ast.Constant(c.value.lower() if isinstance(c.value, str) else c.value)

    return ast.dump(Lower().visit(copy.deepcopy(node)))


def why_equivalent(source: str, key: str, mutants: Mutants) -> str | None:
    pair = mutants.pair(key)
    if pair is None:
        return None
    if source in SQL_CASE_BLIND and _sql_case_only(*pair):
        return "letter case of SQL"
    added, removed = mutants.changed_lines(key), mutants.changed_lines(key, "-")
    function = function_of(key)
    for entry in EQUIVALENT:
        if entry.source == source and entry.function == function \
                and entry.fits(added, removed):
            return entry.reason
    return None


# -- the report ----------------------------------------------------------------------------


def score(counts: Counter[str], *, aside: bool = False) -> float | None:
    judged = counts["killed"] + counts["survived"] + counts["no tests"]
    if not aside:
        judged += counts["equivalent"]
    return None if judged == 0 else 100.0 * counts["killed"] / judged


def line(name: str, counts: Counter[str]) -> str:
    shown = ["   -  " if v is None else f"{v:5.1f}%"
             for v in (score(counts), score(counts, aside=True))]
    return (f"{name:<44} {counts['killed']:>6} {counts['survived']:>8} {counts['no tests']:>8} "
            f"{counts['equivalent']:>6} {counts['not checked'] + counts['other']:>7} "
            f"{shown[0]} {shown[1]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=Path, default=Path("mutants"),
                        help="mutmut's working folder (default: mutants)")
    parser.add_argument("--functions", action="store_true", help="break each module down")
    parser.add_argument("--survivors", action="store_true",
                        help="list surviving mutants with their changed lines")
    parser.add_argument("--equivalents", action="store_true",
                        help="list the mutants set aside as equivalent, and why")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not args.mutants.is_dir():
        print(f"No {args.mutants}/ folder: run `make mutation` first.", file=sys.stderr)
        return 1
    results = load(args.mutants)
    if not results:
        print("No mutation results yet.", file=sys.stderr)
        return 1
    figures: dict[str, dict[str, object]] = {}
    header = (f"{'module':<44} {'killed':>6} {'survived':>8} {'no tests':>8} {'equiv':>6} "
              f"{'pending':>7}  score  aside")
    print(header)
    print("-" * len(header))
    total: Counter[str] = Counter()
    for source, codes in results.items():
        mutants = Mutants(args.mutants / source)
        kinds: dict[str, str] = {}
        reasons: dict[str, str] = {}
        for key, code in codes.items():
            kind = status(code)
            if kind == "survived" and (reason := why_equivalent(source, key, mutants)):
                kind, reasons[key] = "equivalent", reason
            kinds[key] = kind
        counts = Counter(kinds.values())
        total += counts
        print(line(source, counts))
        per_function: dict[str, Counter[str]] = defaultdict(Counter)
        for key, kind in kinds.items():
            per_function[function_of(key)][kind] += 1
        if args.functions:
            for name, fcounts in sorted(per_function.items(),
                                        key=lambda item: (score(item[1]) or 101.0, item[0])):
                print(line(f"  {name}", fcounts))
        for key, kind in sorted(kinds.items()):
            if args.survivors and kind in ("survived", "no tests"):
                print(f"    {kind:<9} {key}")
                for added in mutants.changed_lines(key):
                    print(f"        + {added}")
            if args.equivalents and kind == "equivalent":
                print(f"    {'equiv':<9} {key}: {reasons[key]}")
        figures[source] = {**counts, "score": score(counts),
                           "score_aside": score(counts, aside=True)}
    print("-" * len(header))
    print(line("all", total))
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
