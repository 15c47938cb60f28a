from django import template

from accounts import avatars

register = template.Library()


@register.filter
def avatar_url(key: str) -> str:
    """The SVG file of an avatar (``{{ user.avatar_key|avatar_url }}``)."""
    return avatars.avatar_url(key)


@register.simple_tag
def avatar_urls() -> dict[str, str]:
    """Every avatar's file by key, for the pages' scripts (static/js/avatars.js)."""
    return avatars.avatar_urls()
