"""Tiến Lên Miền Nam (docs/rules.md 3): combinations, legal moves, the hand, bots."""
