"""What the contract suite needs of high card (``tests.registry.facts``)."""

from tests.registry import Facts

#: (Its whole state is small: a move's delta is about a third of it, not less.)
TEST_FACTS = Facts(
    hand_size=1, seating=(1, 1), socket_seating=(2, 0), delta_seating=(2, 0), delta_shrink=2
)
