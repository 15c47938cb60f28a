"""Tournaments (issue 31): Sit & Gos, and later scheduled tournaments.

``levels`` and ``payouts`` are pure (no Django, no other project module): the
rules of the rising levels and of the prize table, property-tested. The rest
(models, services, API) builds on games and the wallet below it."""
