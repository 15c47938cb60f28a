import secrets
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User
from games.models import Table
from games.services import table_add_bot, table_create
from wallet.services import account_for_user, player_signup

DEMO_TABLES: list[dict[str, Any]] = [
    {"game": "maubinh", "stake": 100, "name": "Mậu Binh 100", "bots": 2},
    {"game": "tienlen", "stake": 100, "name": "Tiến Lên 100", "bots": 3},
    {"game": "tienlen", "stake": 10, "name": "Tiến Lên 10", "bots": 1},
    {"game": "holdem", "stake": 50, "name": "Poker 50/100", "bots": 3, "seat_count": 6},
]


class Command(BaseCommand):
    help = "Create the demo accounts once (a staff account and two players) and print the logins."

    def handle(self, *args: object, **options: object) -> None:
        logins = settings.VAR_DIR / "demo-logins.txt"
        if not User.objects.filter(username="admin").exists():
            lines = []
            password = secrets.token_urlsafe(12)
            admin = User.objects.create_superuser(
                username="admin", password=password, display_name="Admin"
            )
            account_for_user(user=admin)
            lines.append(f"staff   admin / {password}")
            for name, shown in (("lan", "Lan"), ("minh", "Minh")):
                password = secrets.token_urlsafe(9)
                player_signup(username=name, display_name=shown, password=password)
                lines.append(f"player  {name} / {password}")
            logins.write_text("\n".join(lines) + "\n")
            logins.chmod(0o600)
        if not Table.objects.exists():
            self._tables()
        self.stdout.write("Demo logins (kept in var/demo-logins.txt):")
        self.stdout.write(logins.read_text() if logins.exists() else "(file missing)\n")

    def _tables(self) -> None:
        """Open tables with bots seated: they start as soon as a person sits and is ready."""
        admin = User.objects.get(username="admin")
        for spec in DEMO_TABLES:
            settings: dict[str, Any] = {k: v for k, v in spec.items() if k != "bots"}
            table = table_create(owner=admin, fill_with_bots=True, **settings)
            for _ in range(int(spec["bots"])):
                table_add_bot(table_id=table.pk, user=admin)
        self.stdout.write(f"{len(DEMO_TABLES)} demo tables with bots are open.")
