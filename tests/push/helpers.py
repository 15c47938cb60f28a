import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def browser_keys() -> dict[str, str]:
    """What a browser's subscription carries: its P-256 key and a 16-byte secret."""
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return {"p256dh": b64url(point), "auth": b64url(b"0123456789abcdef")}


def subscribe(user, endpoint="https://push.example.test/send/abc", language="vi"):
    from push.services import index_refresh, push_subscribe

    keys = browser_keys()
    subscription = push_subscribe(
        user=user,
        kind="web",
        endpoint=endpoint,
        p256dh=keys["p256dh"],
        auth=keys["auth"],
        language=language,
    )
    index_refresh(user.pk)  # (the test's transaction never commits)
    return subscription
