"""The rules for apps (issue 32 item 5): GET /api/v1/rules/<game>/<preset>
gives every number of the preset and the rules page's sections; GET
/api/v1/tables/<id>/rules a table's own, a private one's to its people only;
both in the OpenAPI schema."""

from __future__ import annotations

import dataclasses

import pytest
from django.test import Client

from games import services
from games.plugins import PLUGINS
from games.rules.tienlen import rules as tienlen_rules

from ..registry import GAMES

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("game", GAMES)
def test_every_presets_numbers_and_sections(game):
    plugin = PLUGINS[game]
    for preset, _label in plugin.presets:
        response = Client().get(f"/api/v1/rules/{game}/{preset}", HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 200
        body = response.json()
        ruleset = plugin.ruleset_of(preset, {})
        assert body["game"] == game
        assert body["preset"] == preset
        assert set(body["numbers"]) == {f.name for f in dataclasses.fields(ruleset)}
        assert body["url"] == f"http://testserver/rules/{game}/{preset}/"
        assert [s["id"] for s in body["sections"]] == [a for a, _t, _s in plugin.rules_sections]
        assert all(s["url"] == f"{body['url']}#{s['id']}" for s in body["sections"])
        assert body["table"] is None


def test_the_numbers_are_the_presets(monkeypatch):
    changed = dataclasses.replace(tienlen_rules.PRESETS["vipgame"], ket_3_bich=33)
    monkeypatch.setitem(tienlen_rules.PRESETS, "vipgame", changed)
    numbers = Client().get("/api/v1/rules/tienlen/vipgame").json()["numbers"]
    assert numbers["ket_3_bich"] == 33
    assert numbers["thoi_penalties"]["red_two"] == 6


def test_an_unknown_game_or_preset_is_rules_not_found():
    for path in ("/api/v1/rules/baccarat/vipgame", f"/api/v1/rules/{GAMES[0]}/nope"):
        response = Client().get(path)
        assert response.status_code == 404
        assert response.json()["code"] == "rules_not_found"


def test_a_tables_rules_list_what_it_changed(make_user, tables):
    owner, outsider = make_user(), make_user()
    table = services.table_create(
        owner=owner, game="tienlen", stake=10, options={"ket_3_bich": 13}, is_private=True
    )
    path = f"/api/v1/tables/{table.pk}/rules"

    assert Client().get(path).json()["code"] == "private_table"
    outside = Client()
    outside.force_login(outsider)
    assert outside.get(path).status_code == 403
    body = Client().get(f"{path}?invite={table.invite_code}").json()

    assert body["numbers"]["ket_3_bich"] == 13
    assert body["table"]["differences"] == [{"name": "ket_3_bich", "value": 13, "preset_value": 26}]
    assert body["table"]["numbers"]["stake"] == 10
    assert body["url"] == f"http://testserver/tables/{table.pk}/rules/"
    assert Client().get("/api/v1/tables/999999999/rules").json()["code"] == "table_not_found"


def test_the_schema_documents_both():
    from django.utils import translation
    from drf_spectacular.generators import SchemaGenerator

    with translation.override("en"):
        schema = SchemaGenerator().get_schema(request=None, public=True)
    rules = schema["paths"]["/api/v1/rules/{game}/{preset}"]["get"]
    assert rules["operationId"] == "rules"
    assert set(rules["responses"]) == {"200", "404"}
    table = schema["paths"]["/api/v1/tables/{table_id}/rules"]["get"]
    assert set(table["responses"]) == {"200", "403", "404"}
    assert "RulesOut" in schema["components"]["schemas"]
