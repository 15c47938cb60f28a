"""Texas Hold'em (docs/rules.md 4).

``engine.ENGINE`` is what the table service drives; ``betting`` holds the
state machine, ``evaluator`` the hand ranking, ``pots`` the side pots and
odd chips, ``view`` what each seat may see, ``phh`` hand histories, ``bot``
the computer player and ``cli`` the ``holdem.*`` command-line ops.
"""
