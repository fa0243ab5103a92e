"""The tests' throwaway PostgreSQL server: one per test session, one fresh database per
test. The server itself lives in bot/tools/pgserver.py, which the load test shares."""

from __future__ import annotations

from bot.tools.pgserver import PgServer, binaries

__all__ = ["PgServer", "binaries"]
