"""Issue 16 ("Words"): a chip count reads the same everywhere, thousands
grouped by the site's one formatter (10.000 in Vietnamese, 10,000 in English),
refusals included (they said "2000" where everything else said 2.000)."""

from django.utils import translation

from games.errors import BadBuyIn, NotEnoughChips, TooManyTables
from wallet.errors import InsufficientChips


def test_refusals_group_their_chip_counts():
    with translation.override("vi"):
        assert NotEnoughChips(needed=20_000).message == (
            "Bạn cần ít nhất 20.000 chip để ngồi vào bàn này."
        )
        assert "1.000" in BadBuyIn(low=1_000, high=4_000).message
        assert "4.000" in BadBuyIn(low=1_000, high=4_000).message
    with translation.override("en"):
        assert InsufficientChips(needed=12_500, available=800).message == (
            "Not enough chips: 12,500 needed, 800 available."
        )
        # Not every number is a chip count.
        assert "1000 open tables" in TooManyTables(limit=1000).message
