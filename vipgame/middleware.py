from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from kernel.language import language_for


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
