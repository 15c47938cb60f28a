"""The player's language: the one rule pages (``vipgame.middleware``) and
sockets (``games.consumers``) share."""

from django.conf import settings

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
