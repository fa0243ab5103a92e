"""Discord's rate limits and the faults a test injects, as the fake applies them.

Rate limits follow https://discord.com/developers/docs/topics/rate-limits:

* a global limit per bot token (50 requests per second) that interaction callbacks and the
  interaction webhook (follow-ups, ``@original``) are not bound by;
* per-route buckets, keyed by the route and its top-level resource (``channel_id``,
  ``guild_id``, ``webhook_id`` + token), each a fixed window that opens with its first
  request and resets ``per`` seconds later;
* ``X-RateLimit-*`` headers on every answer of a limited route, and a 429 with
  ``retry_after`` / ``global`` in the body (plus ``Retry-After`` and ``X-RateLimit-Scope``)
  for a request over a limit.

Discord documents the global figure but not the per-route ones (clients must read the
headers). The defaults below are the figures Discord's headers commonly report and that
client libraries document: 5 messages per 5 s per channel, 5 edits per 5 s per channel,
5 deletes per 1 s, 1 reaction per 0.25 s, 5 webhook calls per 2 s per webhook token.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .models import RecordedRequest

# (limit, per seconds)
Limit = tuple[int, float]

GLOBAL_LIMIT: Limit = (50, 1.0)
DEFAULT_LIMIT: Limit = (10, 1.0)
DEFAULT_BUCKET_LIMITS: dict[str, Limit] = {
    "create_message": (5, 5.0),
    "edit_message": (5, 5.0),
    "delete_message": (5, 1.0),
    "reaction": (1, 0.25),
    "typing": (5, 5.0),
    "create_thread": (5, 5.0),
    "edit_channel": (5, 5.0),
    "interaction_callback": (5, 5.0),
    "interaction_webhook": (5, 2.0),
    "commands": (5, 20.0),
}

# (method or "*", fake route template) -> bucket name. Routes not listed get a bucket of
# their own named "<METHOD> <template>" with DEFAULT_LIMIT.
_NAMED_ROUTES: dict[tuple[str, str], str] = {
    ("POST", "/channels/{channel_id}/messages"): "create_message",
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"): "edit_message",
    ("DELETE", "/channels/{channel_id}/messages/{message_id}"): "delete_message",
    ("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me"): "reaction",
    ("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me"): "reaction",
    ("POST", "/channels/{channel_id}/typing"): "typing",
    ("POST", "/channels/{channel_id}/threads"): "create_thread",
    ("POST", "/channels/{channel_id}/messages/{message_id}/threads"): "create_thread",
    ("PATCH", "/channels/{channel_id}"): "edit_channel",
    ("POST", "/interactions/{interaction_id}/{token}/callback"): "interaction_callback",
    ("PUT", "/applications/{application_id}/commands"): "commands",
    ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands"): "commands",
}

# Path parameters that make a resource "top-level" for bucketing, in Discord's order.
_MAJOR_PARAMS = ("channel_id", "guild_id", "webhook_id", "interaction_id", "token")

RATE_LIMITED_MESSAGE = "You are being rate limited."


def bucket_name(method: str, template: str) -> str:
    named = _NAMED_ROUTES.get((method, template))
    if named is not None:
        return named
    if template.startswith("/webhooks/{webhook_id}/{token}"):
        return "interaction_webhook"
    return f"{method} {template}"


def exempt_from_global(template: str) -> bool:
    """Interaction callbacks and the interaction-token webhook are not globally limited."""
    return template.startswith("/interactions/") or template.startswith("/webhooks/{webhook_id}/{token}")


def bucket_hash(name: str) -> str:
    # Discord's bucket ids are opaque hex strings that leave out the top-level resource.
    return hashlib.sha1(name.encode()).hexdigest()[:32]


def peak_start(times: list[float], window: float) -> float | None:
    """When the busiest interval of ``window`` s in ``times`` (sorted) begins; None if none."""
    best, lo, at = 0, 0, None
    for hi, t in enumerate(times):
        while t - times[lo] >= window:
            lo += 1
        if hi - lo + 1 > best:
            best, at = hi - lo + 1, times[lo]
    return at


def peak_count(times: list[float], window: float) -> int:
    """The most timestamps (sorted) that fall in any half-open interval of ``window`` s."""
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def ceil_ms(seconds: float) -> float:
    """``seconds`` rounded up to the millisecond, as Discord writes its reset times. The
    float noise of ``start + per - now`` (5.000000000001 for a window just opened) is
    dropped first, or a fresh 5 s window would say 5.001."""
    return math.ceil(round(seconds * 1000, 6)) / 1000


@dataclass
class Window:
    """A fixed window that opens at its first request and closes ``per`` seconds later."""

    limit: int
    per: float
    start: float | None = None
    count: int = 0
    # When this window answered its first 429 (requests still arriving well after that
    # come from a client that did not wait).
    blocked_since: float | None = None

    def roll(self, now: float) -> None:
        if self.start is None or now >= self.start + self.per:
            self.start, self.count, self.blocked_since = now, 0, None

    def reset_after(self, now: float) -> float:
        return max(0.0, (self.start if self.start is not None else now) + self.per - now)


@dataclass
class Bucket:
    key: str  # "<name>:<major parameters>", e.g. "edit_message:1234"
    name: str
    major: str
    window: Window
    attempts: list[float] = field(default_factory=list)  # monotonic times of every request
    accepted: int = 0
    # Requests over the limit: answered 429 when limits are on, counted anyway when off
    # (so a test with rate_limits=False still learns what Discord would have refused).
    limited: int = 0

    @property
    def hits(self) -> int:
        return len(self.attempts)

    def peak(self, window: float | None = None) -> int:
        """The most requests sent in any sliding ``window`` s (default: the bucket's period).

        Discord's windows are fixed, so a client that obeys them can reach up to twice the
        limit in a sliding window; ``limited`` is the count to check against the limit."""
        return peak_count(self.attempts, self.window.per if window is None else window)


@dataclass
class RateLimitHit:
    """A 429 the fake answered (from a limit, or injected with ``FakeDiscord.fail``)."""

    method: str
    path: str
    bucket: str  # bucket key, or "global"
    retry_after: float
    is_global: bool
    at: float
    # Sent into a window that had already answered 429 more than the grace period earlier:
    # the client did not wait for retry_after (discord.py's requests that were already in
    # flight when the first 429 went out arrive within the grace period).
    violation: bool = False
    injected: bool = False

    def __str__(self) -> str:
        kind = "injected " if self.injected else ("VIOLATION " if self.violation else "")
        scope = "global" if self.is_global else self.bucket
        return f"{kind}429 {self.method} {self.path} ({scope}, retry_after={self.retry_after:.3f}s)"


@dataclass
class Verdict:
    """What the limiter decided for one request: headers to add, or a 429 to send."""

    headers: dict[str, str]
    hit: RateLimitHit | None = None


class RateLimiter:
    """Counts every request per bucket and globally; rejects those over a limit when enabled."""

    def __init__(
        self,
        *,
        enabled: bool = True,
        global_limit: Limit = GLOBAL_LIMIT,
        bucket_limits: Mapping[str, Limit] | None = None,
        violation_grace: float = 0.25,
        scale: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = enabled
        # Every window's length is multiplied by ``scale``: 0.1 keeps Discord's counts (and
        # so discord.py's pacing and 429 paths) but runs ten times faster in long tests.
        self.scale = scale
        self.global_limit: Limit = (global_limit[0], global_limit[1] * scale)
        self.bucket_limits: dict[str, Limit] = {
            name: (limit, per * scale)
            for name, (limit, per) in {**DEFAULT_BUCKET_LIMITS, **(bucket_limits or {})}.items()
        }
        self.default_limit: Limit = (DEFAULT_LIMIT[0], DEFAULT_LIMIT[1] * scale)
        self.violation_grace = violation_grace
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}
        self.global_window = Window(*self.global_limit)
        self.global_attempts: list[float] = []
        self.global_limited = 0  # over the global limit (see Bucket.limited)
        self.hits: list[RateLimitHit] = []

    def limit_for(self, name: str) -> Limit:
        return self.bucket_limits.get(name, self.default_limit)

    def set_limit(self, name: str, limit: int, per: float) -> None:
        """Change a bucket's limit (e.g. "edit_message"); existing windows follow at once."""
        self.bucket_limits[name] = (limit, per)
        for bucket in self.buckets.values():
            if bucket.name == name:
                bucket.window.limit, bucket.window.per = limit, per

    def set_global_limit(self, limit: int, per: float = 1.0) -> None:
        """Change the global limit; the current window starts afresh."""
        self.global_limit = (limit, per)
        self.global_window = Window(limit, per)

    def bucket(self, name: str, major: str = "") -> Bucket | None:
        return self.buckets.get(f"{name}:{major}")

    def global_peak(self, window: float = 1.0) -> int:
        """The most globally-counted requests seen in any ``window`` s."""
        return peak_count(self.global_attempts, window)

    def check(self, method: str, path: str, template: str, params: Mapping[str, str]) -> Verdict:
        now = self.clock()
        name = bucket_name(method, template)
        major = "+".join(params[p] for p in _MAJOR_PARAMS if p in params)
        key = f"{name}:{major}"
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(key, name, major, Window(*self.limit_for(name)))
        bucket.attempts.append(now)
        window = bucket.window
        window.roll(now)

        if not exempt_from_global(template):
            self.global_attempts.append(now)
            gwin = self.global_window
            gwin.roll(now)
            if gwin.count >= gwin.limit:
                self.global_limited += 1
                if self.enabled:
                    hit = self._reject(gwin, method, path, "global", now, is_global=True)
                    return Verdict(self._limited_headers(hit, None), hit)

        if window.count >= window.limit:
            bucket.limited += 1
            if self.enabled:
                hit = self._reject(window, method, path, key, now, is_global=False)
                return Verdict(self._limited_headers(hit, bucket), hit)

        if not exempt_from_global(template):
            self.global_window.count += 1
        window.count += 1
        bucket.accepted += 1
        if not self.enabled:
            return Verdict({})
        return Verdict(self._bucket_headers(bucket, now))

    def _reject(self, window: Window, method: str, path: str, key: str, now: float,
                *, is_global: bool) -> RateLimitHit:
        if window.blocked_since is None:
            window.blocked_since = now
        violation = now - window.blocked_since > self.violation_grace
        # Rounded up so a client that sleeps exactly retry_after lands in the next window.
        retry_after = ceil_ms(window.reset_after(now))
        hit = RateLimitHit(method, path, key, retry_after, is_global, now, violation=violation)
        self.hits.append(hit)
        return hit

    def _bucket_headers(self, bucket: Bucket, now: float) -> dict[str, str]:
        window = bucket.window
        # Rounded up: a client that waits exactly this long must find the window reset.
        reset_after = ceil_ms(window.reset_after(now))
        return {
            "X-RateLimit-Limit": str(window.limit),
            "X-RateLimit-Remaining": str(max(0, window.limit - window.count)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket_hash(bucket.name),
        }

    def _limited_headers(self, hit: RateLimitHit, bucket: Bucket | None) -> dict[str, str]:
        headers = self._bucket_headers(bucket, hit.at) if bucket is not None else {}
        headers.update(rate_limit_headers(hit.retry_after, is_global=hit.is_global))
        return headers


def rate_limit_headers(retry_after: float, *, is_global: bool) -> dict[str, str]:
    headers = {
        "Retry-After": f"{retry_after:.3f}",
        "X-RateLimit-Scope": "global" if is_global else "user",
        # discord.py treats a 429 without Via as a Cloudflare ban and gives up at once;
        # Discord's own 429s come through Google's front end.
        "Via": "1.1 google",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    return headers


def rate_limit_body(retry_after: float, *, is_global: bool) -> dict[str, Any]:
    return {"message": RATE_LIMITED_MESSAGE, "retry_after": retry_after, "global": is_global}


# -- injected faults ------------------------------------------------------------------------

DEFAULT_MESSAGES: dict[int, str] = {
    0: "",
    10003: "Unknown Channel",
    10004: "Unknown Guild",
    10008: "Unknown Message",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    50001: "Missing Access",
    50013: "Missing Permissions",
    40060: "Interaction has already been acknowledged.",
}
STATUS_TEXT: dict[int, str] = {
    400: "400: Bad Request", 401: "401: Unauthorized", 403: "403: Forbidden", 404: "404: Not Found",
    429: RATE_LIMITED_MESSAGE, 500: "500: Internal Server Error", 502: "502 Bad Gateway",
    503: "503 Service Unavailable", 504: "504 Gateway Timeout",
}


@dataclass(eq=False)
class Fault:
    """An answer a test forced on matching requests; see ``FakeDiscord.fail``."""

    method: str  # "*" for any
    pattern: re.Pattern[str]
    status: int | None  # None: answer normally (after ``delay``)
    code: int = 0
    message: str = ""
    times: int | None = 1  # None: until cancelled
    delay: float | None = None
    retry_after: float | None = None
    is_global: bool = False
    hits: list[RecordedRequest] = field(default_factory=list)
    cancelled: bool = False

    @property
    def active(self) -> bool:
        return not self.cancelled and (self.times is None or len(self.hits) < self.times)

    def matches(self, method: str, path: str) -> bool:
        return self.active and self.method in ("*", method) and self.pattern.search(path) is not None

    def cancel(self) -> None:
        self.cancelled = True

    def __str__(self) -> str:
        what = f"{self.status} (code {self.code})" if self.status else "answer normally"
        delay = f" after {self.delay}s" if self.delay else ""
        return f"fault {self.method} /{self.pattern.pattern}/ -> {what}{delay}, {len(self.hits)} hit(s)"
