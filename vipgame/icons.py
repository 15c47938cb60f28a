"""The app icons of the manifest (``/manifest.webmanifest``): a cream spade on
the green felt, PNG, 192 and 512 pixels, "maskable" (the felt fills the
square and the spade keeps inside the central circle of 80 % that every
platform's mask leaves). ``python -m vipgame.icons`` writes
``static/img/icon-192.png`` and ``icon-512.png``; a test checks the files are
its output. Pure Python (zlib): no image library needed."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIZES = (192, 512)
FELT = (11, 93, 59)
SPADE = (250, 240, 214)
STATIC = Path(__file__).resolve().parent.parent / "static" / "img"


def _inside(x: float, y: float) -> bool:
    """The spade in unit coordinates (centre 0, 0; y down; within radius 0.62)."""
    # The head: a heart upside down, (x²+y²-1)³ - x²y³ <= 0 with y down, scaled.
    hx, hy = x / 0.34, (y + 0.12) / 0.34
    if (hx * hx + hy * hy - 1) ** 3 - hx * hx * hy**3 <= 0:
        return True
    # The stem: a narrow trapezoid widening downwards below the head.
    if 0.12 <= y <= 0.50:
        return abs(x) <= 0.035 + (y - 0.12) * 0.45
    return False


def _pixel(size: int, px: int, py: int) -> tuple[int, int, int]:
    hits = 0
    for sx in (0.25, 0.75):
        for sy in (0.25, 0.75):
            x = (px + sx) / size * 2 - 1
            y = (py + sy) / size * 2 - 1
            hits += _inside(x, y)
    a = hits / 4
    return tuple(round(f * (1 - a) + s * a) for f, s in zip(FELT, SPADE, strict=True))  # type: ignore[return-value]


def png(size: int) -> bytes:
    rows = bytearray()
    for py in range(size):
        rows.append(0)  # filter: none
        for px in range(size):
            rows.extend(_pixel(size, px, py))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def path(size: int) -> Path:
    return STATIC / f"icon-{size}.png"


def main() -> None:
    for size in SIZES:
        path(size).write_bytes(png(size))


if __name__ == "__main__":
    main()
