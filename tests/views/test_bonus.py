"""Issue 16 ("Words"): the daily bonus says its chips with thousands grouped,
like every other chip count (it said "+2000 chip")."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("vi", "Đã nhận thưởng hằng ngày: +2.000 chip."),
        ("en", "Daily bonus claimed: +2,000 chips."),
    ],
)
def test_the_daily_bonus_message_groups_thousands(make_user, settings, language, said):
    settings.DAILY_BONUS = 2_000
    client = Client()
    client.force_login(make_user())
    client.cookies["django_language"] = language

    response = client.post(reverse("wallet-bonus"), follow=True)

    assert [str(m) for m in response.context["messages"]] == [said]
