"""Field errors come back in the request's language: Vietnamese unless the
client asks for English. DRF's own messages ("This field is required.", "A
valid integer is required."...) are translated in our catalogue
(kernel/api/drf_messages.py), which Django reads before DRF's."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import django
import django_filters
import pytest
import rest_framework
from django.conf import settings
from django.utils import translation
from rest_framework import exceptions, serializers

from accounts.models import User
from games import services
from kernel.api.drf_messages import DRF_MESSAGES

from .helpers import client_for, error, throttles_off, url, world

pytestmark = pytest.mark.django_db


def subclasses(cls: Any) -> Iterator[Any]:
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)


def ours(cls: type) -> bool:
    return cls.__module__.split(".")[0] in {"games", "wallet", "vipgame"}


def field_messages(where: str, field: Any) -> dict[str, str]:
    """Every error a field (and what it holds) can give: its error messages
    and its validators' messages, in the active language (a read-only field
    reads no input)."""
    if getattr(field, "read_only", False):
        return {}
    found = {f"{where}.{key}": str(m) for key, m in field.error_messages.items()}
    for validator in getattr(field, "validators", []):
        if getattr(validator, "message", None):
            found[f"{where}.{type(validator).__name__}"] = str(validator.message)
    if isinstance(field, serializers.Serializer):
        for name, inner in field.fields.items():
            found |= field_messages(f"{where}.{name}", inner)
    child = getattr(field, "child", None)
    if child is not None:
        found |= field_messages(f"{where}.child", child)
    return found


def all_messages(language: str) -> dict[str, str]:
    """Every message of every serializer and filter of ours, DRF's exceptions
    and our list of DRF's messages, in ``language``. The fields are made anew
    in each language (DRF formats a validator's message once)."""
    import_module(settings.ROOT_URLCONF)  # every API module is imported
    found: dict[str, str] = {}
    with translation.override(language):
        for cls in subclasses(serializers.Serializer):
            if ours(cls):
                found |= field_messages(cls.__qualname__, cls())
        for cls in subclasses(django_filters.FilterSet):
            if ours(cls) and cls._meta.model is not None:  # (not a base like StrictFilterSet)
                for name, form_field in cls().form.fields.items():
                    found |= field_messages(f"{cls.__qualname__}.{name}", form_field)
        for cls in subclasses(exceptions.APIException):
            found[f"exceptions.{cls.__name__}"] = str(cls.default_detail)
        found |= {f"drf_messages[{n}]": translation.gettext(m) for n, m in enumerate(DRF_MESSAGES)}
    return found


def test_every_error_our_serializers_and_filters_can_give_has_a_vietnamese_text():
    vietnamese, english = all_messages("vi"), all_messages("en")

    assert vietnamese.keys() == english.keys()
    assert sum(k.startswith(("TableCreateIn.", "SignupIn.", "TableFilter.")) for k in english) > 30
    assert [f"{k}: {english[k]}" for k in english if vietnamese[k] == english[k]] == []


def test_each_drf_message_we_translate_is_one_drf_or_django_sends():
    """The list does not rot: each entry is written in DRF's source (or
    Django's validators' or form fields'), character for character."""
    django_root = Path(django.__file__).parent
    sources = [Path(rest_framework.__file__).parent, django_root / "core", django_root / "forms"]
    text = "".join(p.read_text() for root in sources for p in root.rglob("*.py"))

    assert [m for m in DRF_MESSAGES if m not in text] == []
    assert len(set(DRF_MESSAGES)) == len(DRF_MESSAGES)


def every_error(details: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(where, message) for every message in a ``details`` object, however deep."""
    if isinstance(details, dict):
        for key, value in details.items():
            yield from every_error(value, f"{path}.{key}")
    elif isinstance(details, list):
        for n, value in enumerate(details):
            yield from every_error(value, f"{path}[{n}]")
    else:
        yield path, details


def bad_requests(table_id: int) -> list[tuple[str, str, Any]]:
    """(method, path, body): wrong types, out of range, too long, missing,
    null, blank, a list for an object, an object for a list, bad characters."""
    return [
        ("post", "tables", {
            "game": "chess", "stake": "abc", "seat_count": 99, "name": "x" * 61,
            "preset": None, "options": [1], "is_private": "maybe", "max_raise": 1.5,
            "buy_in_min": "9" * 1001, "fill_with_bots": [],
        }),
        ("post", "tables", {"game": "tienlen", "stake": 0, "options": "rules"}),
        ("post", "tables", {}),
        ("post", "tables", [1, 2]),
        ("post", f"tables/{table_id}/sit", {"position": -1, "buy_in": True, "invite": "y" * 17}),
        ("post", f"tables/{table_id}/sit", {"position": 9, "buy_in": 10**13}),
        ("post", f"tables/{table_id}/seed", {"client_seed": "", "commitment": {"a": 1}}),
        ("post", f"tables/{table_id}/ready", {"client_seed": 5, "commitment": "c" * 65}),
        ("post", f"tables/{table_id}/actions", {"id": "", "v": -1, "action": []}),
        ("post", f"tables/{table_id}/actions", {"v": 2**63, "action": None}),
        ("post", f"tables/{table_id}/buy-in", {"amount": "lots"}),
        ("post", f"tables/{table_id}/bots", {"position": "first"}),
        ("post", "fairness/verify", {
            "server_seed": "zz", "hand_id": "h" * 65, "client_seeds": ["s" * 65] * 10,
        }),
        ("post", "fairness/verify", {"server_seed": "0" * 64, "client_seeds": "abc"}),
        ("post", "auth/signup", {
            "username": "tên có dấu cách!", "display_name": "", "password": "1",
        }),
        ("post", "auth/signup", {"username": "lan\u0000", "display_name": "d" * 41}),
        ("post", "auth/signup", {"username": "lan2", "display_name": "Lan", "password": "1"}),
        ("post", "auth/login", {"username": "u" * 151}),
        ("post", "auth/login", '{"username": "lan\\ud800", "password": null}'),
        ("post", "auth/password", {"old_password": None, "new_password": "p" * 129}),
        ("post", "chat/1/report", {"category": 3, "note": ["a"], "invite": {}}),
        ("get", "tables?game=chess&stake=abc&free_seats=-1&stake_min=0", None),
        ("get", "hands?game=poker&date_after=yesterday&date_before=2026-13-45", None),
        ("get", "wallet/ledger?kind=theft", None),
        ("get", f"tables/{table_id}?since=-5", None),
    ]  # fmt: skip


def answers(lan: User, table_id: int, **client: Any) -> list[tuple[int, str, dict[str, Any]]]:
    api = client_for(lan, client.pop("language", None))
    for cookie, value in client.items():
        api.cookies[cookie] = value
    found = []
    for method, path, body in bad_requests(table_id):
        if method == "get":
            response = api.get(url(path))
        elif isinstance(body, str):  # JSON the test client would not write
            response = api.post(url(path), body, content_type="application/json")
        else:
            response = api.post(url(path), body)
        status, code = error(response)
        found.append((status, code, response.json()["details"]))
    return found


@pytest.mark.parametrize(
    "client",
    [
        {"language": "vi"},
        {"language": "vi-VN,vi;q=0.9,en-US;q=0.8"},
        {},  # no Accept-Language: Vietnamese
        {"language": "fr"},  # a language the site does not speak: Vietnamese
        # A browser's player chose Vietnamese (the cookie wins over the header).
        {"language": "en", settings.LANGUAGE_COOKIE_NAME: "vi"},
    ],
    ids=["vi", "vi-VN", "none", "fr", "cookie"],
)
def test_field_errors_in_vietnamese_walk_every_message(client, tables, make_user, settings):
    throttles_off(settings)
    lan = make_user()
    table = services.table_create(owner=lan, game="holdem", stake=10, seat_count=2)
    before = world(), User.objects.count()

    vietnamese = answers(lan, table.pk, **client)
    english = answers(lan, table.pk, language="en")

    assert (world(), User.objects.count()) == before  # every request was refused
    assert [(status, code) for status, code, _d in vietnamese] == [
        (status, code) for status, code, _d in english
    ]
    assert {code for _s, code, _d in vietnamese} == {"invalid"}
    walked = 0
    for (_s, _c, vi_details), (_s2, _c2, en_details) in zip(vietnamese, english, strict=True):
        vi_errors, en_errors = dict(every_error(vi_details)), dict(every_error(en_details))
        assert vi_errors.keys() == en_errors.keys()
        for where, message in vi_errors.items():
            assert message != en_errors[where], where  # not the English text
            walked += 1
    assert walked > 60


def test_an_english_client_still_gets_drf_messages_in_english(make_user):
    response = client_for(make_user(), "en").post(url("fairness/verify"), {"hand_id": "x" * 65})

    assert response.json()["details"] == {
        "server_seed": ["This field is required."],
        "hand_id": ["Ensure this field has no more than 64 characters."],
    }


def test_a_lone_surrogate_quoted_back_in_an_error_is_not_a_500(make_user):
    """A choice error or an unknown rule option quotes the input; a lone
    surrogate cannot be written as UTF-8 (it was a 500). It is sent back
    replaced, and nothing is created."""
    api = client_for(make_user(), "vi")
    before = world()

    choice = api.post(
        url("tables"), '{"game": "\\ud800", "stake": 1}', content_type="application/json"
    )
    option = api.post(
        url("tables"), '{"game": "tienlen", "stake": 1, "options": {"\\udfff": 1}}',
        content_type="application/json",
    )  # fmt: skip

    assert error(choice) == (400, "invalid")
    assert choice.json()["details"] == {"game": ['"?" không phải là lựa chọn hợp lệ.']}
    assert error(option) == (400, "bad_table_settings")
    assert option.json()["message"] == "Tùy chọn luật không xác định: ?."
    assert world() == before


def test_our_catalogue_wins_over_drfs_for_the_same_message():
    """DRF's Vietnamese catalogue has a few of these (one with a stray space):
    LOCALE_PATHS are read last, so ours is the one used."""
    with translation.override("vi"):
        assert translation.gettext("This list may not be empty.") == (
            "Danh sách này không được để trống."
        )
        assert translation.gettext("This field may not be blank.") == (
            "Trường này không được để trống."
        )
