"""A client generated from the OpenAPI schema (openapi-python-client) plays a
Tiến Lên hand over REST: two players sit, send their seeds, get ready and
move from the typed views the schema describes, until the typed result.

The client is generated at test time from ``/api/schema/`` into a temporary
directory, so it always follows the schema; requests go through Django's WSGI
handler in-process (httpx's WSGI transport)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

# Both are pinned in requirements-dev.in: a missing one is a failure, not a skip.
import httpx
import openapi_python_client  # noqa: F401
import pytest
from django.core.handlers.wsgi import WSGIHandler

from accounts.sessions import token_issue
from games import services
from games.models import Hand

from .helpers import throttles_off

pytestmark = pytest.mark.django_db
PACKAGE = "vipgame_client"
CONFIG = {"package_name_override": PACKAGE, "post_hooks": []}


@pytest.fixture
def generated(client: Any, tmp_path: Path) -> Any:
    """The client package generated from this server's schema."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(client.get("/api/schema/", {"format": "json"}).json()))
    config = tmp_path / "config.json"
    config.write_text(json.dumps(CONFIG))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(schema),
            "--config",
            str(config),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / PACKAGE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def api_for(package: Any, user: Any) -> Any:
    return package.AuthenticatedClient(
        base_url="http://testserver",
        token=token_issue(user=user),  # sent as "Bearer <token>": the schema's scheme
        raise_on_unexpected_status=True,
        httpx_args={"transport": httpx.WSGITransport(app=WSGIHandler())},
    )


def call(module: str, package: Any, **kwargs: Any) -> Any:
    """An operation of the generated client; an error answer fails the test."""
    operation = importlib.import_module(f"{PACKAGE}.api.tables.{module}")
    answer = operation.sync(**kwargs)
    error = importlib.import_module(f"{PACKAGE}.models").Error
    assert not isinstance(answer, error), (answer.code, answer.message)
    return answer


def choose(models: Any, view: Any) -> Any:
    """Lead the first legal play the hints name (the lowest single: the 3♠ if
    the first play must hold it), else pass: no rules known to the client."""
    assert isinstance(view, models.TienLenView)
    assert view.hints is not None, "my move, so I get my hints"
    if view.table is None:
        play = view.hints.plays[0]
        assert isinstance(play, models.TienLenLegalPlay)
        assert play.combination.value == "single"
        assert play.cards == [view.must_include or view.hints.cards[0]]
        return models.TienLenPlayAction(type_=models.TienLenPlayActionType.PLAY, cards=play.cards)
    assert view.hints.can_pass
    return models.TienLenPassAction(type_=models.TienLenPassActionType.PASS)


def test_a_generated_client_plays_a_tien_len_hand(
    generated, tables, make_user, settings, keep_connections
):
    throttles_off(settings)
    models = importlib.import_module(f"{PACKAGE}.models")
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=4)
    apis = [api_for(generated, user) for user in (lan, minh)]
    for i, api in enumerate(apis):
        sat = call(
            "tables_sit", generated, table_id=table.pk, client=api, body=models.SitInRequest()
        )
        assert sat.seat is not None
        seed = models.SeedInRequest(client_seed=f"seed-{i}", commitment=sat.table.next_commitment)
        sent = call("tables_seed", generated, table_id=table.pk, client=api, body=seed)
        assert sent.commitment == sat.table.next_commitment

    moves = 0
    for _ in range(3):  # a deal may end at once (tới trắng): ready for another
        for api in apis:
            call(
                "tables_ready",
                generated,
                table_id=table.pk,
                client=api,
                body=models.ReadyInRequest(),
            )
        states: list[Any] = []
        for step in range(200):
            states = [call("tables_state", generated, table_id=table.pk, client=a) for a in apis]
            if states[0].hand.finished:
                break
            mover = next(i for i, s in enumerate(states) if s.you in s.actors)
            state = states[mover]
            body = models.ActInRequest(
                id=f"m{step}", v=state.v, action=choose(models, state.hand.view)
            )
            acted = call("tables_act", generated, table_id=table.pk, client=apis[mover], body=body)
            assert acted.duplicate is False
            assert acted.state.v == acted.v > state.v
            moves += 1
        assert states[0].hand.finished
        tables.drain()  # settles the hand
        if moves:
            break
        tables.fire(table)  # the deal ended at once: end its summary pause
    assert moves > 0

    ended = [call("tables_state", generated, table_id=table.pk, client=a) for a in apis]
    hand = Hand.objects.get(pk=ended[0].hand.id)
    result = ended[0].hand.result
    assert isinstance(result, models.TienLenResult)
    assert isinstance(result.summary, models.TienLenSummary)
    assert [s.you for s in ended] == [0, 1]
    assert [p.user_id for p in ended[0].hand.players] == [lan.pk, minh.pk]
    assert result.to_dict() == hand.result
    assert result.unit == 10
    assert sum(result.net) == 0
    assert sum(result.chips) == 0
    owed = [0, 0]
    for payment in result.payments:
        owed[payment.payer] -= payment.amount
        owed[payment.payee] += payment.amount
    assert owed == result.net
    assert result.summary.winner in (0, 1)
    assert ended[0].hand.server_seed == hand.server_seed
