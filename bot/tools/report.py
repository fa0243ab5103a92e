"""The load test's figures: one row per measured value, with its target, as a table or JSON."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from bot.tools import procs
from bot.tools.players import Click

if TYPE_CHECKING:
    from bot.tools.loadconfig import Config

DISCORD_LIMIT_S = 3.0


@dataclass
class Figure:
    scenario: str
    figure: str
    value: float | int | str | None
    unit: str = ""
    target: str = ""
    ok: bool | None = None  # None: no target, or not measurable


class Report:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.figures: list[Figure] = []
        self.details: dict[str, Any] = {}
        self.machine = procs.machine()

    def add(self, scenario: str, figure: str, value: float | int | str | None, unit: str = "",
            target: str = "", ok: bool | None = None) -> None:
        if isinstance(value, float):
            value = round(value, 3 if abs(value) < 10 else 1)
        self.figures.append(Figure(scenario, figure, value, unit, target, ok))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        """A saved ``--json`` report, to print as a table again."""
        from bot.tools.loadconfig import Config

        known = set(Config.__dataclass_fields__)
        report = cls(Config(**{k: v for k, v in data.get("config", {}).items() if k in known}))
        report.machine = data["machine"]
        report.figures = [Figure(**f) for f in data["figures"]]
        report.details = data.get("details", {})
        return report

    def as_json(self) -> dict[str, Any]:
        return {"machine": self.machine, "config": asdict(self.config),
                "figures": [asdict(f) for f in self.figures], "details": self.details}

    def table(self) -> str:
        m = self.machine
        lines = [f"Cityhall load test · {m['date']} · {m['nproc']} CPUs ({m['cpu_model']}), "
                 f"{m['memory_mb'] / 1024:.1f} GB, Python {m['python']}, load average "
                 f"before {m['load_avg']}, after {m.get('load_avg_after', '?')} (other work on "
                 "the machine counts too)",
                 f"Database: {self.config.database or 'sqlite'}; bot processes: "
                 f"{self.config.processes}", ""]
        rows = [("scenario", "figure", "value", "target", "")]
        for f in self.figures:
            value = "—" if f.value is None else f"{f.value}{(' ' + f.unit) if f.unit else ''}"
            mark = {True: "ok", False: "MISSED", None: ""}[f.ok]
            rows.append((f.scenario, f.figure, value, f.target, mark))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for i, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row)).rstrip())
            if i == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines)


def side_by_side(reports: list[Report]) -> str:
    """Several saved runs' figures in one table, a column each, headed by the database and
    the number of bot processes (and the run's date): how docs/performance.md compares set-ups."""
    heads = [f"{r.config.database or 'sqlite'}, {r.config.processes} "
             f"process{'es' if r.config.processes > 1 else ''} ({r.machine.get('date', '?')})"
             for r in reports]
    keys: list[tuple[str, str]] = []
    values: list[dict[tuple[str, str], str]] = []
    for r in reports:
        mine: dict[tuple[str, str], str] = {}
        at = 0  # a figure only this run has goes after the one it followed in it
        for f in r.figures:
            key = (f.scenario, f.figure)
            if key not in keys:
                keys.insert(at, key)
            at = keys.index(key) + 1
            value = "—" if f.value is None else f"{f.value}{(' ' + f.unit) if f.unit else ''}"
            mine[key] = value + {True: "", False: " MISSED", None: ""}[f.ok]
        values.append(mine)
    targets = {(f.scenario, f.figure): f.target for r in reports for f in r.figures}
    rows = [("scenario", "figure", *heads, "target")]
    rows += [(s, fig, *(v.get((s, fig), "") for v in values), targets.get((s, fig), ""))
             for s, fig in keys]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def _pictures(clicks: list[Click]) -> dict[str, Any]:
    """Move -> board picture on screen, over the clicks that changed their table."""
    moves = [c for c in clicks if c.changed]
    shown = [c.picture_ms for c in moves if c.picture_ms is not None]
    within = sum(1 for x in shown if x <= DISCORD_LIMIT_S * 1000)
    return {"moves": len(moves), "pictures": len(shown),
            "picture_p50_ms": percentile(shown, 0.50), "picture_p95_ms": percentile(shown, 0.95),
            "picture_max_ms": max(shown) if shown else None,
            "picture_within_3s": within / len(shown) if shown else None,
            "refused": sum(1 for c in clicks if c.refused)}


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def per_game(report: Report, scenario: str, clicks: list[Click]) -> dict[str, Any]:
    """Every click figure per game: a row each for the answer, the picture and the counts."""
    out: dict[str, Any] = {}
    for game in sorted({c.game for c in clicks if c.game}):
        mine = [c for c in clicks if c.game == game]
        answered = [c.latency_ms for c in mine if c.latency_ms is not None]
        within = sum(1 for x in answered if x <= DISCORD_LIMIT_S * 1000)
        one = {"clicks": len(mine), "answered": len(answered),
               "p50_ms": percentile(answered, 0.50), "p95_ms": percentile(answered, 0.95),
               "within_3s": within / len(mine) if mine else None, **_pictures(mine)}
        # Which clicks' pictures came late (over Discord's 3 s), by kind: where to look.
        slow = [c for c in mine if c.changed and c.picture_ms is not None
                and c.picture_ms > DISCORD_LIMIT_S * 1000]
        one["late_picture_kinds"] = dict(Counter(c.kind for c in slow).most_common(8))
        # The first few, to say why: [kind, ms to the table's first change, ms to the picture,
        # s into the phase it was sent, the channel]: late pictures at one moment in many
        # channels point at the bot or the limits, one channel's again and again at its table.
        start = min((c.sent for c in clicks), default=0.0)
        one["late_pictures"] = [[c.kind, None if c.changed_ms is None else round(c.changed_ms),
                                 round(c.picture_ms or 0), round(c.sent - start, 1),
                                  c.message.channel_id if c.message is not None else None,
                                 c.context] for c in slow[:8]]
        out[game] = one
        report.add(scenario, f"  {game}: clicks / moves / refused",
                   f"{one['clicks']} / {one['moves']} / {one['refused']}")
        report.add(scenario, f"  {game}: answer p50 / p95", f"{_ms(one['p50_ms'])} / "
                   f"{_ms(one['p95_ms'])} ms")
        fraction = one["picture_within_3s"]
        report.add(scenario, f"  {game}: picture p50 / p95 / within 3 s",
                   f"{_ms(one['picture_p50_ms'])} / {_ms(one['picture_p95_ms'])} ms / "
                   + ("—" if fraction is None else f"{fraction * 100:.1f} %"))
    return out


def click_figures(report: Report, scenario: str, clicks: list[Click], *, p95_target: float | None,
                  seconds: float | None = None,
                  picture_target: float | None = None) -> dict[str, Any]:
    answered = [c.latency_ms for c in clicks if c.latency_ms is not None]
    within = [x for x in answered if x <= DISCORD_LIMIT_S * 1000]
    fraction = len(within) / len(clicks) if clicks else None
    stats: dict[str, Any] = {"clicks": len(clicks), "answered": len(answered),
             "unanswered": len(clicks) - len(answered),
             "errors": sum(1 for c in clicks if c.latency_ms is not None and not c.ok),
             "p50_ms": percentile(answered, 0.50), "p95_ms": percentile(answered, 0.95),
             "p99_ms": percentile(answered, 0.99), "max_ms": max(answered) if answered else None,
             "within_3s": fraction,
             "deferred": sum(1 for c in clicks if c.deferred)}
    report.add(scenario, "clicks sent", len(clicks))
    if seconds:
        report.add(scenario, "clicks per second achieved", len(clicks) / seconds, "/s")
    for name in ("p50", "p95", "p99", "max"):
        value = stats[f"{name}_ms"]
        target, ok = "", None
        if name == "p95" and p95_target is not None:
            target, ok = f"<= {p95_target:g} ms", (value is not None and value <= p95_target)
        report.add(scenario, f"click -> response {name}", value, "ms", target, ok)
    report.add(scenario, "answered within 3 s", None if fraction is None else fraction * 100, "%",
               "100 %", fraction == 1.0 if fraction is not None else None)
    report.add(scenario, "unanswered", stats["unanswered"], "", "0", stats["unanswered"] == 0)
    report.add(scenario, "answered 'something went wrong'", stats["errors"])
    if stats["deferred"]:
        # A deferred update, then the answer (a private picker after a click on the table,
        # or a slow click's answer): timed to that answer above.
        report.add(scenario, "answered after a deferred update", stats["deferred"])
    pictures = _pictures(clicks)
    stats.update(pictures)
    if pictures["moves"]:
        report.add(scenario, "moves (clicks that changed a table)", pictures["moves"])
        for name in ("p50", "p95", "max"):
            value = pictures[f"picture_{name}_ms"]
            target, ok = "", None
            if name == "p95" and picture_target is not None:
                target, ok = f"<= {picture_target:g} ms", (value is not None
                                                           and value <= picture_target)
            report.add(scenario, f"move -> board picture on screen {name}", value, "ms",
                       target, ok)
        fraction = pictures["picture_within_3s"]
        report.add(scenario, "board picture on screen within 3 s",
                   None if fraction is None else fraction * 100, "%",
                   "100 %" if picture_target is not None and picture_target <= 1000 else "",
                   None if fraction is None or picture_target is None or picture_target > 1000
                   else fraction == 1.0)
        report.add(scenario, "moves whose table changed without a new picture",
                   pictures["moves"] - pictures["pictures"])
    report.add(scenario, "refused clicks (a private word only, the table unchanged)",
               pictures["refused"])
    games = per_game(report, scenario, clicks)
    if games:
        stats["per_game"] = games
    return stats


