"""Browsers in the list of sessions (accounts.sessions, docs/api.md "Log-in
and tokens"): a browser logged in to the site is listed beside the apps'
device sessions (its browser and system from the user agent, address, last
seen, this one marked), can be logged out alone from a device or the profile
page (its sockets close 4400), and "log out everywhere" ends it too."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import Client as Browser
from django.urls import reverse

from accounts.models import BrowserSession
from games import services

from ..api.helpers import PASSWORD, error, url
from ..consumers.helpers import browser_socket, still_open
from ..moderation.test_sockets import until_closed
from .test_devices import LOGGED_OUT, client, log_in

pytestmark = pytest.mark.django_db
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SAFARI = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)


def browser_logged_in(username: str, agent: str) -> Browser:
    """A browser that logged in through the site's log-in page."""
    browser = Browser(HTTP_USER_AGENT=agent)
    answer = browser.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert answer.status_code == 302, answer.content
    return browser


def listed(api) -> list[dict]:
    answer = api.get(url("me/sessions"))
    assert answer.status_code == 200
    return answer.json()


def test_a_browser_is_listed_beside_the_devices_named_from_its_user_agent(make_user):
    lan = make_user(username="lan")
    phone = log_in(device_name="Lan's iPhone", platform="ios")
    firefox = browser_logged_in("lan", FIREFOX)
    make_user(username="minh")
    browser_logged_in("minh", SAFARI)  # someone else's: never listed

    from_phone = listed(client(phone["token"]))
    from_browser = listed(firefox)  # the site's own cookie: the same list

    row = BrowserSession.objects.get(user=lan)
    assert [(r["kind"], r["id"], r["current"]) for r in from_phone] == [
        ("browser", row.pk, False),
        ("device", phone["session"]["id"], True),
    ]
    assert [(r["kind"], r["current"]) for r in from_browser] == [
        ("browser", True),
        ("device", False),
    ]
    seen = from_phone[0]
    assert seen["name"] == "Firefox 128 trên Linux"  # the API's default language
    assert seen["platform"] == "web"
    assert seen["user_agent"] == FIREFOX
    assert seen["address"] == "127.0.0.1"
    assert seen["created"] <= seen["last_seen"]


def test_a_browser_logged_out_or_expired_is_not_listed(make_user):
    make_user(username="lan")
    phone = log_in()
    gone, expired = browser_logged_in("lan", FIREFOX), browser_logged_in("lan", SAFARI)
    assert [r["kind"] for r in listed(client(phone["token"]))].count("browser") == 2

    gone.post(reverse("logout"))
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    key = expired.cookies["sessionid"].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now())

    assert [r["kind"] for r in listed(client(phone["token"]))] == ["device"]
    assert not BrowserSession.objects.exclude(session_id=key).exists()


@pytest.mark.django_db(transaction=True)
def test_a_browser_logged_out_from_a_device_loses_its_session_and_sockets(make_user):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    phone = log_in(device_name="Phone")
    lost, kept = browser_logged_in("lan", FIREFOX), browser_logged_in("lan", SAFARI)
    lost_id = BrowserSession.objects.get(user_agent=FIREFOX).pk
    minh_browser = browser_logged_in("minh", FIREFOX)
    minh_id = BrowserSession.objects.get(user=minh).pk

    async def scenario():
        theirs, mine = browser_socket(lost, path), browser_socket(kept, path)
        for socket in (theirs, mine):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        ended = await sync_to_async(client(phone["token"]).delete)(
            url(f"me/browser-sessions/{lost_id}")
        )
        assert ended.status_code == 204
        messages, code = await until_closed(theirs)
        assert (code, messages[-1]) == LOGGED_OUT
        assert await still_open(mine)
        await mine.close()

    async_to_sync(scenario)()

    assert lost.get("/wallet/").status_code == 302  # back to the log-in page
    assert kept.get("/wallet/").status_code == 200
    assert [r["name"] for r in listed(client(phone["token"])) if r["kind"] == "browser"] == [
        "Mobile Safari 17 trên iOS"
    ]
    again = client(phone["token"]).delete(url(f"me/browser-sessions/{lost_id}"))
    someone_elses = client(phone["token"]).delete(url(f"me/browser-sessions/{minh_id}"))
    assert error(again) == (404, "session_not_found")
    assert error(someone_elses) == (404, "session_not_found")
    assert minh_browser.get("/wallet/").status_code == 200


def test_the_profile_page_lists_the_browsers_marks_this_one_and_logs_one_out(make_user):
    make_user(username="lan")
    here, there = browser_logged_in("lan", FIREFOX), browser_logged_in("lan", SAFARI)
    log_in(device_name="Lan's iPhone")
    here_row = BrowserSession.objects.get(user_agent=FIREFOX)
    there_row = BrowserSession.objects.get(user_agent=SAFARI)

    page = here.get(reverse("profile")).content.decode()

    assert f'data-browser="{here_row.pk}" data-this-browser' in page
    assert f'data-browser="{there_row.pk}">' in page
    assert "Firefox 128 trên Linux" in page  # the site's pages: Vietnamese first
    assert "Mobile Safari 17 trên iOS" in page
    assert "trình duyệt này" in page
    assert "Lan&#x27;s iPhone" in page

    out = here.post(reverse("browser_logout", args=[there_row.pk]), follow=True)
    assert "Trình duyệt đó đã được đăng xuất." in out.content.decode()
    assert there.get("/wallet/").status_code == 302
    assert f'data-browser="{there_row.pk}"' not in here.get(reverse("profile")).content.decode()

    unknown = here.post(reverse("browser_logout", args=[there_row.pk]), follow=True)
    assert "Bạn không có phiên đăng nhập nào mang mã số này" in unknown.content.decode()

    mine = here.post(reverse("browser_logout", args=[here_row.pk]))
    assert mine.status_code == 302
    assert mine["Location"] == reverse("login")
    assert here.get("/wallet/").status_code == 302
    assert not BrowserSession.objects.exists()


def test_the_list_is_in_the_language_asked(make_user):
    make_user(username="lan")
    phone = log_in()
    browser_logged_in("lan", FIREFOX)
    names = {
        language: listed(client(phone["token"], HTTP_ACCEPT_LANGUAGE=language))[0]["name"]
        for language in ("en", "vi")
    }
    assert names == {"en": "Firefox 128 on Linux", "vi": "Firefox 128 trên Linux"}
