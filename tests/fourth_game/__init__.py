"""A fourth game that exists only for the tests: two-player high card.

It proves games plug in: ``tests/settings_fourth.py`` lists its plugin
(:mod:`tests.fourth_game.plugin`) after the three real games, and
``tests/test_fourth_game.py`` plays it through the whole stack without an
edit to shared code. Its rules package is this package: ``engine`` (pure,
like ``games/rules/<game>/``) and ``types``; ``facts`` tells the contract suite
(``tests/registry.py``) what it needs of the game.
"""
