"""The staff's admin: moderation's own pages and those of the apps below it
(accounts, games, tournaments, wallet), which use moderation's audited services and its
admin kit. Django's autodiscovery imports this package; each module registers
its models."""

from . import accounts, games, moderation, tournaments, wallet  # noqa: F401
