from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

SUPPORTED = {code for code, _name in settings.LANGUAGES}


def language_for(cookie: str | None, accept_language: str | None) -> str:
    """The player's chosen language (cookie), else the client's (Accept-Language,
    sent by mobile apps), else Vietnamese."""
    if cookie in SUPPORTED:
        return str(cookie)
    if accept_language:
        for part in accept_language.split(","):
            tag = part.split(";")[0].strip().lower()[:2]
            if tag in SUPPORTED:
                return tag
    return settings.LANGUAGE_CODE


class LanguageMiddleware:
    """Vietnamese first for pages; the API honours Accept-Language.

    Django's LocaleMiddleware would give an English browser English pages;
    this site is Vietnamese unless the player switches (a cookie).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        accept = (
            request.headers.get("Accept-Language") if request.path.startswith("/api/") else None
        )
        language = language_for(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME), accept)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", language)
        translation.deactivate()
        return response
