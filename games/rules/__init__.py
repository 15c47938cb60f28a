"""Pure rules engines for the card room.

Nothing in this package imports Django, touches I/O, reads a clock or draws
random numbers of its own: decks, times and seeds come in as arguments.
"""
