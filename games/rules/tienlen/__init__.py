"""Tiến Lên Miền Nam (RULES.md 3): combinations, legal moves, the hand, bots."""
