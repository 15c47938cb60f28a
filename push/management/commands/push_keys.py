"""``python manage.py push_keys``: a new VAPID pair for production, printed as
the environment lines to set (docs/operations.md "Push"). Keep the private
key as secret as SECRET_KEY; changing the pair unsubscribes every browser."""

from typing import Any

from django.core.management.base import BaseCommand

from push.keys import generate


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair for Web Push (PUSH_VAPID_PUBLIC_KEY, PUSH_VAPID_PRIVATE_KEY)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = generate()
        self.stdout.write(f"PUSH_VAPID_PUBLIC_KEY={public}\nPUSH_VAPID_PRIVATE_KEY={private}\n")
