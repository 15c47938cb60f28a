import pytest
from django.urls import reverse

from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db


def user_account(user):
    return Account.objects.get(user=user, kind=Account.Kind.USER)


def test_staff_adjusts_a_balance_with_a_reason(client, make_user):
    staff, player = make_user(is_staff=True), make_user()
    client.force_login(staff)
    url = reverse("admin:wallet_account_adjust", args=[user_account(player).pk])

    form = client.get(url).context["form"]
    # The key is made on the server (issue 13 item 5): the form has none.
    assert "key" not in form.fields
    response = client.post(url, {"amount": "-300", "reason": "duplicate bonus"})
    again = client.post(url, {"amount": "-300", "reason": "duplicate bonus"})

    assert response.status_code == 302
    assert again.status_code == 200  # sent twice: posted once
    assert again.context["form"].non_field_errors()
    assert user_account(player).balance == 9_700
    txn = LedgerTransaction.objects.get(kind="adjustment")
    assert (txn.reason, txn.created_by) == ("duplicate bonus", staff)
    assert txn.idempotency_key.startswith("adjust:")
    assert len(txn.idempotency_key) == 39


def test_adjustment_without_a_reason_changes_nothing(client, make_user):
    staff, player = make_user(is_staff=True), make_user()
    client.force_login(staff)
    url = reverse("admin:wallet_account_adjust", args=[user_account(player).pk])

    client.get(url)
    response = client.post(url, {"amount": "500", "reason": " "})

    assert response.status_code == 200
    assert "reason" in response.context["form"].errors
    assert user_account(player).balance == 10_000
    assert not LedgerTransaction.objects.filter(kind="adjustment").exists()


def test_ledger_rows_cannot_be_edited_or_deleted_in_the_admin(client, make_user):
    staff, player = make_user(is_staff=True), make_user()
    client.force_login(staff)
    txn = LedgerTransaction.objects.get(idempotency_key=f"signup:{player.pk}")

    change = client.post(reverse("admin:wallet_ledgertransaction_change", args=[txn.pk]), {})
    delete = client.post(
        reverse("admin:wallet_ledgertransaction_delete", args=[txn.pk]), {"post": "yes"}
    )
    add = client.get(reverse("admin:wallet_account_add"))

    assert change.status_code in (302, 403) or "readonly" in change.content.decode()
    assert delete.status_code == 403
    assert add.status_code == 403
    assert LedgerTransaction.objects.filter(pk=txn.pk).exists()
    assert user_account(player).balance == 10_000


def test_players_cannot_reach_the_adjust_form(client, make_user):
    player = make_user()
    client.force_login(player)

    response = client.post(
        reverse("admin:wallet_account_adjust", args=[user_account(player).pk]),
        {"amount": "100000", "reason": "me", "key": "adjust:y"},
    )

    assert response.status_code == 302
    assert user_account(player).balance == 10_000


def test_user_admin_searches_and_bans_with_a_reason(client, make_user):
    staff, player = make_user(is_staff=True), make_user(username="cheater")
    client.force_login(staff)

    found = client.get(reverse("admin:accounts_user_changelist"), {"q": "cheat"})
    client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "ban", "_selected_action": [player.pk], "apply": "1", "reason": "cheating"},
    )

    assert list(found.context["cl"].result_list) == [player]
    player.refresh_from_db()
    assert player.is_active is False
