"""Command line: ``python -m bot [run|sync|backup|migrate-db|simulate|replay|bench|arena|
ratings|forget|loadtest]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _snowflake(text: str) -> int:
    # ASCII digits only: int() would also take "１２" or "٣".
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"a server id is a number, not {text!r}")
    return int(text)


def _options(items: list[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for item in items:
        key, _, raw = item.partition("=")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Cityhall, board games on Discord.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the Discord bot (the default)")

    sync = sub.add_parser("sync", help="upload the slash commands now, or remove them (--clear)",
                          description="Upload Cityhall's slash commands to Discord, globally "
                                      "or to one server, or remove them. The bot syncs by "
                                      "itself at start when its commands changed.")
    sync.add_argument("--guild", type=_snowflake, default=None, metavar="ID",
                      help="one server's commands instead of the global ones")
    sync.add_argument("--clear", action="store_true",
                      help="remove the commands instead (e.g. global duplicates of the "
                           "DEV_GUILD_ID ones)")

    back = sub.add_parser("backup", help="copy the database consistently, also while the bot runs")
    back.add_argument("file", help="where to write the copy (refused if it exists)")
    back.add_argument("--force", action="store_true", help="replace FILE if it exists")
    back.add_argument("--database", default=None, metavar="PATH",
                      help="the database to copy (default: DATABASE_PATH, as `run` uses it)")

    move = sub.add_parser("migrate-db", help="copy the SQLite database into PostgreSQL",
                          description="Copy every table of Cityhall's SQLite database into an "
                                      "empty PostgreSQL database and check the row counts. "
                                      "Stop the bot first.")
    move.add_argument("--from", dest="source", required=True, metavar="sqlite:///FILE",
                      help="the SQLite database (read only; it is not changed)")
    move.add_argument("--to", dest="target", required=True, metavar="postgresql://...",
                      help="the PostgreSQL database (empty; its schema is created)")
    move.add_argument("--replace", action="store_true",
                      help="delete what the target holds first")

    sim = sub.add_parser("simulate", help="play computer players offline and save every board")
    sim.add_argument("game")
    sim.add_argument("--players", type=int, default=3)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--out", type=Path, default=None, help="folder for PNGs and summary.json")
    sim.add_argument("--option", action="append", default=[], metavar="KEY=JSON",
                     help="a game option, e.g. --option rounds=2")

    rep = sub.add_parser("replay", help="replay a JSON game description; prints the outcome")
    rep.add_argument("file", help="a JSON file, or - for standard input")

    bench = sub.add_parser("bench", help="measure render and click-to-response times")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions")

    arena = sub.add_parser("arena", help="computer players of chosen levels against each other",
                           description="Seat-rotated games between computer players of the "
                                       "given levels; win rates with 95 % confidence "
                                       "intervals, scores and time per move.")
    arena.add_argument("game")
    arena.add_argument("--players", type=int, default=2)
    arena.add_argument("--levels", default="hard,normal",
                       help="the seats' levels, comma-separated (easy, normal, hard); the "
                            "last one fills the remaining seats (default hard,normal)")
    arena.add_argument("--games", type=int, default=20)
    arena.add_argument("--seed", type=int, default=1)
    arena.add_argument("--iterations", type=int, default=0,
                       help="play-outs per hard move (default: each game's own)")
    arena.add_argument("--seconds", type=float, default=None,
                       help="wall-clock cap per hard move (default CPU_HARD_SECONDS or 0.9; "
                            "0: none)")
    arena.add_argument("--option", action="append", default=[], metavar="KEY=JSON",
                       help="a game option, e.g. --option rounds=2")
    arena.add_argument("--json", action="store_true", help="print one JSON object")

    rate = sub.add_parser("ratings", help="compute every rating again from the stored results",
                          description="Recompute every rating from the stored results, in the "
                                      "order the games finished, per server, game and season; "
                                      "say whether the stored ratings matched, and rewrite "
                                      "them.")
    rate.add_argument("--rebuild", action="store_true", required=True,
                      help="recompute and rewrite every rating")
    rate.add_argument("--database", default=None, metavar="PATH_OR_URL",
                      help="the database (default: DATABASE_URL, else DATABASE_PATH)")

    forget = sub.add_parser("forget", help="delete a member's data on their request",
                            description="Delete a member's results, totals, ratings and "
                                        "settings, and anonymise their seats in stored games. "
                                        "Refused while they sit in an unfinished game.")
    forget.add_argument("user_id", help="the member's Discord user id")
    forget.add_argument("--database", default=None, metavar="PATH_OR_URL",
                        help="the database (default: DATABASE_URL, else DATABASE_PATH)")

    load = sub.add_parser("loadtest", help="load-test the real bot against a fake Discord")
    from bot.tools.cli import add_arguments

    add_arguments(load)

    args = parser.parse_args(argv)
    command = args.command or "run"

    if command == "run":
        from bot.process import run

        return run()

    if command == "sync":
        from bot.tools.sync import main as sync_main

        return sync_main(args.guild, args.clear)

    if command == "backup":
        from bot.tools.backup import main as backup_main

        return backup_main(args.file, force=args.force, database=args.database)

    if command == "migrate-db":
        from bot.tools.migrate_db import main as migrate_main

        return migrate_main(args.source, args.target, replace=args.replace)

    if command == "simulate":
        from bot.games import GAMES
        from bot.tools.simulate import simulate

        if args.game not in GAMES:
            parser.error(f"unknown game {args.game!r}; known: {', '.join(sorted(GAMES))}")
        summary = simulate(args.game, args.players, args.seed, args.out, _options(args.option))
        short = {k: summary[k] for k in ("game", "players", "seed", "moves", "scores", "winners")}
        short["images"] = len(summary["images"])
        print(json.dumps(short))
        return 0

    if command == "arena":
        from bot.core.levels import Budget
        from bot.tools.arena import main as arena_main

        budget = Budget.from_env()
        if args.seconds is not None:
            budget = Budget(budget.iterations, args.seconds if args.seconds > 0 else None)
        if args.iterations:
            budget = Budget(args.iterations, budget.seconds)
        try:
            return arena_main(args.game, args.players, args.levels.split(","), args.games,
                              args.seed, as_json=args.json, budget=budget,
                              options=_options(args.option))
        except ValueError as exc:
            parser.error(str(exc))

    if command == "replay":
        from bot.tools.replay import ReplayError, replay

        try:
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
            spec = json.loads(text)
            print(json.dumps(replay(spec)))
        except (OSError, json.JSONDecodeError, ReplayError) as exc:
            print(json.dumps({"error": str(exc)}))
            return 2
        return 0

    if command == "bench":
        from bot.tools.bench import main as bench_main

        return bench_main(as_json=args.json, quick=args.quick)

    if command == "ratings":
        from bot.tools.ratings import main as ratings_main

        return ratings_main(database=args.database)

    if command == "forget":
        from bot.tools.forget import main as forget_main

        return forget_main(args.user_id, database=args.database)

    if command == "loadtest":
        from bot.tools.cli import run_from_args

        return run_from_args(args)

    parser.error(f"unknown command {command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
