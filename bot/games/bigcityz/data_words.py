"""The words of Big Cityz's data files that players read, for the catalogs
(``scripts/i18n.py extract``): each statement board's wording (context ``statement``), its
short name (``board``), and the cities whose established name in some language CLDR does
not know (``city``; the rest come from CLDR in ``names``). The code says them with
``_p(context, english)``."""

from __future__ import annotations

from collections.abc import Iterable

from . import content

# Cities with a name of their own in German, Spanish, French or Portuguese that CLDR's
# exemplar cities lack (Milan: Mailand, Milán, Milão). Translators may keep the English.
CITY_EXONYMS: tuple[str, ...] = (
    "Valletta", "Milan", "Naples", "Florence", "Genoa", "Bologna", "Palermo", "Seville",
    "Zaragoza", "Marseille", "Gothenburg", "Gdańsk", "Kazan", "Nizhny Novgorod",
    "Khabarovsk", "Tyumen", "New Delhi", "Isfahan", "Shiraz", "Alexandria",
    "New York City", "Washington, D.C.", "Montreal", "Brasília",
)


def catalog_words() -> Iterable[tuple[str, str]]:
    """(English, context) for every data word a player reads."""
    for statement_id in content.statement_ids():
        yield str(content.statement(statement_id)["text"]), "statement"
    for short in content.SHORT_NAMES.values():
        yield short, "board"
    known = {content.name(city_id) for city_id in content.city_ids()}
    for name in CITY_EXONYMS:
        if name in known:
            yield name, "city"
