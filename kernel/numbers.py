"""Numbers as the site shows them."""

from django.utils import translation


def chips(value: object) -> str:
    """A chip count with thousands grouped: 10.000 in Vietnamese, 10,000 in English."""
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return ""
    separator = "." if translation.get_language() == "vi" else ","
    sign = "-" if number < 0 else ""
    return sign + f"{abs(number):,}".replace(",", separator)
