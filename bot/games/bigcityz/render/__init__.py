"""Pictures of a Big Cityz game, drawn from the engine's public view only.

``render_table`` is the board everyone looks at between moves: the four statement boards
in their slots around the middle (slot 1 top left, then clockwise), the two risk fields
between each pair of neighbouring boards, the city to place in the middle, whose turn it
is, the objection window when it is open, and the scores with the veto markers left.
``render_reveal`` is the back of the card just turned over: every fact beside its symbol,
the statements that were checked, and who won or lost points. ``render_extras`` adds a
reveal picture for each reveal event and the final standings when the game ends.

The table never knows more than the city's *name*: the view carries nothing else about
the card in play, and nothing here looks a city up. Only ``last_reveal`` (a card already
turned over, so public) carries facts, and only the reveal picture draws them.

The table and the standings are 1200 px wide, the reveal (one column of facts) 800 px.
Discord shows images about 360 px wide on a phone, so what a player reads to choose a
move, each board's statement included (it decides where a city goes), is at least 1/40 of
the width, and captions and cities on squares already taken (no longer a choice) at least
1/60 (docs/pictures.md). Nothing is
told by colour alone: green squares carry a ✓ and "if true", red ones a ✗ and "if
false", players a marker shape.

Cost (target: 25 ms for render and encode on a small shared host): the table is put
together from tiles already mapped onto the PNG palette: each board, each pair of risk
fields and the city in the middle are drawn and quantized once per content and cached,
so a move redraws only what it changed plus the header and the scores; symbols are
cached masks. The reveal draws over a cached card with every symbol and title on it.
"""

# The drawing lives in this package's modules, one job each; this module only names what
# callers use (the render pool looks the render_* functions up here by name).

from __future__ import annotations

from bot.render.cast import Cast

from .board import Square, _square_boxes
from .cast import inline
from .centre import CentreKey
from .constants import (
    BAD_TINT,
    CENTRE_BG,
    GAP,
    GOOD_TINT,
    MARGIN,
    PALETTE,
    SMALL,
    TEXT,
    WIDTH,
    WINNING_SCORE,
    View,
)
from .final import render_extras, render_final
from .layout import (
    BADGE_W,
    BOARD_HEAD,
    BOARD_XY,
    BOTTOM_Y,
    BW,
    CENTRE,
    COL_M,
    COL_R,
    GRID_BOTTOM,
    GRID_Y,
    HB,
    HEADER_H,
    HM,
    INFO_Y,
    MW,
    RISK_AREAS,
    ROW_B,
    ROW_C,
    SCORE_ROW,
    SCORE_Y,
    SQUARE_GAP,
    SQUARE_H,
)
from .reveal import (
    CARD_BOTTOM,
    CARD_HEAD,
    CARD_TOP,
    FACT_H,
    FACT_W,
    FACTS,
    POINTS_ROW,
    REVEAL_HEAD,
    REVEAL_W,
    fact_text,
    render_reveal,
)
from .risk import RiskKey
from .statements import FACT_ORDER, FACT_TITLES, SHORT_NAMES, SYMBOLS, short_name
from .symbols import draw_symbol, symbol_mask
from .table import render_table
from .text import ONE_LINE, Fits, draw_fitted, fit_lines, signed, wrap

__all__: list[str] = ["render_extras", "render_final", "render_reveal", "render_table"]
