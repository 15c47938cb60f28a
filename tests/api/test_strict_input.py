"""The server refuses what the schema refuses (issue 34): unknown keys in a
request body, values of another JSON type (no 0 for false, no "5" for 5, no 5
for "5"), empty query parameters, a page size outside 1-100, an unknown rule
option. Each refusal is ``invalid`` (or the rule's own code) and changes nothing;
the schema says the same (``additionalProperties: false``, the ranges)."""

import pytest

from games import services

from .helpers import error, url, world

pytestmark = pytest.mark.django_db

TABLE = {"game": "tienlen", "stake": 1}


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({**TABLE, "colour": "red"}, {"colour": ["This field is not part of this request."]}),
        ({**TABLE, "fill_with_bots": 0}, {"fill_with_bots": ["Must be a valid boolean."]}),
        ({**TABLE, "is_private": "false"}, {"is_private": ["Must be a valid boolean."]}),
        ({**TABLE, "stake": "1"}, {"stake": ["stake must be a whole number from 1 to 1000000."]}),
        ({**TABLE, "name": 5}, {"name": ["Not a valid string."]}),
        ({**TABLE, "game": 1}, {"game": ['"1" is not a valid choice.']}),
    ],
)
def test_a_table_body_of_other_keys_or_types_is_refused(api, make_user, body, details):
    # Given a player with chips.
    lan = make_user()
    before = world()

    # When the body has a key the schema does not list, or a value of another type.
    response = api(lan, language="en").post(url("tables"), body, format="json")

    # Then it is refused field by field and nothing was opened.
    assert error(response) == (400, "invalid")
    assert response.json()["details"] == details
    assert world() == before


def test_an_unknown_rule_option_is_refused(api, make_user):
    lan = make_user()
    before = world()

    response = api(lan).post(url("tables"), {**TABLE, "options": {"x": 1}}, format="json")

    assert error(response) == (400, "bad_table_settings")
    assert world() == before


def test_the_same_body_with_its_own_types_is_taken(api, make_user):
    lan = make_user()

    response = api(lan).post(
        url("tables"), {**TABLE, "fill_with_bots": False, "name": "Một"}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["name"] == "Một"


def test_a_string_for_a_switch_is_refused_at_auto_ready(api, make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    services.table_sit(table_id=table.pk, user=lan, auto_ready=False)
    before = world()

    response = api(lan, language="en").post(
        url(f"tables/{table.pk}/auto-ready"), {"on": "true"}, format="json"
    )

    assert error(response) == (400, "invalid")
    assert response.json()["details"] == {"on": ["Must be a valid boolean."]}
    assert world() == before


def test_the_unknown_key_message_is_vietnamese_by_default(api, make_user):
    response = api(make_user()).post(url("tables"), {**TABLE, "colour": "red"}, format="json")

    assert response.json()["details"] == {"colour": ["Yêu cầu này không nhận trường này."]}


AT_LEAST_1 = ["Ensure this value is greater than or equal to 1."]
AT_MOST_100 = ["Ensure this value is less than or equal to 100."]
BLANK = ["This field may not be blank."]


@pytest.mark.parametrize(
    ("path", "query", "details"),
    [
        ("tables", {"page_size": 0}, {"page_size": AT_LEAST_1}),
        ("tables", {"page_size": 101}, {"page_size": AT_MOST_100}),
        ("tables", {"page_size": ""}, {"page_size": ["A valid integer is required."]}),
        ("tables", {"game": ""}, {"game": BLANK}),
        ("tables", {"stake": 0}, {"stake": AT_LEAST_1}),
        ("leaderboard", {"game": "holdem", "period": ""}, {"period": BLANK}),
    ],
)
def test_query_parameters_outside_the_schema_are_refused(api, path, query, details):
    response = api(language="en").get(url(path), query)

    assert error(response) == (400, "invalid")
    assert response.json()["details"] == details


def test_the_schema_closes_the_request_bodies_the_server_reads_strictly(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]

    closed = {name for name, c in components.items() if c.get("additionalProperties") is False}
    assert {"TableCreateInRequest", "SitInRequest", "AutoReadyInRequest", "ActInRequest"} <= closed
    assert {"LoginInRequest", "SignupInRequest", "PasswordInRequest", "AvatarInRequest"} <= closed
    options = components["TableCreateInRequest"]["properties"]["options"]
    assert options["additionalProperties"] is False
    assert options["properties"]["four_aces_top"] == {"type": "boolean"}
    assert options["properties"]["cong_penalty"] == {"type": "integer", "minimum": 0, "maximum": 52}
    lobby = {p["name"]: p["schema"] for p in schema["paths"]["/api/v1/tables"]["get"]["parameters"]}
    assert lobby["page_size"] == {"type": "integer", "minimum": 1, "maximum": 100}
    assert lobby["free_seats"] == {"type": "integer", "minimum": 0}
