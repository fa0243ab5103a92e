"""Clicks that come too late to answer.

Discord accepts an interaction's answer for 3 seconds after the click; later it answers
404 "Unknown interaction" and has shown the player "This interaction failed" already. A bot
that is behind (a restart with hundreds of players clicking, an overloaded VPS) must not
spend its time on such clicks: each one would delay the next clicks past their own limit.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import discord

log = logging.getLogger(__name__)

ANSWER_WITHIN_S = 3.0
UNKNOWN_INTERACTION = 10062
DISCORD_EPOCH_MS = 1_420_070_400_000


def age_s(data: Any, now: float | None = None) -> float:
    """Seconds since the interaction was made, from its snowflake id (Discord's clock)."""
    try:
        made_ms = (int(data["id"]) >> 22) + DISCORD_EPOCH_MS
    except (KeyError, TypeError, ValueError):
        return 0.0
    return (time.time() if now is None else now) - made_ms / 1000


def expired(data: Any, now: float | None = None) -> bool:
    return age_s(data, now) > ANSWER_WITHIN_S


def too_late(exc: BaseException) -> bool:
    """Whether an answer failed because the interaction had expired."""
    return isinstance(exc, discord.NotFound) and exc.code == UNKNOWN_INTERACTION


class LateTally:
    """One log line per ``every`` seconds for clicks dropped as too late, not one per click:
    when they happen they happen by the hundred."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.count = 0
        self._since = 0
        self._logged_at = float("-inf")

    def note(self) -> None:
        self.count += 1
        self._since += 1
        now = time.monotonic()
        if now - self._logged_at >= self.every:
            log.warning("%d click(s) reached the bot after Discord's 3-second limit and were "
                        "dropped unanswered (the bot is overloaded, or the network is slow).",
                        self._since)
            self._since = 0
            self._logged_at = now
