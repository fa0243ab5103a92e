"""Per-module mutation scores from the results mutmut 3 left in ``mutants/``.

    python scripts/mutation_report.py                 # one line per mutated module
    python scripts/mutation_report.py --functions     # and per function, worst first
    python scripts/mutation_report.py --survivors     # and the surviving mutants' names

Score = killed / (killed + survived), where "killed" includes timeouts (a mutant that
makes the tests hang was caught). Mutants no selected test reaches ("no tests") are
listed apart and count as survived in the score: nothing would notice them either.
Run from the repository root after ``make mutation``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

# mutmut 3's exit codes (mutmut.stats.status_by_exit_code), grouped for a score.
KILLED = {1, 3, 24, -24, 36, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}
NOT_CHECKED = {None}

# "bot.core.runtime.xǁRuntimeǁ_act__mutmut_12" or "bot.core.storage.x__columns__mutmut_3"
NAME = re.compile(r"^(?P<module>.+?)\.x(?:ǁ(?P<cls>[^ǁ]+)ǁ(?P<meth>.+)|_(?P<func>.+))__mutmut_\d+$")


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


def score(counts: Counter[str]) -> float | None:
    judged = counts["killed"] + counts["survived"] + counts["no tests"]
    return None if judged == 0 else 100.0 * counts["killed"] / judged


def line(name: str, counts: Counter[str]) -> str:
    value = score(counts)
    shown = "   -  " if value is None else f"{value:5.1f}%"
    return (f"{name:<48} {counts['killed']:>6} {counts['survived']:>8} {counts['no tests']:>8} "
            f"{counts['not checked'] + counts['other']:>7} {shown}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=Path, default=Path("mutants"),
                        help="mutmut's working folder (default: mutants)")
    parser.add_argument("--functions", action="store_true", help="break each module down")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
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
    header = f"{'module':<48} {'killed':>6} {'survived':>8} {'no tests':>8} {'pending':>7}  score"
    print(header)
    print("-" * len(header))
    total: Counter[str] = Counter()
    for source, codes in results.items():
        counts = Counter(status(code) for code in codes.values())
        total += counts
        print(line(source, counts))
        per_function: dict[str, Counter[str]] = defaultdict(Counter)
        for key, code in codes.items():
            per_function[function_of(key)][status(code)] += 1
        if args.functions:
            for name, fcounts in sorted(per_function.items(),
                                        key=lambda item: (score(item[1]) or 101.0, item[0])):
                print(line(f"  {name}", fcounts))
        if args.survivors:
            for key, code in sorted(codes.items()):
                if status(code) in ("survived", "no tests"):
                    print(f"    {status(code):<9} {key}")
        figures[source] = {**counts, "score": score(counts)}
    print("-" * len(header))
    print(line("all", total))
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
