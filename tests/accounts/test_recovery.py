"""Issue 30 item 2, account recovery (accounts/recovery.py): an e-mail address on
the account, optional at sign-up and verified by a link that works once and
expires; password reset by a mailed link that works once and expires; the same
answer whether or not an account exists; limits per client address and per
account; mails in both languages; the browser pages and the API; a reset ends
every session. Mails go through ``django.core.mail.outbox`` (and, once, the file
backend ``make run`` uses); the Celery tasks run in the test's process."""

from __future__ import annotations

import re
import time
import types
from collections.abc import Callable
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core import mail as django_mail
from django.core import signing
from django.test import Client as Browser
from rest_framework.test import APIClient

from accounts import mail, recovery, tasks
from accounts.models import DeviceSession, User
from accounts.services import bot_create, user_session_keys
from accounts.sessions import token_issue
from games import services
from vipgame.checks import production_mail

from ..api.helpers import PASSWORD, error, url
from ..consumers.helpers import Client, browser_socket, still_open
from ..migrating import back_at, models_at
from ..moderation.test_sockets import until_closed

pytestmark = pytest.mark.django_db
NEW = "Mau-Binh-Sap-Ham-77"
LINK = re.compile(r"http://testserver(/accounts/\S+/)")


class Inline:
    """The Celery outbox, run here: each task as the worker would run it."""

    def __init__(self) -> None:
        self.queued: list[tuple[str, dict[str, Any]]] = []

    def send(self, task: str, kwargs: dict[str, Any]) -> None:
        self.queued.append((task, kwargs))
        getattr(tasks, task.rsplit(".", 1)[1]).apply(kwargs=kwargs, throw=True)


@pytest.fixture(autouse=True)
def outbox(monkeypatch, settings) -> Inline:
    inline = Inline()
    monkeypatch.setattr(mail, "outbox", inline)
    settings.SITE_URL = "http://testserver"
    # Only the limits a test is about.
    settings.SIGNUP_RATE = settings.LOGIN_RATE = settings.LOGIN_FAILURE_RATE = None
    settings.PASSWORD_RESET_RATE = settings.PASSWORD_RESET_ACCOUNT_RATE = None
    settings.EMAIL_VERIFY_RATE = None
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"writes": None},
    }
    return inline


@pytest.fixture
def run(django_capture_on_commit_callbacks) -> Callable[..., Any]:
    """Call a view (or a service) and then its after-commit work, as production's
    commit does (the test's own transaction never commits)."""

    def call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return func(*args, **kwargs)

    return call


def english(**defaults: Any) -> Browser:
    browser = Browser(**defaults)
    browser.cookies["django_language"] = "en"
    return browser


def api(language: str = "en", **extra: Any) -> APIClient:
    return APIClient(HTTP_ACCEPT_LANGUAGE=language, **extra)


def api_as(user: User, language: str = "en") -> APIClient:
    return api(language, HTTP_AUTHORIZATION=f"Bearer {token_issue(user=user)}")


def html_of(message: Any) -> str:
    [(html, kind)] = message.alternatives
    assert kind == "text/html"
    return str(html)


def the_link(message: Any) -> str:
    """The page a mail links to (path), the same in its text and its HTML."""
    [path] = set(LINK.findall(message.body))
    assert f'href="http://testserver{path}"' in html_of(message)
    return path


def verified(make_user, address: str, username: str = "lan") -> User:
    user = make_user(username=username)
    user.email = address
    user.save(update_fields=["email"])
    return user


def reset_asked(run, client: APIClient, **body: str) -> Any:
    return run(client.post, url("auth/password-reset"), body, format="json")


# -- the address: sign-up, verification ------------------------------------------------


def test_an_address_given_at_sign_up_waits_for_its_link_which_works_once(run):
    answer = run(
        api("en").post,
        url("auth/signup"),
        {
            "username": "lan",
            "display_name": "Lan",
            "password": PASSWORD,
            "email": "Lan.Nguyen@Example.COM",
        },
        format="json",
    )

    assert answer.status_code == 201, answer.json()
    assert (answer.json()["user"]["email"], answer.json()["user"]["email_pending"]) == (
        "",
        "Lan.Nguyen@example.com",
    )
    [message] = django_mail.outbox
    assert message.to == ["Lan.Nguyen@example.com"]
    assert message.subject == "Confirm your e-mail address for VIPGAME"
    assert "log-in name lan" in message.body
    path = the_link(message)
    browser = Browser()

    shown = browser.get(path)  # a mail scanner opening the link verifies nothing
    assert shown.status_code == 200
    assert "Lan.Nguyen@example.com" in shown.content.decode()
    assert User.objects.get(username="lan").email == ""
    done = browser.post(path)
    again = browser.post(path)

    assert done.status_code == 200
    assert "data-verified" in done.content.decode()
    lan = User.objects.get(username="lan")
    assert (lan.email, lan.email_pending) == ("Lan.Nguyen@example.com", "")
    assert again.status_code == 400
    assert "data-verify-invalid" in again.content.decode()
    token = path.split("/")[-2]
    assert error(api().post(url("auth/email/verify"), {"token": token}, format="json")) == (
        400,
        "invalid_verification_link",
    )
    assert api_as(lan).get(url("me")).json()["email"] == "Lan.Nguyen@example.com"


def test_the_sign_up_page_takes_an_optional_address(run):
    browser = Browser()
    form = {"username": "minh", "display_name": "Minh", "password1": NEW, "password2": NEW}

    without = run(browser.post, "/accounts/signup/", form)
    with_one = run(
        Browser().post,
        "/accounts/signup/",
        {**form, "username": "lan", "display_name": "Lan", "email": "lan@example.com"},
    )

    assert (without.status_code, with_one.status_code) == (302, 302)
    assert User.objects.get(username="minh").email_pending == ""
    assert User.objects.get(username="lan").email_pending == "lan@example.com"
    [message] = django_mail.outbox
    assert message.to == ["lan@example.com"]
    assert "E-mail" in english().get("/accounts/signup/").content.decode()


def test_the_api_verifies_an_address_with_the_links_token(run, make_user):
    lan = make_user(username="lan")
    client = api_as(lan)
    changed = run(client.post, url("me/email"), {"email": "lan@example.com", "password": PASSWORD})
    token = the_link(django_mail.outbox[0]).split("/")[-2]

    first = api().post(url("auth/email/verify"), {"token": token}, format="json")
    second = api().post(url("auth/email/verify"), {"token": token}, format="json")

    assert changed.status_code == 200
    assert changed.json()["email_pending"] == "lan@example.com"
    assert first.status_code == 204
    assert error(second) == (400, "invalid_verification_link")
    me = client.get(url("me")).json()
    assert (me["email"], me["email_pending"]) == ("lan@example.com", "")


def test_a_verification_link_expires(run, make_user, settings, monkeypatch):
    settings.EMAIL_VERIFY_HOURS = 2
    lan = make_user(username="lan")
    then = time.time() - 2 * 3600 - 5
    with monkeypatch.context() as patch:
        patch.setattr(signing, "time", types.SimpleNamespace(time=lambda: then))
        run(recovery.email_set, user=lan, email="lan@example.com", password=PASSWORD)
    path = the_link(django_mail.outbox[0])

    answer = Browser().post(path)

    assert answer.status_code == 400
    assert "has expired" in english().get(path).content.decode()
    assert User.objects.get(pk=lan.pk).email == ""
    # a fresh one works
    run(recovery.verification_resend, user=User.objects.get(pk=lan.pk))
    assert Browser().post(the_link(django_mail.outbox[1])).status_code == 200
    assert User.objects.get(pk=lan.pk).email == "lan@example.com"


def test_a_new_address_retires_the_links_of_before_and_keeps_the_verified_one(run, make_user):
    lan = verified(make_user, "lan@example.com")
    client = api_as(lan)
    run(client.post, url("me/email"), {"email": "first@example.com", "password": PASSWORD})
    run(client.post, url("me/email"), {"email": "second@example.com", "password": PASSWORD})
    first, second = (the_link(message) for message in django_mail.outbox)

    me = client.get(url("me")).json()
    assert (me["email"], me["email_pending"]) == ("lan@example.com", "second@example.com")
    assert Browser().post(first).status_code == 400
    assert Browser().post(second).status_code == 200
    assert User.objects.get(pk=lan.pk).email == "second@example.com"
    # the verified address again: nothing pending, nothing mailed; empty: none at all
    run(client.post, url("me/email"), {"email": "x@example.com", "password": PASSWORD})
    back = run(client.post, url("me/email"), {"email": "SECOND@example.com", "password": PASSWORD})
    assert (back.json()["email"], back.json()["email_pending"]) == ("second@example.com", "")
    gone = run(client.post, url("me/email"), {"email": "", "password": PASSWORD})
    assert (gone.json()["email"], gone.json()["email_pending"]) == ("", "")
    assert len(django_mail.outbox) == 3


def test_changing_the_address_needs_the_password(run, make_user):
    lan = verified(make_user, "lan@example.com")
    client = api_as(lan)

    wrong = run(client.post, url("me/email"), {"email": "evil@example.com", "password": "nope"})
    missing = run(client.post, url("me/email"), {"email": "evil@example.com"}, format="json")

    assert error(wrong) == (400, "wrong_password")
    assert wrong.json()["message"] == "Your current password is wrong."
    assert error(missing) == (400, "invalid")
    lan.refresh_from_db()
    assert (lan.email, lan.email_pending) == ("lan@example.com", "")
    assert django_mail.outbox == []


def test_an_address_in_use_is_accepted_alike_and_mailed_no_link(run, make_user):
    verified(make_user, "lan@example.com", username="lan")
    minh = make_user(username="minh")

    answer = run(
        api_as(minh).post, url("me/email"), {"email": "LAN@example.com", "password": PASSWORD}
    )

    assert answer.status_code == 200
    assert answer.json()["email_pending"] == "LAN@example.com"
    [message] = django_mail.outbox
    assert message.to == ["LAN@example.com"]
    assert message.subject == "Your e-mail address and VIPGAME"
    assert "/accounts/email/verify/" not in message.body
    assert "http://testserver/accounts/password/reset/" in message.body
    # a link sent before the other account verified it: refused, said to its holder
    token = recovery.verification_token(User.objects.get(pk=minh.pk))
    assert error(api().post(url("auth/email/verify"), {"token": token}, format="json")) == (
        409,
        "email_taken",
    )
    assert User.objects.get(pk=minh.pk).email == ""


def test_verification_mails_are_limited_per_account(run, make_user, settings):
    settings.EMAIL_VERIFY_RATE = "2/hour"
    lan = make_user(username="lan")
    client = api_as(lan)
    run(client.post, url("me/email"), {"email": "lan@example.com", "password": PASSWORD})

    resent = run(client.post, url("me/email/resend"))
    refused = run(client.post, url("me/email/resend"))
    other = run(client.post, url("me/email"), {"email": "b@example.com", "password": PASSWORD})

    assert resent.status_code == 204
    assert error(refused) == (429, "throttled")
    assert refused.json()["details"]["wait"] > 3500
    assert error(other) == (429, "throttled")
    assert User.objects.get(pk=lan.pk).email_pending == "lan@example.com"
    assert len(django_mail.outbox) == 2
    assert error(run(api_as(make_user()).post, url("me/email/resend"))) == (
        400,
        "no_email_pending",
    )


# -- password reset ---------------------------------------------------------------------


def test_a_reset_mail_arrives_and_its_link_works_once_in_the_browser(run, make_user):
    lan = verified(make_user, "lan@example.com")

    asked = reset_asked(run, api("en"), email="LAN@EXAMPLE.COM")

    assert asked.status_code == 204
    [message] = django_mail.outbox
    assert message.to == ["lan@example.com"]
    assert message.subject == "Reset your VIPGAME password"
    assert "log-in name: lan" in message.body
    assert "within 60 minutes" in message.body
    path = the_link(message)
    browser = Browser()
    form = browser.get(path, follow=True)
    assert form.status_code == 200
    assert "data-reset-confirm" in form.content.decode()
    set_page = form.redirect_chain[-1][0]
    assert "set-password" in set_page

    done = browser.post(set_page, {"new_password1": NEW, "new_password2": NEW})

    assert (done.status_code, done["Location"]) == (302, "/accounts/reset/done/")
    lan.refresh_from_db()
    assert lan.check_password(NEW)
    assert (
        Browser().post("/accounts/login/", {"username": "lan", "password": NEW}).status_code == 302
    )
    again = Browser().get(path, follow=True)
    assert "data-reset-invalid" in again.content.decode()
    assert "data-reset-confirm" not in again.content.decode()


def test_the_api_sets_the_new_password_once_with_the_links_uid_and_token(run, make_user):
    lan = verified(make_user, "lan@example.com")
    reset_asked(run, api(), username="LAN")
    uid, token = the_link(django_mail.outbox[0]).split("/")[-3:-1]
    assert f"{uid} {token}" in django_mail.outbox[0].body  # the code for apps
    confirm = {"uid": uid, "token": token}

    weak = api().post(url("auth/password-reset/confirm"), {**confirm, "new_password": "123"})
    done = api().post(url("auth/password-reset/confirm"), {**confirm, "new_password": NEW})
    again = api().post(url("auth/password-reset/confirm"), {**confirm, "new_password": NEW + "x"})
    forged = api().post(
        url("auth/password-reset/confirm"), {"uid": "MQ", "token": "abc-def", "new_password": NEW}
    )

    assert error(weak) == (400, "invalid")
    assert list(weak.json()["details"]) == ["new_password"]
    assert done.status_code == 204
    assert error(again) == (400, "invalid_reset_link")
    assert again.json()["message"].startswith("This password reset link is not valid")
    assert error(forged) == (400, "invalid_reset_link")
    lan.refresh_from_db()
    assert lan.check_password(NEW)


def test_an_expired_reset_link_is_refused(run, make_user, settings, monkeypatch):
    settings.PASSWORD_RESET_MINUTES = 30
    settings.PASSWORD_RESET_TIMEOUT = 30 * 60
    lan = verified(make_user, "lan@example.com")
    reset_asked(run, api(), email="lan@example.com")
    path = the_link(django_mail.outbox[0])
    uid, token = path.split("/")[-3:-1]
    real_now = PasswordResetTokenGenerator._now
    monkeypatch.setattr(
        PasswordResetTokenGenerator,
        "_now",
        lambda self: real_now(self) + timedelta(minutes=31),
    )

    answer = api().post(
        url("auth/password-reset/confirm"), {"uid": uid, "token": token, "new_password": NEW}
    )
    page = Browser().get(path, follow=True)

    assert error(answer) == (400, "invalid_reset_link")
    assert "data-reset-invalid" in page.content.decode()
    assert "within 30 minutes" in django_mail.outbox[0].body
    lan.refresh_from_db()
    assert lan.check_password(PASSWORD)


def answer_of(response: Any) -> tuple[int, bytes, tuple[tuple[str, str], ...]]:
    varying = {"Date", "Content-Length", "X-Request-ID"}
    headers = tuple(sorted((k, v) for k, v in response.items() if k not in varying))
    return response.status_code, response.content, headers


def test_an_unknown_address_is_answered_as_a_known_one(run, make_user, outbox):
    verified(make_user, "lan@example.com", username="lan")
    minh = make_user(username="minh")
    minh.email_pending = "minh@example.com"  # never verified
    minh.save(update_fields=["email_pending"])
    bot = bot_create(username="bot-lan", display_name="Bot Lan")
    User.objects.filter(pk=bot.pk).update(email="bot@example.com")
    inactive = verified(make_user, "gone@example.com", username="gone")
    User.objects.filter(pk=inactive.pk).update(is_active=False)

    known = reset_asked(run, api(), email="lan@example.com")
    others = [
        reset_asked(run, api(), email="nobody@example.com"),
        reset_asked(run, api(), email="minh@example.com"),
        reset_asked(run, api(), username="nobody"),
        reset_asked(run, api(), username="minh"),
        reset_asked(run, api(), username="bot-lan"),
        reset_asked(run, api(), email="bot@example.com"),
        reset_asked(run, api(), email="gone@example.com"),
    ]

    assert known.status_code == 204
    assert {answer_of(other) for other in others} == {answer_of(known)}
    # the request did the same work each time: one task queued
    assert len(outbox.queued) == 1 + len(others)
    assert [m.to for m in django_mail.outbox] == [["lan@example.com"]]  # bots: never
    # the page: the same page whatever was typed
    pages = [
        run(Browser().post, "/accounts/password/reset/", {"login": login}, follow=True)
        for login in ("lan", "nobody", "lan@example.com", "minh@example.com")
    ]
    assert {page.redirect_chain[-1][0] for page in pages} == {"/accounts/password/reset/sent/"}
    csrf = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]*"')
    assert len({csrf.sub(b"", page.content) for page in pages}) == 1
    assert [m.to for m in django_mail.outbox[1:]] == [["lan@example.com"]] * 2


def test_a_reset_asks_for_one_of_email_or_username(run):
    both = reset_asked(run, api(), email="a@example.com", username="a")
    neither = reset_asked(run, api())
    not_an_address = reset_asked(run, api(), email="lan")

    for answer in (both, neither, not_an_address):
        assert error(answer) == (400, "invalid")
    assert set(neither.json()["details"]) == {"email", "username"}


def test_reset_requests_are_limited_per_client_address(run, make_user, settings):
    settings.PASSWORD_RESET_RATE = "2/hour"
    verified(make_user, "lan@example.com")
    here, there = api(REMOTE_ADDR="10.0.0.1"), api(REMOTE_ADDR="10.0.0.2")

    answers = [
        reset_asked(run, here, email="lan@example.com"),
        reset_asked(run, here, email="nobody@example.com"),
        reset_asked(run, here, email="lan@example.com"),
        reset_asked(run, here, email="other@example.com"),
    ]

    assert [a.status_code for a in answers] == [204, 204, 429, 429]
    assert error(answers[2]) == (429, "throttled")
    assert answers[2]["Retry-After"] == str(answers[2].json()["details"]["wait"])
    assert answer_of(answers[2])[0] == answer_of(answers[3])[0]
    assert reset_asked(run, there, email="lan@example.com").status_code == 204
    assert len(django_mail.outbox) == 2
    # the page counts in the same window
    page = run(Browser(REMOTE_ADDR="10.0.0.1").post, "/accounts/password/reset/", {"login": "lan"})
    assert page.status_code == 429


def test_reset_requests_are_limited_per_account_whether_or_not_it_exists(run, make_user, settings):
    settings.PASSWORD_RESET_ACCOUNT_RATE = "2/hour"
    verified(make_user, "lan@example.com")

    def from_(n: int, **body: str) -> Any:
        return reset_asked(run, api(REMOTE_ADDR=f"10.0.1.{n}"), **body)

    known = [from_(n, email="lan@example.com").status_code for n in range(3)]
    unknown = [from_(n, email="nobody@example.com").status_code for n in range(3)]

    assert known == unknown == [204, 204, 429]
    assert len(django_mail.outbox) == 2
    # by the username, from yet other addresses: answered, but the account gets
    # no more mails in the window (silently: the answer is the same)
    assert [from_(n, username="lan").status_code for n in range(5, 7)] == [204, 204]
    assert len(django_mail.outbox) == 2


def test_a_reset_ends_every_session_of_the_account(run, make_user):
    lan = verified(make_user, "lan@example.com")
    phone, tablet = token_issue(user=lan), token_issue(user=lan)
    browser = Browser()
    browser.force_login(lan)
    minh = make_user(username="minh")
    minh_token = token_issue(user=minh)
    reset_asked(run, api(), email="lan@example.com")
    uid, token = the_link(django_mail.outbox[0]).split("/")[-3:-1]

    done = run(
        api().post,
        url("auth/password-reset/confirm"),
        {"uid": uid, "token": token, "new_password": NEW},
    )

    assert done.status_code == 204
    for access in (phone, tablet):
        assert error(api(HTTP_AUTHORIZATION=f"Bearer {access}").get(url("me"))) == (
            401,
            "not_authenticated",
        )
    assert not DeviceSession.objects.filter(user=lan).exists()
    assert user_session_keys(lan) == []
    assert browser.get("/wallet/").status_code == 302
    assert api(HTTP_AUTHORIZATION=f"Bearer {minh_token}").get(url("me")).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_reset_closes_the_accounts_sockets(make_user):
    lan = verified(make_user, "lan@example.com")
    minh = make_user(username="minh")
    phone, minh_token = token_issue(user=lan), token_issue(user=minh)
    tab = Browser()
    tab.force_login(lan)
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    assert api().post(url("auth/password-reset"), {"email": "lan@example.com"}).status_code == 204
    uid, token = the_link(django_mail.outbox[0]).split("/")[-3:-1]

    async def scenario():
        sockets = Client(path, phone), browser_socket(tab, path), Client(path, minh_token)
        for socket in sockets:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        body = {"uid": uid, "token": token, "new_password": NEW}
        done = await sync_to_async(api().post)(url("auth/password-reset/confirm"), body)
        assert done.status_code == 204
        for socket in sockets[:2]:
            messages, code = await until_closed(socket)
            assert (code, messages[-1]) == (4400, {"type": "event", "event": "logged_out"})
        assert await still_open(sockets[2])
        await sockets[2].close()

    async_to_sync(scenario)()


# -- languages, pages -----------------------------------------------------------------


def test_mails_and_pages_speak_the_language_asked_for(run, make_user):
    verified(make_user, "lan@example.com")

    reset_asked(run, api("vi"), email="lan@example.com")
    reset_asked(run, api("en"), email="lan@example.com")
    run(
        english().post,
        "/accounts/password/reset/",
        {"login": "lan"},
    )

    vi, en, page_en = django_mail.outbox
    assert vi.subject == "Đặt lại mật khẩu VIPGAME của bạn"
    assert "Đặt lại" in html_of(vi)
    assert vi.extra_headers["Content-Language"] == "vi"
    assert en.subject == page_en.subject == "Reset your VIPGAME password"
    assert en.extra_headers["Content-Language"] == "en"
    assert "Quên mật khẩu?" in Browser().get("/accounts/password/reset/").content.decode()
    page = english().get("/accounts/password/reset/")
    assert "Forgot your password?" in page.content.decode()
    assert "Quên mật khẩu?" in Browser().get("/accounts/login/").content.decode()
    refused = api("vi").post(
        url("auth/password-reset/confirm"), {"uid": "MQ", "token": "a-b", "new_password": NEW}
    )
    assert refused.json()["message"].startswith("Liên kết đặt lại mật khẩu này không hợp lệ")


def test_the_profile_page_sets_and_shows_the_address(run, make_user):
    lan = make_user(username="lan")
    browser = english()
    browser.force_login(lan)

    wrong = run(browser.post, "/accounts/email/", {"email": "lan@example.com", "password": "no"})
    saved = run(
        browser.post, "/accounts/email/", {"email": "lan@example.com", "password": PASSWORD}
    )
    page = browser.get("/accounts/profile/").content.decode()

    assert wrong.status_code == 400
    assert "Your current password is wrong." in wrong.content.decode()
    assert saved.status_code == 302
    assert "data-email-pending" in page
    assert "lan@example.com" in page
    assert "We mailed a link to lan@example.com" in page
    resent = run(browser.post, "/accounts/email/resend/")
    assert resent.status_code == 302
    assert len(django_mail.outbox) == 2
    assert Browser().post(the_link(django_mail.outbox[1])).status_code == 200
    assert "data-email-verified" in browser.get("/accounts/profile/").content.decode()


def test_through_the_file_backend_as_make_run_sends_it(run, make_user, settings, tmp_path):
    """``make run`` writes each mail to a file in VAR_DIR/mail: the reset link
    read from that file works once."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    verified(make_user, "lan@example.com")

    run(Browser().post, "/accounts/password/reset/", {"login": "lan@example.com"})

    [written] = list(Path(settings.EMAIL_FILE_PATH).iterdir())
    message = message_from_bytes(written.read_bytes().rsplit(b"\n" + b"-" * 79, 1)[0])
    assert message["To"] == "lan@example.com"
    [text] = [
        bytes(part.get_payload(decode=True)).decode()
        for part in message.walk()
        if part.get_content_type() == "text/plain"
    ]
    [path] = set(LINK.findall(text))
    browser = Browser()
    set_page = browser.get(path, follow=True).redirect_chain[-1][0]
    done = browser.post(set_page, {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302
    assert User.objects.get(username="lan").check_password(NEW)
    assert "data-reset-invalid" in Browser().get(path, follow=True).content.decode()


# -- production settings ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "refused"),
    [
        ({"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}, ["E003"]),
        ({"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend"}, ["E003"]),
        ({"EMAIL_HOST": ""}, ["E003"]),
        ({"DEFAULT_FROM_EMAIL": "VIPGAME <noreply@localhost>"}, ["E004"]),
        ({"EMAIL_HOST": "", "DEFAULT_FROM_EMAIL": "nobody"}, ["E003", "E004"]),
        ({}, []),
    ],
)
def test_production_refuses_mail_that_goes_nowhere(settings, given, refused):
    settings.DEBUG = False
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "smtp.example.com"
    settings.DEFAULT_FROM_EMAIL = "VIPGAME <noreply@cards.example.com>"
    for name, value in given.items():
        setattr(settings, name, value)

    assert sorted(str(e.id).removeprefix("vipgame.") for e in production_mail()) == refused
    settings.DEBUG = True
    assert production_mail() == []


# -- the migration ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_addresses_of_before_wait_for_verification_and_the_release_before_still_signs_up():
    """Migration 0008: an address set before (the admin, createsuperuser) was
    never verified: it moves to ``email_pending`` (two accounts with one
    address do not stop the migration); the column's database default lets
    the release before it create accounts."""
    with back_at("accounts", "0007_legacy_tokens") as forward:
        old = models_at("accounts", "0007_legacy_tokens").get_model("accounts", "User")
        staff = old.objects.create(username="boss", display_name="Boss", email="Boss@x.vn")
        twin = old.objects.create(username="boss2", display_name="Boss Two", email="boss@x.vn")
        none = old.objects.create(username="lan", display_name="Lan")

        after = forward("0008_email_verified").get_model("accounts", "User")

        rows = after.objects.order_by("pk").values_list("pk", "email", "email_pending")
        assert list(rows) == [
            (staff.pk, "", "Boss@x.vn"),
            (twin.pk, "", "boss@x.vn"),
            (none.pk, "", ""),
        ]
        created = old.objects.create(username="minh", display_name="Minh")
        assert after.objects.get(pk=created.pk).email_pending == ""
