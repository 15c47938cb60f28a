"""The probes through the real nginx site (deploy/nginx/vipgame.conf, rendered by
tests/topology.py) in front of the application: no spelling of /readyz or
/metrics gets the internal health to a client that is not this host, and the
application itself answers only the exact paths (docs/security.md, "Health
endpoints")."""

from __future__ import annotations

import http.client
import os
import secrets
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.stack import free_port, wait_until
from push.keys import vapid_environment

from . import processes
from .topology import (
    NGINX_MAIN,
    WEB_PORTS,
    Topology,
    exec_start,
    local_paths,
    render_site,
    self_signed,
    unit_environment,
)

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# A client of the internet, as nginx sees it: a loopback address that is not
# 127.0.0.1 (the site allows 127.0.0.1 and ::1 only).
OUTSIDE = "127.0.0.2"
# Each spelling a client may try; nginx and Daphne both percent-decode once.
SPELLINGS = [
    "/readyz/",
    "/readyz//",
    "/readyz%2F",
    "/readyz%2f",
    "/readyz/.",
    "/readyz/./",
    "/readyz%2e",
    "/readyz;x",
    "/readyz%3F",
    "//readyz",
    "/./readyz",
    "/%72eadyz",
    "/api/../readyz",
    "/x/..%2Freadyz",
    "/%2Freadyz",
    "/metrics/",
    "/metrics%2F",
    "/metrics/.",
    "//metrics",
    "/%6detrics",
    "/healthz/",
    "/healthz%2F",
]
# Decoded by the application to exactly the probe's path: the same request.
SAME_AS_EXACT = {"/%72eadyz", "/%6detrics"}


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None) -> Iterator[int]:
    """nginx with the site's own file in front of one Daphne started from the
    web unit's own line (every upstream line pointed at it); nginx's HTTPS port."""
    tmp_path = tmp_path_factory.mktemp("edge")
    if not Path(NGINX).exists():
        pytest.fail(f"nginx is not installed ({NGINX}): apt-get install nginx")
    web = free_port()
    ports = {"http": free_port(), "https": free_port()} | {f"web-{p}": web for p in WEB_PORTS}
    paths = local_paths(tmp_path / "var", tmp_path / "run")
    env = processes.process_env(
        tmp_path / "var",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # Mail through a server that is not there: nothing here sends any.
        EMAIL_HOST="127.0.0.1",
        DEFAULT_FROM_EMAIL="VIPGAME <noreply@cards.example.com>",
        # Web Push with a pair of its own (no push is sent here: nobody subscribes).
        **vapid_environment(),
        **unit_environment("vipgame-web@.service"),
    )
    # Deploying: the pages' static files (a 404 page names them).
    python = str(processes.BIN / "python")
    collect = [python, "manage.py", "collectstatic", "--noinput", "-v", "0"]
    subprocess.run(collect, cwd=processes.ROOT, env=env, check=True)
    cert, key = self_signed(tmp_path)
    (tmp_path / "acme").mkdir()
    site = render_site(ports, tmp_path / "var" / "static", cert, key, tmp_path / "acme")
    (tmp_path / "site.conf").write_text(site)
    user = "user root;" if os.geteuid() == 0 else ""
    (tmp_path / "nginx.conf").write_text(NGINX_MAIN.format(dir=tmp_path, user=user))
    nginx = [NGINX, "-p", f"{tmp_path}/", "-c", str(tmp_path / "nginx.conf")]
    nginx += ["-e", str(tmp_path / "error.log")]
    daphne = exec_start("vipgame-web@.service", str(web), paths)
    with (
        processes.running(daphne, env, tmp_path / "web.log"),
        processes.running(nginx, env, tmp_path / "nginx.log"),
    ):
        for port, log in ((web, "web.log"), (ports["https"], "error.log")):
            up = wait_until(lambda port=port: Topology._answers(port), 60)
            assert up, (tmp_path / log).read_text()
        yield ports["https"]


def get(port: int, path: str, source: str) -> tuple[int, str]:
    """GET ``path`` byte for byte (no client-side normalising) from ``source``."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection(
        "127.0.0.1", port, source_address=(source, 0), context=context, timeout=20
    )
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def test_no_spelling_of_the_probes_reaches_them_from_outside(edge):
    # Given nginx in front of the application: this host gets /readyz itself,
    # and the internet gets /healthz.
    status, body = get(edge, "/readyz", "127.0.0.1")
    assert status in (200, 503)
    assert '"checks"' in body
    assert get(edge, "/healthz", OUTSIDE) == (200, '{"status": "ok"}')

    # When a client out there asks for the probes, spelled any way.
    answers = {path: get(edge, path, OUTSIDE) for path in ["/readyz", "/metrics", *SPELLINGS]}

    # Then nginx refuses each one: the application never sees it.
    assert {path: status for path, (status, _) in answers.items()} == dict.fromkeys(answers, 403)
    assert all("nginx" in body and '"checks"' not in body for _, body in answers.values())


def test_this_host_gets_a_404_for_every_other_spelling(edge):
    # Given nginx lets this host's own requests through to the application.
    # When this host asks for the probes spelled other than exactly.
    answers = {
        path: get(edge, path, "127.0.0.1") for path in SPELLINGS if path not in SAME_AS_EXACT
    }

    # Then the application does not answer them as probes.
    assert {path: status for path, (status, _) in answers.items()} == dict.fromkeys(answers, 404)
    assert all('"checks"' not in body and "# HELP" not in body for _, body in answers.values())
