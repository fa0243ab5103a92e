"""Which Discord shards this process owns, and so which servers' matches it drives.

Discord routes a server's events to shard ``(guild_id >> 22) % shard_count``; a match lives
in one server, so it belongs to that shard, and only the process holding the shard's lease
(bot/core/lease.py) restores it, runs its timers and computer players and redraws its table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Shards:
    """``count`` shards in all, of which this process owns ``ids`` (sorted, distinct)."""

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or any(not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shard ids {list(self.ids)} do not fit {self.count} shard(s)")

    @classmethod
    def of(cls, count: int, ids: Iterable[int]) -> Shards:
        return cls(count, tuple(sorted(set(ids))))

    @property
    def everything(self) -> bool:
        """Every shard is this process's: nothing needs filtering."""
        return len(self.ids) == self.count

    def shard_of(self, guild_id: int) -> int:
        return (guild_id >> 22) % self.count

    def owns(self, guild_id: int) -> bool:
        return self.shard_of(guild_id) in self.ids

    def sql(self, column: str = "guild_id") -> str:
        """A WHERE condition (SQLite and PostgreSQL alike) true for this process's servers.
        The numbers are written into the text: they are validated integers, and a literal
        lets the planner fold them."""
        ids = ", ".join(str(i) for i in self.ids)
        return f"(({column} >> 22) % {self.count}) IN ({ids})"

    def label(self) -> str:
        """How log sentences name them: "shards 0, 1 of 4"."""
        word = "shard" if len(self.ids) == 1 else "shards"
        return f"{word} {', '.join(str(i) for i in self.ids)} of {self.count}"
