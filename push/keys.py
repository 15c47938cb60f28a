"""VAPID keys (RFC 8292): the server's P-256 key pair that Web Push services
check each push against. Both halves are base64url, the private key its raw 32
bytes and the public key the uncompressed point the browser's
``pushManager.subscribe({applicationServerKey})`` takes."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def generate() -> tuple[str, str]:
    """A new pair: (public, private)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(private)


def development_pair(path: Path) -> tuple[str, str]:
    """``make run``'s pair, kept in ``path`` (``VAR_DIR/vapid.json``, made on
    first use, readable by its owner only) so that browsers stay subscribed
    across restarts.

    Daphne and the Celery worker start together on one ``VAR_DIR``: the pair
    is written whole to a file of its own and linked into place only if no
    other process got there first (``os.link`` fails on an existing name), so
    no process reads a half-written file or keeps a pair the others lost."""
    if not path.exists():
        public, private = generate()
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=".vapid-")  # mode 0600
        try:
            with os.fdopen(handle, "w") as made:
                made.write(json.dumps({"public": public, "private": private}))
            with contextlib.suppress(FileExistsError):
                os.link(name, path)
        finally:
            os.unlink(name)
    stored = json.loads(path.read_text())
    return str(stored["public"]), str(stored["private"])


def vapid_environment() -> dict[str, str]:
    """A new pair as the settings' environment (production-mode test and bench stacks)."""
    public, private = generate()
    return {"PUSH_VAPID_PUBLIC_KEY": public, "PUSH_VAPID_PRIVATE_KEY": private}


def check_pair(public: str, private: str) -> str | None:
    """What is wrong with a configured pair (None: nothing)."""
    if not public or not private:
        return "PUSH_VAPID_PUBLIC_KEY and PUSH_VAPID_PRIVATE_KEY are not both set"
    try:
        raw = base64.urlsafe_b64decode(private + "=" * (-len(private) % 4))
        key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except ValueError:
        return "PUSH_VAPID_PRIVATE_KEY is not a base64url P-256 private key"
    derived = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    if len(raw) != 32 or b64url(derived) != public:
        return "PUSH_VAPID_PUBLIC_KEY is not the public half of PUSH_VAPID_PRIVATE_KEY"
    return None
