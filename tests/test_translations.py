"""Every string the site shows has its Vietnamese translation (Vietnamese is
the default language): no empty and no fuzzy entry in locale/vi."""

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

VI = sorted((Path(__file__).resolve().parent.parent / "locale" / "vi" / "LC_MESSAGES").glob("*.po"))


@pytest.mark.parametrize("po", VI, ids=[p.name for p in VI])
def test_every_vietnamese_entry_is_translated(po):
    with po.open("rb") as source:
        catalog = read_po(source, locale="vi")
    entries = [m for m in catalog if m.id]

    untranslated = [
        m.id for m in entries if not all(m.string if isinstance(m.string, tuple) else [m.string])
    ]
    fuzzy = [m.id for m in entries if m.fuzzy]

    assert len(entries) > 100
    assert (untranslated, fuzzy) == ([], [])
