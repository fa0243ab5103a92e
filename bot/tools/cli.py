"""The ``loadtest`` subcommand's options; kept light so ``python -m bot run`` imports
nothing of the load test itself."""

from __future__ import annotations

import argparse


def _rates(text: str) -> list[float]:
    try:
        rates = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"rates are numbers separated by commas, not {text!r}") from None
    if any(r <= 0 for r in rates):
        raise argparse.ArgumentTypeError("rates must be above 0")
    return rates


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--show", metavar="REPORT.json", default=None, nargs="+",
                        help="print the table of a saved --json report and exit; of several, "
                             "their figures side by side (e.g. SQLite and PostgreSQL runs)")
    parser.add_argument("--matches", type=int, default=1000,
                        help="unfinished matches to set up (default 1000)")
    parser.add_argument("--per-guild", type=int, default=100,
                        help="matches (channels) per guild, at most (default 100)")
    parser.add_argument("--channels", type=int, default=200,
                        help="channels clicked in during sustained load (default 200)")
    parser.add_argument("--rates", type=_rates, default=[35.0, 100.0],
                        help="clicks per second of each sustained phase (default 35,100)")
    parser.add_argument("--duration", type=float, default=60.0,
                        help="seconds of each sustained phase (default 60)")
    parser.add_argument("--burst", type=int, default=200, help="clicks at one instant (0: skip)")
    parser.add_argument("--soak", type=float, default=1200.0,
                        help="seconds of the memory soak (default 1200: 20 minutes; 0: skip)")
    parser.add_argument("--soak-rate", type=float, default=35.0, help="clicks per second in the soak")
    parser.add_argument("--sample-every", type=float, default=5.0,
                        help="seconds between memory samples in the soak")
    parser.add_argument("--restore-spread", type=float, default=0.2,
                        help="seconds over which the first click on every match is sent after "
                             "the restart's READY (default 0.2: a crowd)")
    parser.add_argument("--restore-retry", type=float, default=5.0,
                        help="seconds before a match that did not answer is clicked again")
    parser.add_argument("--growth-games", type=int, default=8,
                        help="games of each game played to the end for bytes per game "
                             "(default 8; light profile: Cityscape games; 0: skip)")
    parser.add_argument("--growth-kinds", type=lambda t: [g for g in t.split(",") if g],
                        default=None, help="the games played to the end for bytes per game, "
                        "comma-separated (default: every game of --games)")
    parser.add_argument("--growth-seconds", type=float, default=600.0,
                        help="seconds a game's growth games may take (default 600)")
    parser.add_argument("--stats-games", type=int, default=10_000,
                        help="finished games seeded before start, for /stats (default 10000)")
    parser.add_argument("--stats-calls", type=int, default=100,
                        help="/stats calls timed, one per channel of the first server, so the p95 is not just the second-worst of a few (0: skip)")
    parser.add_argument("--turn-seconds", type=float, default=3600.0,
                        help="the bot's TURN_SECONDS (long, so no timer fires meanwhile)")
    parser.add_argument("--workdir", default=None,
                        help="keep the database, bot logs and loop stats here (default: a temp dir)")
    parser.add_argument("--games", type=lambda t: [g for g in t.split(",") if g],
                        default=None,
                        help="games of the matches beyond the played channels, in turn "
                             "(default: every game)")
    parser.add_argument("--profile", choices=("mixed", "light"), default="mixed",
                        help="mixed (default): all four games in equal shares, 2-5 seats, "
                             "every kind of click, games played to the end; light: the old "
                             "workload, two people a table, only Cityscape played "
                             "(docs/loadtest-workload.md)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the players' choices")
    parser.add_argument("--database", default=None, metavar="URL",
                        help="where the bot keeps its data: sqlite (default: a file in the "
                             "work folder), pgserver (a throwaway PostgreSQL 16 from the "
                             "pgserver wheel), or an empty database's postgresql:// URL")
    parser.add_argument("--processes", type=int, default=1,
                        help="bot processes, each owning its own Discord shards (default 1; "
                             "more than one needs PostgreSQL)")
    parser.add_argument("--shards-per-process", type=int, default=2,
                        help="Discord shards each process owns when --processes is above 1 "
                             "(default 2)")


def run_from_args(args: argparse.Namespace) -> int:
    if args.show:
        import json
        from pathlib import Path

        from bot.tools.report import Report, side_by_side

        reports = [Report.from_json(json.loads(Path(f).read_text())) for f in args.show]
        print(reports[0].table() if len(reports) == 1 else side_by_side(reports))
        return 0
    from bot.tools.loadtest import Config, main
    from bot.tools.players import PREFIX

    if args.games is None:
        args.games = list(PREFIX)
    unknown = [g for g in args.games if g not in PREFIX]
    if unknown or not args.games:
        raise SystemExit(f"--games: unknown {unknown}; known: {', '.join(PREFIX)}")
    wrong = [g for g in args.growth_kinds or [] if g not in PREFIX]
    if wrong:
        raise SystemExit(f"--growth-kinds: unknown {wrong}; known: {', '.join(PREFIX)}")
    for name in ("matches", "per_guild", "channels"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least 1")
    database = args.database or "sqlite"
    postgres = database == "pgserver" or database.startswith(("postgresql://", "postgres://"))
    if database != "sqlite" and not postgres:
        raise SystemExit(f"--database: {database!r} is neither sqlite, pgserver nor a "
                         "postgresql:// URL")
    if args.processes < 1 or args.shards_per_process < 1:
        raise SystemExit("--processes and --shards-per-process must be at least 1")
    if args.processes > 1 and not postgres:
        raise SystemExit(f"--processes {args.processes} needs PostgreSQL (--database pgserver "
                         "or --database postgresql://...): several bot processes cannot "
                         "share one SQLite file, and the second would refuse to start.")
    config = Config(matches=args.matches, per_guild=args.per_guild, channels=args.channels,
                    rates=args.rates, duration=args.duration, burst=args.burst, soak=args.soak,
                    soak_rate=args.soak_rate, sample_every=args.sample_every,
                    restore_spread=args.restore_spread,
                    restore_retry=args.restore_retry, growth_games=args.growth_games,
                    growth_kinds=args.growth_kinds, growth_seconds=args.growth_seconds,
                    stats_games=args.stats_games, stats_calls=args.stats_calls,
                    turn_seconds=args.turn_seconds, workdir=args.workdir, seed=args.seed,
                    games=args.games, database=args.database, processes=args.processes,
                    shards_per_process=args.shards_per_process, profile=args.profile)
    return main(config, as_json=args.json)
