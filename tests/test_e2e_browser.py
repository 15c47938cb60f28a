"""Which Chromium the browser tests drive (tests/e2e/conftest.py ``chromium_path``):
the headless shell where there is one, Chromium itself where a module needs the
whole browser or no shell is installed."""

from __future__ import annotations

import pytest

from tests.e2e import conftest


def test_the_shell_when_one_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHROMIUM_PATH", "/opt/chromium")
    monkeypatch.setenv("CHROMIUM_SHELL_PATH", "/opt/shell")

    assert conftest.chromium_path() == "/opt/shell"
    assert conftest.chromium_path(full=True) == "/opt/chromium"


def test_the_shell_found_on_the_path(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    shell = tmp_path / "chromium-headless-shell"
    shell.write_text("#!/bin/sh\n")
    shell.chmod(0o755)
    monkeypatch.delenv("CHROMIUM_SHELL_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CHROMIUM_PATH", "/opt/chromium")

    assert conftest.chromium_path() == str(shell)


def test_chromium_itself_without_a_shell(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.delenv("CHROMIUM_SHELL_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CHROMIUM_PATH", "/opt/chromium")

    assert conftest.chromium_path() == "/opt/chromium"
