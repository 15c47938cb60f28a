"""What a user agent says of a browser (ua-parser, the ua-parser project's
rules): the name a browser session has in the list of sessions."""

from __future__ import annotations

from functools import lru_cache

from django.utils.translation import gettext as _
from ua_parser import parse as parse_user_agent


@lru_cache(maxsize=512)
def _parts(user_agent: str) -> tuple[str, str]:
    parsed = parse_user_agent(user_agent)
    agent, system = parsed.user_agent, parsed.os
    browser = f"{agent.family} {agent.major or ''}".strip() if agent else ""
    return browser, (system.family if system else "")


def browser_name(user_agent: str) -> str:
    """What the list calls a browser: its browser and system from the user
    agent ("Firefox 128 on Linux"), or what is known of them."""
    browser, system = _parts(user_agent[:200]) if user_agent else ("", "")
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system or _("A browser")
