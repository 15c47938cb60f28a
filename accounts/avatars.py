"""Players' avatars: sixteen illustrated faces drawn here, as SVG.

The files under ``static/img/avatars/`` are this module's output (``python -m
accounts.avatars`` writes them; a test checks they match), so nothing
is downloaded and the art can change in one place. A player picks one
(``User.avatar``); until then their avatar follows from their id.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from django.templatetags.static import static
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

FOLDER = "img/avatars"

# Each skin tone: the face, and the shade of the neck, ears and nose.
SKINS = {
    "light": ("#f6d3b3", "#e9b994"),
    "tan": ("#e2ad7f", "#cf9465"),
    "deep": ("#b97a4f", "#9f6440"),
}
INK = "#2b2118"


@dataclass(frozen=True)
class Face:
    key: str
    label: Promise
    background: str
    shirt: str
    skin: str = "light"
    hair: str = "short"  # short, side, spiky, bob, long, bun, ponytail, bald
    hair_colour: str = "#2b2118"
    hat: str = ""  # non_la, cap, headband
    hat_colour: str = ""
    eyes: str = "dots"  # dots, happy, wink
    mouth: str = "smile"  # smile, grin, open
    glasses: bool = False
    beard: bool = False
    earrings: bool = False
    blush: bool = False


FACES = (
    Face("non-la", _("Conical hat"), "#8fd3c1", "#2e7d6b", hat="non_la", hair="long", blush=True),
    Face("glasses", _("Glasses"), "#ffd166", "#3d5a80", hair="side", glasses=True),
    Face("bun", _("Hair bun"), "#f4a6a6", "#7b2d43", skin="tan", hair="bun", earrings=True),
    Face(
        "cap",
        _("Cap"),
        "#9bc7ff",
        "#c62828",
        hair="short",
        hat="cap",
        hat_colour="#c62828",
        mouth="grin",
    ),
    Face(
        "grandpa",
        _("Grandpa"),
        "#d7ccc8",
        "#5d4037",
        hair="bald",
        hair_colour="#e0e0e0",
        beard=True,
        glasses=True,
    ),
    Face(
        "bob",
        _("Bob cut"),
        "#c5b3ff",
        "#4a3aa8",
        hair="bob",
        hair_colour="#4e342e",
        eyes="happy",
        blush=True,
    ),
    Face("spiky", _("Spiky hair"), "#ffb870", "#1e5631", skin="tan", hair="spiky", mouth="open"),
    Face(
        "ponytail", _("Ponytail"), "#a8e6a1", "#b8860b", skin="deep", hair="ponytail", eyes="wink"
    ),
    Face(
        "headband",
        _("Headband"),
        "#ff9f9f",
        "#263238",
        hair="short",
        hat="headband",
        hat_colour="#e53935",
        mouth="grin",
    ),
    Face(
        "auntie",
        _("Auntie"),
        "#f9e0a8",
        "#8e24aa",
        skin="tan",
        hair="bob",
        hair_colour="#5d4037",
        glasses=True,
        earrings=True,
    ),
    Face(
        "student",
        _("Student"),
        "#b3e5fc",
        "#ffffff",
        hair="side",
        hair_colour="#3e2723",
        eyes="happy",
    ),
    Face(
        "uncle",
        _("Uncle"),
        "#ffe082",
        "#0d5c3a",
        skin="deep",
        hair="short",
        hair_colour="#424242",
        beard=True,
    ),
    Face(
        "long-hair",
        _("Long hair"),
        "#e1bee7",
        "#00838f",
        hair="long",
        hair_colour="#3e2723",
        mouth="open",
        blush=True,
    ),
    Face(
        "farmer",
        _("Farmer"),
        "#c8e6c9",
        "#6d4c41",
        skin="tan",
        hat="non_la",
        hair="short",
        beard=True,
        mouth="grin",
    ),
    Face(
        "gamer",
        _("Gamer"),
        "#90caf9",
        "#212121",
        skin="deep",
        hair="spiky",
        hair_colour="#1a237e",
        glasses=True,
        eyes="happy",
    ),
    Face(
        "lucky",
        _("Lucky"),
        "#ffccbc",
        "#c62828",
        hair="bun",
        hair_colour="#212121",
        hat="headband",
        hat_colour="#f2c14e",
        eyes="wink",
        blush=True,
    ),
)
AVATARS: tuple[str, ...] = tuple(face.key for face in FACES)
CHOICES = [(face.key, face.label) for face in FACES]


def default_avatar(user_id: int) -> str:
    """The avatar of a player who has not picked one: from their id, so it never changes."""
    return AVATARS[user_id % len(AVATARS)]


def avatar_url(key: str) -> str:
    return static(f"{FOLDER}/{key}.svg")


def avatar_urls() -> dict[str, str]:
    return {key: avatar_url(key) for key in AVATARS}


# -- the drawing -------------------------------------------------------------


def _attrs(attrs: dict[str, object]) -> str:
    return "".join(f' {name.replace("_", "-")}="{value}"' for name, value in attrs.items())


def _circle(cx: float, cy: float, r: float, fill: str, **attrs: object) -> str:
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}"{_attrs(attrs)}/>'


def _path(d: str, fill: str = "none", **attrs: object) -> str:
    return f'<path d="{d}" fill="{fill}"{_attrs(attrs)}/>'


def _line(d: str, colour: str, width: float) -> str:
    return _path(d, stroke=colour, stroke_width=width, stroke_linecap="round")


def _hair_back(face: Face) -> str:
    c = face.hair_colour
    if face.hair == "long":
        return f'<path d="M17 30C16 14 24 10 32 10S48 14 47 30L49 52H15Z" fill="{c}"/>'
    if face.hair == "bob":
        return f'<path d="M17 31C16 15 24 11 32 11S48 15 47 31L47 40H17Z" fill="{c}"/>'
    if face.hair == "ponytail":
        return f'<path d="M44 18C53 20 54 34 49 42C52 32 49 25 43 23Z" fill="{c}"/>'
    if face.hair == "bun":
        return f'<circle cx="32" cy="9" r="6" fill="{c}"/>'
    return ""


def _hair_front(face: Face) -> str:
    c = face.hair_colour
    shapes = {
        "short": "M19 27C18 16 25 12 32 12S46 16 45 27C42 21 37 18 32 18S22 21 19 27Z",
        "side": "M19 28C17 15 26 11 33 12C41 12 47 17 45 28C42 22 36 17 26 21C23 22 20 25 19 28Z",
        "spiky": "M19 27L18 17L23 19L24 11L29 16L32 9L35 16L40 11L41 19L46 17L45 27"
        "C42 21 37 18 32 18S22 21 19 27Z",
        "bob": "M19 27C18 16 25 12 32 12S46 16 45 27C40 23 36 19 33 17C30 21 24 24 19 27Z",
        "long": "M19 27C18 16 25 12 32 12S46 16 45 27C41 22 36 19 32 17C28 19 23 22 19 27Z",
        "bun": "M19 26C19 16 25 13 32 13S45 16 45 26C42 20 37 18 32 18S22 20 19 26Z",
        "ponytail": "M19 26C19 16 25 13 32 13S45 16 45 26C42 20 37 18 32 18S22 20 19 26Z",
        "bald": "M19 30C18 25 19 22 21 21L22 29ZM45 30C46 25 45 22 43 21L42 29Z",
    }
    return f'<path d="{shapes[face.hair]}" fill="{c}"/>'


def _hat(face: Face) -> str:
    if face.hat == "non_la":
        return (
            '<path d="M7 23L32 3L57 23Q32 29 7 23Z" fill="#ecd08c" stroke="#b8954a" '
            'stroke-width="1"/><path d="M14 19L32 5M50 19L32 5M22 22L32 5M42 22L32 5" '
            'stroke="#c9a85f" stroke-width=".8" fill="none"/>'
            '<path d="M20 27Q32 50 44 27" fill="none" stroke="#b8954a" stroke-width=".8"/>'
        )
    if face.hat == "cap":
        return (
            f'<path d="M18 24C18 13 25 10 32 10S46 13 46 24Z" fill="{face.hat_colour}"/>'
            f'<path d="M30 23H54Q52 27 44 26H30Z" fill="{face.hat_colour}"/>'
            '<circle cx="32" cy="10.5" r="1.5" fill="#fff"/>'
        )
    if face.hat == "headband":
        return f'<path d="M19 21Q32 15 45 21V25Q32 19 19 25Z" fill="{face.hat_colour}"/>'
    return ""


def _eyes(face: Face) -> str:
    if face.eyes == "happy":
        eyes = (
            f'<path d="M24.5 29Q27 26.5 29.5 29M34.5 29Q37 26.5 39.5 29" '
            f'stroke="{INK}" stroke-width="1.6" fill="none" stroke-linecap="round"/>'
        )
    elif face.eyes == "wink":
        eyes = (
            f'<circle cx="27" cy="29" r="1.8" fill="{INK}"/><path d="M34.5 29.5Q37 27.5 39.5 29.5" '
            f'stroke="{INK}" stroke-width="1.6" fill="none" stroke-linecap="round"/>'
        )
    else:
        eyes = _circle(27, 29, 1.8, INK) + _circle(37, 29, 1.8, INK)
    brow = "#9e9e9e" if face.hair == "bald" else face.hair_colour
    brows = _line("M24.5 25.2Q27 24 29.5 25.2M34.5 25.2Q37 24 39.5 25.2", brow, 1.2)
    glasses = (
        f'<g fill="none" stroke="{INK}" stroke-width="1.2"><circle cx="27" cy="29" r="4"/>'
        '<circle cx="37" cy="29" r="4"/><path d="M31 29H33M23 28.5L20 27.5M41 28.5L44 27.5"/></g>'
        if face.glasses
        else ""
    )
    return brows + eyes + glasses


def _mouth(face: Face) -> str:
    if face.mouth == "grin":
        return _path("M27 35Q32 41 37 35Z", "#7a2e2e") + _line("M28 35.3H36", "#fff", 1)
    if face.mouth == "open":
        return '<ellipse cx="32" cy="36.5" rx="2.6" ry="2" fill="#7a2e2e"/>'
    return _line("M28 35Q32 38.5 36 35", INK, 1.5)


def svg(face: Face) -> str:
    skin, shade = SKINS[face.skin]
    parts = [
        f'<circle cx="32" cy="32" r="32" fill="{face.background}"/>',
        _hair_back(face),
        f'<path d="M8 64C9 50 20 45 32 45S55 50 56 64Z" fill="{face.shirt}"/>',
        f'<path d="M27 37H37V46Q32 50 27 46Z" fill="{shade}"/>',
        _circle(19, 30, 3, shade) + _circle(45, 30, 3, shade),
        f'<ellipse cx="32" cy="29" rx="13" ry="14.5" fill="{skin}"/>',
        _circle(19, 34, 1.3, "#f2c14e") + _circle(45, 34, 1.3, "#f2c14e") if face.earrings else "",
        _hair_front(face),
        _eyes(face),
        _circle(23.5, 33.5, 2.2, "#ff8a80", opacity=".45")
        + _circle(40.5, 33.5, 2.2, "#ff8a80", opacity=".45")
        if face.blush
        else "",
        _line("M32 30L30.5 33.5H33", shade, 1.1),
        _path("M21 33Q22 44 32 44S42 44 43 33Q40 40 32 40S24 40 21 33Z", face.hair_colour)
        if face.beard
        else "",
        _mouth(face),
        _hat(face),
    ]
    body = "".join(part for part in parts if part)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">'
        '<clipPath id="c"><circle cx="32" cy="32" r="32"/></clipPath>'
        f'<g clip-path="url(#c)">{body}</g></svg>\n'
    )


def write(folder: Path) -> list[Path]:
    """Write every avatar's SVG file into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for face in FACES:
        path = folder / f"{face.key}.svg"
        path.write_text(svg(face), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # python -m accounts.avatars
    target = Path(__file__).resolve().parents[2] / "static" / FOLDER
    for path in write(target):
        sys.stdout.write(f"{path}\n")
