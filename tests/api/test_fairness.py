"""Anyone can check a deal: seed, hand id and client seeds give the deck, and
the seed's sha256 must be the commitment published before the hand."""

import hashlib

import pytest

from games.rules import fairness
from games.rules.cards import cards_str

from .helpers import error, url

pytestmark = pytest.mark.django_db
SEED = "ab" * 32


def test_the_deck_and_the_commitment_of_a_seed(api):
    commitment = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    request = {"server_seed": SEED, "hand_id": "7-3", "client_seeds": ["x", ""]}

    matching = api().post(url("fairness/verify"), {**request, "commitment": commitment.upper()})
    other = api().post(url("fairness/verify"), {**request, "commitment": "0" * 64})
    bare = api().post(url("fairness/verify"), request)

    deck = cards_str(fairness.deal_deck(bytes.fromhex(SEED), "7-3", ["x", ""]))
    assert matching.status_code == 200
    assert matching.json() == {"deck": deck, "commitment": commitment, "matches": True}
    assert other.json()["matches"] is False
    assert bare.json()["matches"] is None
    assert sorted(deck) == sorted(set(deck))
    assert len(deck) == 52


def test_a_real_hand_checks_out(tables, make_user, api):
    from games import services

    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    for user, seed in ((lan, "mine"), (minh, "yours")):
        services.table_sit(table_id=table.pk, user=user)
        services.table_ready(table_id=table.pk, user=user, client_seed=seed)
    services.table_close(table_id=table.pk, by=lan, reason="checked")
    replay = api(lan).get(url(f"hands/{table.hands.get().pk}/replay")).json()

    check = api(minh).post(url("fairness/verify"), replay["fairness"]).json()

    assert check["matches"] is True
    dealt = next(e["cards"] for e in replay["events"] if e["type"] == "dealt")
    positions = {tuple(sorted(check["deck"][i * 13 : (i + 1) * 13])) for i in range(2)}
    assert tuple(sorted(dealt)) in positions


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"server_seed": "zz" * 32, "hand_id": "1-1"}, {"server_seed"}),
        (
            {"server_seed": SEED[:-2], "hand_id": "1-1", "commitment": "x"},
            {"server_seed", "commitment"},
        ),
        ({"server_seed": SEED, "hand_id": "1-1", "client_seeds": ["x" * 65]}, {"client_seeds"}),
        ({"server_seed": SEED, "hand_id": "1-1", "client_seeds": ["x"] * 10}, {"client_seeds"}),
        ({"server_seed": SEED}, {"hand_id"}),
    ],
)
def test_bad_fairness_requests(api, body, fields):
    response = api().post(url("fairness/verify"), body)

    assert error(response) == (400, "invalid")
    assert set(response.json()["details"]) == fields
