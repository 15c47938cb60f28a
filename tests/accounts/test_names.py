"""Names that impersonate (issue 34, S-06): sign-up (web form and API), a
rename (service, admin) and the database's unique skeletons refuse look-alikes
of other players, of bots and of the staff, and characters that hide or turn
text; nothing is created or changed then."""

import importlib
import threading
import unicodedata

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import services
from accounts.models import User
from accounts.names import (
    NameTaken,
    display_key,
    display_name_normalize,
    skeleton,
    username_key,
)
from accounts.services import display_name_set
from wallet.models import Account
from wallet.services import bot_signup, player_signup

pytestmark = pytest.mark.django_db
PASSWORD = "Bai-Tien-Len-42"
CYRILLIC_A = "\u0430"
KEYED = ("accounts", "0005_name_keys")

# (display name, code, vi message, en message) for each example of the review.
CHARACTERS = (
    "name_characters",
    "Tên không được chứa ký tự điều khiển, ký tự vô hình, ký tự đổi chiều chữ hay xuống dòng.",
    "A name may not hold control, invisible or text-direction characters, nor line breaks.",
)
MARKS = (
    "name_marks",
    "Một chữ chỉ được mang tối đa hai dấu, như “ệ”.",
    "Too many accent marks on one letter: at most two, as in “ệ”.",
)
RESERVED = (
    "name_reserved",
    "Tên này được giữ riêng: nó giống tên của ban quản trị hoặc của một bot.",
    "This name is reserved: it looks like the site's staff or one of its bots.",
)
TAKEN = (
    "name_taken",
    "Đã có người chơi dùng tên này hoặc một tên trông giống hệt.",
    "Another player already has this name or one that looks the same.",
)
REFUSED_NAMES = [
    pytest.param("Minh Anh", RESERVED, id="a-bots-name"),
    pytest.param("minh  ANH", RESERVED, id="a-bots-name-other-case"),
    pytest.param("Quản trị viên (Admin)", RESERVED, id="staff-words"),
    pytest.param("Ad Min Lan", RESERVED, id="staff-word-split"),
    pytest.param("Hỗ trợ khách hàng", RESERVED, id="staff-words-vietnamese"),
    pytest.param("\u0430dmin", RESERVED, id="staff-word-cyrillic"),
    pytest.param("Lan\u202enimdA", CHARACTERS, id="right-to-left-override"),
    pytest.param("L\u200ba\u200bn\u200b\u200b\u200b", CHARACTERS, id="zero-width-flood"),
    pytest.param("Lan\u2066x", CHARACTERS, id="bidi-isolate"),
    pytest.param("Lan" + "\u0301" * 30, MARKS, id="combining-flood"),
    pytest.param("e\u0302\u0323\u0301", MARKS, id="three-marks"),
    pytest.param("Lan\nQuản trị", CHARACTERS, id="newline"),
    pytest.param("Lan\u3164", CHARACTERS, id="hangul-filler"),
    pytest.param(unicodedata.normalize("NFD", "Thu Cúc"), TAKEN, id="nfd-spelling-of-a-player"),
    pytest.param("THỤ CỤC", TAKEN, id="other-case-and-accents"),
    pytest.param("Thu-Cuc", TAKEN, id="punctuation"),
    pytest.param("Thu \u0421\u00fa\u0441", TAKEN, id="cyrillic-look-alike"),
]


def web_signup(client, username, display_name, language="vi"):
    client.cookies["django_language"] = language
    return client.post(
        reverse("signup"),
        {
            "username": username,
            "display_name": display_name,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def api_signup(username, display_name, language="vi"):
    return APIClient().post(
        "/api/v1/auth/signup",
        {"username": username, "display_name": display_name, "password": PASSWORD},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )


def accounts():
    return (
        list(User.objects.order_by("pk").values("pk", "username", "display_name")),
        Account.objects.count(),
    )


@pytest.fixture
def cuc(db):
    return player_signup(username="cuc", display_name="Thu Cúc", password=PASSWORD)


@pytest.mark.parametrize(("name", "refusal"), REFUSED_NAMES)
def test_the_api_refuses_an_impersonating_display_name(cuc, name, refusal):
    code, vietnamese, english = refusal
    before = accounts()

    vi = api_signup("lan", name)
    en = api_signup("lan", name, language="en")

    assert (vi.status_code, vi.json()) == (
        400,
        {"code": code, "message": vietnamese, "details": {"field": "display_name"}},
    )
    assert (en.json()["code"], en.json()["message"]) == (code, english)
    assert accounts() == before


@pytest.mark.parametrize(("name", "refusal"), REFUSED_NAMES)
def test_the_sign_up_form_refuses_an_impersonating_display_name(client, cuc, name, refusal):
    code, vietnamese, english = refusal
    before = accounts()

    vi = web_signup(client, "lan", name)
    en = web_signup(client, "lan", name, language="en")

    assert vi.status_code == 200
    assert [e.code for e in vi.context["form"].errors.as_data()["display_name"]] == [code]
    assert vi.context["form"].errors["display_name"] == [vietnamese]
    assert en.context["form"].errors["display_name"] == [english]
    assert accounts() == before


@pytest.mark.parametrize(
    ("twin", "web_code"),
    [
        ("cu\u0441", "username_taken"),
        ("\u0421U\u0421", "username_taken"),
        ("Cúc", "username_taken"),
        ("CUC", "unique"),  # Django's own case-insensitive check comes first on the form
    ],
    ids=["cyrillic-es", "cyrillic-capitals", "accent", "upper"],
)
def test_a_look_alike_username_is_refused(client, cuc, twin, web_code):
    before = accounts()

    api = api_signup(twin, "Lan", language="en")
    web = web_signup(client, twin, "Lan", language="en")

    assert (api.status_code, api.json()["code"], api.json()["details"]) == (
        400,
        "username_taken",
        {"field": "username"},
    )
    assert api.json()["message"] == "This username is taken (or one that looks the same is)."
    assert [e.code for e in web.context["form"].errors.as_data()["username"]] == [web_code]
    assert accounts() == before


def test_the_latin_twin_of_a_cyrillic_username_is_refused_too(db):
    player_signup(username=f"l{CYRILLIC_A}n", display_name="Lan", password=PASSWORD)

    assert api_signup("lan", "Lan Khác").json()["code"] == "username_taken"
    assert User.objects.count() == 1


def test_vietnamese_names_pass_and_are_stored_in_nfc(db):
    typed = unicodedata.normalize("NFD", "  Lê  Thị Ệ   Lan ")

    body = api_signup("le", typed).json()

    assert body["user"]["display_name"] == "Lê Thị Ệ Lan"
    user = User.objects.get(username="le")
    assert user.display_name == unicodedata.normalize("NFC", "Lê Thị Ệ Lan")
    assert (user.display_key, user.username_key) == ("lethielan", "le")


def test_skeletons_fold_case_accents_and_look_alikes():
    assert skeleton("Quản Trị") == skeleton("quan tri") == "quan tri"
    assert skeleton("Đức") == "duc"
    assert display_key("Thu \u0421\u00fa\u0441") == display_key("thu cúc") == "thucuc"
    assert username_key(f"{CYRILLIC_A}dmin") == username_key("ADMIN") == "admin"
    assert display_name_normalize(unicodedata.normalize("NFD", "Nguyễn")) == "Nguyễn"


def test_a_name_that_decomposes_into_many_letters_still_fits_its_key(db):
    body = api_signup("lig", "\ufdfa" * 40).json()  # 18 letters each once decomposed

    assert body["user"]["display_name"] == "\ufdfa" * 40
    key = User.objects.get(username="lig").display_key
    assert key is not None
    assert len(key) == 200


def test_a_rename_follows_the_same_rules(cuc):
    lan = player_signup(username="lan", display_name="Lan Xinh", password=PASSWORD)

    with pytest.raises(NameTaken):
        display_name_set(user=lan, display_name="thu  cuc")

    assert User.objects.get(pk=lan.pk).display_name == "Lan Xinh"
    assert display_name_set(user=lan, display_name="Lan Đẹp").display_name == "Lan Đẹp"
    assert User.objects.get(pk=lan.pk).display_key == "landep"


def test_the_admin_form_refuses_an_impersonating_rename(client, cuc, make_user):
    staff = make_user(is_staff=True)
    lan = player_signup(username="lan", display_name="Lan Xinh", password=PASSWORD)
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[lan.pk])
    form = client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in ("username", "first_name", "last_name", "email")}
    data["date_joined_0"], data["date_joined_1"] = "2026-01-01", "10:00:00"

    refused = [
        client.post(url, {**data, "display_name": name}, HTTP_ACCEPT_LANGUAGE="en")
        for name in ("Thu Cuc", "Quản trị viên", "Minh Anh", "Lan\u202e")
    ]
    renamed = client.post(url, {**data, "display_name": "Lan Đẹp"})

    codes = [r.context["adminform"].form.errors.as_data()["display_name"][0].code for r in refused]
    assert codes == ["name_taken", "name_reserved", "name_reserved", "name_characters"]
    assert renamed.status_code == 302
    assert User.objects.get(pk=lan.pk).display_name == "Lan Đẹp"


def test_staff_may_carry_a_staff_word_in_the_admin(make_user):
    staff = make_user(is_staff=True)
    staff.display_name = "Quản trị viên"

    staff.full_clean()
    staff.save()

    assert User.objects.get(pk=staff.pk).display_key == "quantrivien"


def test_a_player_may_not_be_renamed_to_a_bots_name_in_the_model(make_user):
    lan = make_user(username="lan")
    bot_signup(username="bot-old", display_name="An 1")  # an older bot's name
    lan.display_name = "An 1"

    with pytest.raises(ValidationError) as refused:
        lan.full_clean()

    assert refused.value.error_dict["display_name"][0].code == "name_reserved"


@pytest.mark.django_db(transaction=True)
def test_two_sign_ups_racing_for_twin_names_create_one_player(monkeypatch):
    """Both pass the check before either inserts: the unique skeleton refuses
    the second on PostgreSQL, and nothing of it is created."""
    assert connection.vendor == "postgresql"
    both_checked = threading.Barrier(2, timeout=10)
    check = services.display_name_check

    def check_then_wait(**kwargs):
        name = check(**kwargs)
        both_checked.wait()
        return name

    monkeypatch.setattr(services, "display_name_check", check_then_wait)
    results: dict[str, object] = {}

    def register(username, name):
        try:
            results[username] = player_signup(
                username=username, display_name=name, password=PASSWORD
            )
        except Exception as err:
            results[username] = err
        finally:
            connection.close()

    threads = [
        threading.Thread(target=register, args=("lan", "Lan Chi Chi")),
        threading.Thread(target=register, args=("lan2", "LAN CHÍ CHỊ")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    outcomes = sorted(type(r).__name__ for r in results.values())
    assert outcomes == ["NameTaken", "User"]
    assert User.objects.count() == 1
    assert Account.objects.filter(kind=Account.Kind.USER).count() == 1


def test_the_migration_keys_existing_names_and_leaves_later_twins_unkeyed(db):
    migration = importlib.import_module("accounts.migrations.0005_name_keys")
    player_signup(username="lan", display_name="Lan Xinh", password=PASSWORD)
    twin = player_signup(username="other", display_name="Other", password=PASSWORD)
    bot_signup(username="bot-1-aa", display_name="Minh Anh")
    User.objects.update(display_key=None, username_key=None)
    User.objects.filter(pk=twin.pk).update(
        username=f"l{CYRILLIC_A}n", display_name="LAN  XINH\u202e"
    )

    migration.backfill(MigrationExecutor(connection).loader.project_state(KEYED).apps, None)

    rows = User.objects.order_by("pk").values_list("display_name", "display_key", "username_key")
    assert list(rows) == [
        ("Lan Xinh", "lanxinh", "lan"),
        ("LAN XINH", None, None),
        ("Minh Anh", "minhanh", "bot-l-aa"),
    ]
