"""Playing cards drawn server-side with the markup of static/js/cards.js
(``cardEl``), so that the rules pages show cards without JavaScript:
``{% cards "Ah Kd Td" %}``. Each card is an image to assistive technology,
named by its rank and suit ("A♥")."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

SUITS = {"s": "♠", "c": "♣", "d": "♦", "h": "♥"}
RANKS = {"T": "10"}


def card_label(card: str) -> str:
    """``Td`` → ``10♦`` (the page's way of writing a card)."""
    return RANKS.get(card[:-1], card[:-1]) + SUITS[card[-1]]


def _card(card: str) -> SafeString:
    rank, suit = RANKS.get(card[:-1], card[:-1]), SUITS[card[-1]]
    colour = "red" if card[-1] in "dh" else "black"
    return format_html(
        '<span class="card {}" data-card="{}" role="img" aria-label="{}">'
        '<span class="corner" aria-hidden="true">'
        '<span class="r">{}</span><span class="s">{}</span></span>'
        '<span class="pip" aria-hidden="true">{}</span></span>',
        colour, card, rank + suit, rank, suit, suit,
    )  # fmt: skip


@register.simple_tag
def cards(text: str, small: bool = False) -> SafeString:
    """A row of cards from their text form, separated by spaces."""
    row = format_html_join("", "{}", ((_card(c),) for c in text.split()))
    size = " small" if small else ""
    return format_html('<span class="cards rule-cards{}">{}</span>', size, row)
