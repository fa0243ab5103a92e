"""The optional Prometheus endpoint (METRICS_PORT): what one admin needs to see that the bot
is healthy. Interactions and how long they take, unfinished matches, pictures waiting to be
drawn, how long database commits take, and how often Discord answered 429.

Every bot has its own registry, so several bots in one process (the tests) never mix up
their numbers. Counting is always on (it is cheap); only serving needs METRICS_PORT.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

import aiohttp
from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from bot.app import CityhallBot

log = logging.getLogger("cityhall.metrics")

# An interaction must be answered within 3 s; the buckets resolve the range around it.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
# One commit is one fsync: milliseconds on a healthy disk, seconds on a failing one.
WRITE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)

INTERACTION_KINDS = {1: "ping", 2: "command", 3: "component", 4: "autocomplete", 5: "modal"}


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.interactions = Counter(
            "cityhall_interactions", "Interactions received from Discord, by kind",
            ["kind"], registry=self.registry)
        self.interaction_seconds = Histogram(
            "cityhall_interaction_seconds",
            "Time from an interaction's arrival until its handlers finished, by kind",
            ["kind"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.turned_away = Counter(
            "cityhall_interactions_turned_away",
            "Interactions answered 'restarting, try again' while the bot was stopping",
            registry=self.registry)
        self.expired = Counter(
            "cityhall_interactions_expired",
            "Interactions that reached the bot after Discord's 3-second limit to answer them "
            "(dropped unanswered: the bot was overloaded or the network slow)",
            registry=self.registry)
        self.database_write_seconds = Histogram(
            "cityhall_database_write_seconds",
            "Time of one database commit (one transaction holding one or more writes)",
            buckets=WRITE_BUCKETS, registry=self.registry)
        self.database_writes = Counter(
            "cityhall_database_writes", "Writes committed (moves, lobbies, table ids)",
            registry=self.registry)
        self.rate_limited = Counter(
            "cityhall_discord_rate_limited",
            "HTTP 429 answers from Discord, by scope (user, global, shared)",
            ["scope"], registry=self.registry)
        self.discord_requests = Counter(
            "cityhall_discord_requests", "HTTP requests to Discord's API, by status class",
            ["status"], registry=self.registry)
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    # -- what the bot reports --------------------------------------------------------------

    def interaction(self, kind_code: int) -> str:
        kind = INTERACTION_KINDS.get(kind_code, "other")
        self.interactions.labels(kind).inc()
        return kind

    def database_write(self, seconds: float, jobs: int) -> None:
        self.database_write_seconds.observe(seconds)
        self.database_writes.inc(jobs)

    def http_trace(self) -> aiohttp.TraceConfig:
        """Given to discord.py's HTTP session: every answer from Discord is counted here,
        429s with their scope (discord.py retries them itself and only logs a warning)."""
        trace = aiohttp.TraceConfig()

        async def on_end(session: aiohttp.ClientSession, context: Any,
                         params: aiohttp.TraceRequestEndParams) -> None:
            status = params.response.status
            self.discord_requests.labels(f"{status // 100}xx").inc()
            if status == 429:
                scope = params.response.headers.get("X-RateLimit-Scope", "user")
                self.rate_limited.labels(scope).inc()

        trace.on_request_end.append(on_end)
        return trace

    def watch(self, bot: CityhallBot) -> None:
        """Gauges read at each scrape: unfinished matches and the render queue."""
        self.registry.register(_BotGauges(bot))
        bot.storage.observe_writes(self.database_write)

    # -- serving ---------------------------------------------------------------------------

    def serve(self, host: str, port: int) -> int:
        """Start the endpoint (its own thread); returns the port it listens on."""
        self._server, self._thread = start_http_server(port, addr=host, registry=self.registry)
        bound = int(self._server.server_port)
        log.info("Metrics for Prometheus at http://%s:%d/metrics.",
                 f"[{host}]" if ":" in host else host, bound)
        return bound

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _BotGauges(Collector):
    def __init__(self, bot: CityhallBot) -> None:
        self.bot = bot

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from bot.render.pool import Priority

        matches = GaugeMetricFamily("cityhall_unfinished_matches",
                                    "Matches not finished yet, by status (lobby, active)",
                                    labels=["status"])
        counts = {"lobby": 0, "active": 0}
        runtime = getattr(self.bot, "runtime", None)
        for match in _read(lambda: runtime.unfinished() if runtime else [], []):
            counts[match.status] = counts.get(match.status, 0) + 1
        for status, count in sorted(counts.items()):
            matches.add_metric([status], count)
        yield matches
        queue = GaugeMetricFamily("cityhall_render_queue_depth",
                                  "Pictures waiting for a render worker, by priority",
                                  labels=["priority"])
        pictures = getattr(self.bot, "pictures", None)
        for priority in Priority:
            depth = 0 if pictures is None else _read(partial(pictures.queued, priority), 0)
            queue.add_metric([priority.name.lower()], depth)
        yield queue


def _read(read: Callable[[], Any], default: Any) -> Any:
    # Scrapes run in the endpoint's thread while the event loop changes these collections;
    # a read that meets a change is simply taken again.
    for _ in range(5):
        try:
            return read()
        except RuntimeError:
            continue
    return default
