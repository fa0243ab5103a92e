"""What the tables keep per running match stays bounded, however many matches run: a Big
Cityz reveal picture stays beside its board for the most recently told matches only."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from bot.ui.payload import Drawn
from bot.ui.table import Tables


def test_reveal_pictures_are_kept_for_the_most_recent_matches_only() -> None:
    bot = SimpleNamespace(settings=SimpleNamespace(rate_limit_scale=1.0), shard_share=1.0)
    tables = Tables(cast(Any, bot))
    kept = Tables.NEWS_PICTURES_KEPT
    for match_id in range(kept + 40):
        tables.add_news(match_id, "Paris was revealed.",
                        [Drawn(b"png" * 1000, f"reveal-{match_id}.png")])
    assert len(tables._news_pictures) == kept
    assert 0 not in tables._news_pictures  # the oldest went first
    newest = tables._news_pictures[kept + 39]
    assert [d.filename for d in newest] == [f"reveal-{kept + 39}.png"]
    # the words of every match's news stay: only pictures are let go
    assert tables.news(0) == ["Paris was revealed."]
