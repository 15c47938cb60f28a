"""The collection gives every test its own node id (pytest-xdist's
``loadgroup`` scheduler, which ``make test`` runs, keys tests by node id and
would run only one of several that share one)."""

import re
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import _unique_node_ids


class _Id:
    def __init__(self, text: str) -> None:
        self.text = text

    def child(self, name: str) -> "_Id":
        return _Id(f"{self.text}::{name}")

    def __str__(self) -> str:
        return self.text


class _Item(SimpleNamespace):
    @property
    def nodeid(self) -> str:
        return str(self._id)


def _item(name: str, nodeid: str, parent: Any = None) -> Any:
    return _Item(name=name, _id=_Id(nodeid), parent=parent)


def test_operations_of_one_generated_test_get_their_own_ids() -> None:
    module = SimpleNamespace(id=_Id("tests/api/test_schema.py"))
    items = [
        _item("test_api[GET /api/v1/me]", "tests/api/test_schema.py::test_api", module),
        _item("test_api[POST /api/v1/tables]", "tests/api/test_schema.py::test_api", module),
    ]

    _unique_node_ids(items)

    assert [i.nodeid for i in items] == [
        "tests/api/test_schema.py::test_api[GET /api/v1/me]",
        "tests/api/test_schema.py::test_api[POST /api/v1/tables]",
    ]


def test_two_tests_of_one_id_are_refused() -> None:
    items = [_item("test_a", "tests/test_x.py::test_a"), _item("test_a", "tests/test_x.py::test_a")]

    with pytest.raises(pytest.UsageError, match=re.escape("the node id tests/test_x.py::test_a")):
        _unique_node_ids(items)
