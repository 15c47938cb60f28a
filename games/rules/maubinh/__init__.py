"""Mậu Binh (docs/rules.md 2): rulesets, chi strength, instant wins, settlement,
the auto-arranger and the hand state machine (``engine.ENGINE``)."""
