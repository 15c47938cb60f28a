"""One error shape under /api/, in the request's language, never a traceback."""

import json
import logging

import pytest
from rest_framework.test import APIClient

from games import selectors

from .helpers import error, url

pytestmark = pytest.mark.django_db


def test_an_unknown_address_under_api_is_a_json_404(api, make_user):
    for path in ("/api/v1/nowhere", "/api/v2/tables", "/api/v1/tables/", "/api/"):
        response = api(make_user()).get(path)
        assert error(response) == (404, "not_found"), path
        assert response["Content-Type"] == "application/json"


def test_the_message_follows_accept_language_vietnamese_by_default(api):
    vietnamese = api().get(url("me"))
    english = api(language="en-US,en;q=0.9").get(url("me"))
    other = api(language="fr").get(url("me"))

    assert vietnamese.json() == {
        "code": "not_authenticated",
        "message": "Hãy đăng nhập trước: gửi kèm mã API (token) của bạn.",
        "details": {},
    }
    assert vietnamese["Content-Language"] == "vi"
    assert english.json()["message"] == "Log in first: send your API token."
    assert english["Content-Language"] == "en"
    assert other.json()["message"] == vietnamese.json()["message"]


def test_service_errors_keep_their_code_status_and_translation(api, make_user):
    user = make_user()

    vietnamese = api(user).get(url("tables/424242"))
    english = api(user, language="en").get(url("tables/424242"))

    assert vietnamese.json() == {
        "code": "table_not_found",
        "message": "Bàn này không tồn tại.",
        "details": {},
    }
    assert (english.status_code, english.json()["message"]) == (404, "That table does not exist.")


def test_field_errors_are_the_details_of_invalid(api, make_user):
    response = api(make_user(), language="en").post(url("tables"), {"game": "chess", "stake": -1})

    assert response.json() == {
        "code": "invalid",
        "message": "Some of the data sent is not valid.",
        "details": {
            "game": ['"chess" is not a valid choice.'],
            "stake": ["stake must be a whole number from 1 to 1000000."],
        },
    }


def test_a_bad_token_is_not_authenticated(api):
    response = APIClient().get(url("me"), HTTP_AUTHORIZATION="Token nope")

    assert error(response) == (401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_method_parse_and_media_type_errors(api, make_user):
    client = api(make_user(), language="en")

    wrong_method = client.delete(url("wallet"))
    broken_json = client.post(url("tables"), "{nope", content_type="application/json")
    form = client.post(
        url("tables"), "game=tienlen", content_type="application/x-www-form-urlencoded"
    )

    assert error(wrong_method) == (405, "method_not_allowed")
    assert wrong_method.json()["message"] == "This method is not allowed here."
    assert error(broken_json) == (400, "parse_error")
    assert error(form) == (415, "unsupported_media_type")


def test_a_failure_outside_the_api_views_is_json_under_api_only(rf):
    from vipgame.api.views import server_error

    api_answer = server_error(rf.get("/api/v1/me"))
    page = server_error(rf.get("/wallet/"))

    assert api_answer.status_code == page.status_code == 500
    assert json.loads(api_answer.content)["code"] == "server_error"
    assert page["Content-Type"].startswith("text/html")


def test_an_unexpected_failure_is_a_500_without_a_traceback_and_is_logged(
    api, make_user, monkeypatch, caplog
):
    def broken(**kwargs):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(selectors, "hand_history", broken)
    client = api(make_user())
    client.raise_request_exception = False

    with caplog.at_level(logging.ERROR, logger="vipgame.api"):
        response = client.get(url("hands"), HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 500
    assert response.json() == {
        "code": "server_error",
        "message": "Something went wrong on our side. Try again later.",
        "details": {},
    }
    assert "secret detail" not in response.content.decode()
    assert "RuntimeError: secret detail" in caplog.text
