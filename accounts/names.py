"""Names that cannot impersonate (docs/security.md, "Names and player cards").

A display name is normalised (NFC, edge spaces stripped, inner runs of spaces
made one) and refused when it holds a control, text-direction or invisible
character, more than two combining marks on one letter (Vietnamese needs two:
"ệ" is e, circumflex, dot below), a staff word ("admin", "quản trị"...), a
bot's name, or the name of another player. Names are compared on a
*skeleton*: Unicode TR39's idea (compatibility-decomposed, look-alike letters
of Cyrillic and Greek mapped to Latin ones) made case- and accent-insensitive
(marks dropped, "đ" is "d", case folded). No confusables package is installed:
``LOOKALIKES`` is a small explicit table for the scripts players use here.

Usernames (log-in names) are unique by skeleton too: a Cyrillic "а" twin of a
Latin username is refused. Both skeletons are stored (``User.display_key``,
``User.username_key``) under unique indexes, so two sign-ups racing for twin
names cannot both win.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from kernel.errors import ServiceError

from .bots import BOT_FAMILY_NAMES, BOT_GIVEN_NAMES, bot_name

MAX_MARKS = 2  # combining marks on one letter (NFD): "ệ" = e + ̂ + ̣
DISPLAY_KEY_MAX, USERNAME_KEY_MAX = 200, 600  # User.display_key, User.username_key

# Look-alikes of Latin letters and digits (TR39 confusables, the part that matters
# for names typed here). Applied before case folding (capitals) and after it.
LOOKALIKES = str.maketrans(
    {
        # Cyrillic capitals and small letters
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q",
        "Ԝ": "W", "Ү": "Y", "Һ": "H", "Ӏ": "l",
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s",
        "і": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y",
        "к": "k", "м": "m", "н": "h", "т": "t", "в": "b", "п": "n", "г": "r", "ь": "b",
        "ё": "e", "ї": "i", "ғ": "f",
        # Greek capitals and small letters
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        "α": "a", "ο": "o", "ρ": "p", "ι": "i", "κ": "k", "ν": "v", "υ": "u", "χ": "x",
        "γ": "y", "η": "n", "τ": "t", "ε": "e", "β": "b", "μ": "u", "ω": "w",
        # Latin letters that read as others once marks are gone
        "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "ı": "i", "ł": "l", "Ł": "L", "ø": "o",
        "Ø": "O", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
        # Digits and signs that read as letters
        "0": "o", "1": "l", "|": "l", "$": "s", "@": "a",
    }
)  # fmt: skip

# Characters shown as nothing (or as a blank) that Unicode does not class as
# format characters: fillers, the braille blank, variation selectors, the
# combining grapheme joiner.
INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
)
# Control (Cc), format (Cf: zero-width, bidi overrides, tags), private use,
# surrogates, unassigned, line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})

# Words that make a name look like the site's staff, in Vietnamese and English:
# refused anywhere in a name as a run of its words ("Quản trị viên", "Ad Min").
STAFF_WORDS = (
    "admin", "administrator", "quản trị", "ban quản trị", "bqt", "moderator", "mod",
    "điều hành", "kiểm duyệt", "hỗ trợ", "support", "staff", "nhân viên", "system",
    "hệ thống", "vipgame", "vip game", "chăm sóc khách hàng", "cskh", "official",
    "chính thức", "ban quản lý", "root", "superuser", "owner", "chủ sòng",
)  # fmt: skip
# Long enough to be refused even inside another word ("AdminLan").
STAFF_INSIDE = ("admin", "moderator", "vipgame", "quantri", "dieuhanh", "support", "superuser")


class NameRefused(ServiceError):
    """A refused name; ``details.field`` names the field."""

    status = 400

    def __init__(self, field: str = "display_name") -> None:
        super().__init__()
        self.field = field

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"field": self.field}}


class NameCharacters(NameRefused):
    code = "name_characters"
    template = _(
        "A name may not hold control, invisible or text-direction characters, nor line breaks."
    )


class NameMarks(NameRefused):
    code = "name_marks"
    template = _("Too many accent marks on one letter: at most two, as in “ệ”.")


class NameReserved(NameRefused):
    code = "name_reserved"
    template = _("This name is reserved: it looks like the site's staff or one of its bots.")


class NameTaken(NameRefused):
    code = "name_taken"
    template = _("Another player already has this name or one that looks the same.")


class UsernameTaken(NameRefused):
    code = "username_taken"
    template = _("This username is taken (or one that looks the same is).")

    def __init__(self) -> None:
        super().__init__(field="username")


def skeleton(text: str) -> str:
    """What a text looks like, case and accents aside: two texts read the same
    when their skeletons are equal."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(
        c for c in decomposed if not unicodedata.combining(c) and not _invisible(c)
    ).translate(LOOKALIKES)
    return unicodedata.normalize("NFKD", kept.casefold()).translate(LOOKALIKES)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", skeleton(text))


def display_key(name: str) -> str:
    """A display name's skeleton without spaces or punctuation: "Minh Anh",
    "minh-anh" and "MİNH ÀNH" share one. Cut to its column's size (NFKD may
    make one character many: "ﷺ" is 18 letters)."""
    return "".join(_words(name))[:DISPLAY_KEY_MAX]


def username_key(username: str) -> str:
    return skeleton(username)[:USERNAME_KEY_MAX]


def _invisible(c: str) -> bool:
    return c in INVISIBLE or unicodedata.category(c) in REFUSED_CATEGORIES


def visible(text: str) -> str:
    """The text without what ``NameCharacters`` refuses (other spaces made plain)."""
    return "".join(" " if c.isspace() else c for c in text if c.isspace() or not _invisible(c))


def display_name_normalize(name: str) -> str:
    """NFC, spaces at the edges stripped and inner runs of spaces made one;
    refuses what ``NameCharacters`` and ``NameMarks`` say."""
    name = unicodedata.normalize("NFC", name)
    if any(_invisible(c) or (c.isspace() and c != " ") for c in name):
        raise NameCharacters()
    base = ""
    run = 0
    for c in unicodedata.normalize("NFD", name):
        if unicodedata.combining(c):
            run += 1
            if run > MAX_MARKS or not base.isalpha():
                raise NameMarks()
        else:
            base, run = c, 0
    return " ".join(name.split())


@cache
def _staff_keys() -> frozenset[str]:
    return frozenset(display_key(word) for word in STAFF_WORDS)


@cache
def bot_keys() -> frozenset[str]:
    """Every name a bot of the pool may get (``bots.bot_name``)."""
    count = len(BOT_GIVEN_NAMES) * (len(BOT_FAMILY_NAMES) + 1)
    return frozenset(display_key(bot_name(i)) for i in range(count))


def looks_like_staff(name: str) -> bool:
    words = _words(name)
    key = "".join(words)
    if any(inside in key for inside in STAFF_INSIDE):
        return True
    staff = _staff_keys()
    return any(
        "".join(words[start:end]) in staff
        for start in range(len(words))
        for end in range(start + 1, len(words) + 1)
    )


def display_name_check(*, name: str, user_id: int | None = None, staff: bool = False) -> str:
    """The name to store, or a ``NameRefused``: a player's display name (sign-up,
    profile, API, admin). ``user_id``: the player renamed (their own name is
    not "taken"); ``staff``: a staff account, which may use the staff words."""
    name = display_name_normalize(name)
    key = display_key(name)
    if not key:
        raise NameCharacters()
    if (not staff and looks_like_staff(name)) or key in bot_keys():
        raise NameReserved()
    others = get_user_model().objects.filter(display_key=key).exclude(pk=user_id or 0)
    if others.filter(is_bot=True).exists():
        raise NameReserved()
    if others.exists():
        raise NameTaken()
    return name


def username_check(*, username: str, user_id: int | None = None) -> str:
    """A username nobody has under any look-alike spelling, or ``UsernameTaken``."""
    username = unicodedata.normalize("NFC", username)
    if any(_invisible(c) for c in username):
        raise NameCharacters(field="username")
    others = get_user_model().objects.exclude(pk=user_id or 0)
    if (
        others.filter(username_key=username_key(username)).exists()
        or others.filter(username__iexact=username).exists()
    ):
        raise UsernameTaken()
    return username
