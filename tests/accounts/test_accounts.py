import pytest
from django.urls import reverse

from accounts.models import User
from wallet.models import Account

pytestmark = pytest.mark.django_db
PASSWORD = "Bai-Tien-Len-42"


def signup(client, username="lan", password=PASSWORD, display_name="Lan"):
    return client.post(
        reverse("signup"),
        {
            "username": username,
            "display_name": display_name,
            "password1": password,
            "password2": password,
        },
    )


def test_sign_up_logs_in_and_shows_ten_thousand_chips(client):
    response = signup(client)

    assert response.status_code == 302
    user = User.objects.get(username="lan")
    assert user.display_name == "Lan"
    assert Account.objects.get(user=user, kind=Account.Kind.USER).balance == 10_000
    home = client.get(reverse("home"))
    assert home.wsgi_request.user == user
    assert "<strong>10.000</strong>" in home.content.decode()


@pytest.mark.parametrize(
    ("wanted", "lands_on"),
    [("/tables/7/", "/tables/7/"), ("https://evil.example/", "/"), ("", "/")],
)
def test_sign_up_goes_on_to_the_page_asked_for_on_this_site_only(client, wanted, lands_on):
    page = client.get(reverse("signup"), {"next": wanted}).content.decode()
    kept = wanted if wanted == lands_on else ""  # an address elsewhere is dropped
    assert f'name="next" value="{kept}"' in page

    response = client.post(
        reverse("signup"),
        {
            "username": "lan",
            "display_name": "Lan",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": wanted,
        },
    )

    assert (response.status_code, response["Location"]) == (302, lands_on)


def test_the_log_in_page_passes_next_on_to_sign_up(client):
    page = client.get(reverse("login"), {"next": "/tables/7/"}).content.decode()
    assert f'href="{reverse("signup")}?next=/tables/7/"' in page


def test_sign_up_refuses_a_weak_password_and_creates_nothing(client):
    response = signup(client, password="123")

    assert response.status_code == 200
    assert "password2" in response.context["form"].errors
    assert not User.objects.filter(username="lan").exists()
    assert not Account.objects.filter(kind=Account.Kind.USER).exists()


def test_sign_up_refuses_a_taken_username(client, make_user):
    make_user(username="lan")

    response = signup(client)

    assert response.status_code == 200
    assert "username" in response.context["form"].errors
    assert User.objects.filter(username="lan").count() == 1


def test_log_in_log_out_and_change_password(client, make_user):
    make_user(username="minh")

    response = client.post(reverse("login"), {"username": "minh", "password": PASSWORD})
    assert response.status_code == 302
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "Mau-Binh-2026!",
            "new_password2": "Mau-Binh-2026!",
        },
    )
    assert response.status_code == 302
    client.post(reverse("logout"))
    assert client.get(reverse("wallet")).status_code == 302
    old = client.post(reverse("login"), {"username": "minh", "password": PASSWORD})
    new = client.post(reverse("login"), {"username": "minh", "password": "Mau-Binh-2026!"})
    assert (old.status_code, new.status_code) == (200, 302)


def test_failed_log_ins_are_throttled(client, make_user):
    make_user(username="minh")
    for _ in range(5):
        client.post(reverse("login"), {"username": "minh", "password": "wrong"})

    response = client.post(reverse("login"), {"username": "minh", "password": PASSWORD})

    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_vietnamese_by_default_and_english_one_click_away(client):
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert "Phòng bài Việt" in page.content.decode()
    assert page["Content-Language"] == "vi"

    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get(reverse("home"))
    assert "Vietnamese card room" in page.content.decode()
    assert page["Content-Language"] == "en"


def test_wallet_page_claims_the_daily_bonus_once(client, make_user):
    user = make_user()
    client.force_login(user)

    client.post(reverse("wallet-bonus"))
    second = client.post(reverse("wallet-bonus"), follow=True)

    assert Account.objects.get(user=user, kind=Account.Kind.USER).balance == 12_000
    text = second.content.decode()
    assert "Bạn đã nhận thưởng hôm nay rồi" in text
    assert "12.000" in text
    assert "Thưởng hằng ngày" in text


def test_wallet_ledger_is_paginated(client, make_user):
    from wallet.services import chips_grant

    user = make_user()
    for i in range(25):
        chips_grant(user=user, amount=1, key=f"g{i}")
    client.force_login(user)

    first = client.get(reverse("wallet"))
    second = client.get(reverse("wallet"), {"page": 2})

    assert len(first.context["page"].object_list) == 20
    assert len(second.context["page"].object_list) == 6
