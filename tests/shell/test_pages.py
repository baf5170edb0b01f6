"""The detail pages behind every ``url`` field, and the browser sign-in that opens them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from sleuth_core.ids import encode_global_id
from sleuth_shell.db.models import AlertResponder, Digest, DigestRun, Interaction, Investigation
from sleuth_shell.web.guard import safe_next

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def _responder(org, name="Checkout errors"):
    return AlertResponder(
        org_id=org.id,
        team_id=org.default_team_id,
        name=name,
        runbook_prompt="Check the <b>deploys</b> first",
        runbook_active=True,
        text_matches=["*checkout*"],
        match_rules={"operator": "AND", "conditions": [{"type": "contains", "value": "checkout"}]},
        webhook_sources=[{"type": "PROVIDER_A", "remote_id": "wh_1"}],
        status="ACTIVE",
    )


def _investigation(org, responder_id):
    return Investigation(
        org_id=org.id,
        alert_responder_id=responder_id,
        team_id=org.default_team_id,
        name="5xx on checkout <script>alert(1)</script>",
        status="COMPLETED",
        prompt="Please investigate",
        event_payload='{"title": "5xx"}',
        result="Likely a bad deploy [1].\n\nSources:\n[1] [Deploy log](https://ci.example.com/881)",
        started_at=NOW,
        completed_at=NOW,
    )


def test_pages_show_the_organizations_records(client, factory, org):
    responder = factory.add(_responder(org))
    investigation = factory.add(_investigation(org, responder.id))
    responder_gid = encode_global_id("AlertResponder", responder.id)
    investigation_gid = encode_global_id("Investigation", investigation.id)

    page = client.get(f"/alert-responders/{responder_gid}", headers=org.headers)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "Checkout errors" in page.text
    assert "Check the &lt;b&gt;deploys&lt;/b&gt; first" in page.text
    assert f'href="/investigations/{investigation_gid}"' in page.text

    page = client.get(f"/investigations/{investigation_gid}", headers=org.headers)
    assert page.status_code == 200
    assert "<script>" not in page.text
    assert "5xx on checkout &lt;script&gt;" in page.text
    assert '<a href="https://ci.example.com/881">Deploy log</a>' in page.text


def test_digest_and_run_pages(client, factory, org):
    digest = factory.add(
        Digest(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Morning report",
            sections=[{"section": "Errors", "prompt": "Errors overnight"}],
            schedule="0 9 * * 0-4",
        )
    )
    run = factory.add(
        DigestRun(
            org_id=org.id,
            digest_id=digest.id,
            status="COMPLETED",
            results=[{"section": "Errors", "prompt": "Errors overnight", "result": "**3** errors"}],
        )
    )
    digest_gid = encode_global_id("Digest", digest.id)
    run_gid = encode_global_id("DigestRun", run.id)
    page = client.get(f"/digests/{digest_gid}", headers=org.headers)
    assert page.status_code == 200
    assert "0 9 * * 0-4" in page.text
    assert f'href="/digests/{digest_gid}/runs/{run_gid}"' in page.text
    page = client.get(f"/digests/{digest_gid}/runs/{run_gid}", headers=org.headers)
    assert page.status_code == 200
    assert "<strong>3</strong> errors" in page.text
    # A run reached through another digest's URL does not exist.
    other = factory.add(
        Digest(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Other",
            sections=[],
            schedule="0 9 * * *",
        )
    )
    wrong = client.get(
        f"/digests/{encode_global_id('Digest', other.id)}/runs/{run_gid}", headers=org.headers
    )
    assert wrong.status_code == 404
    assert wrong.json() == {"detail": "Digest run not found"}


def test_interaction_page_lists_sources(client, factory, org):
    interaction = factory.add(
        Interaction(
            org_id=org.id,
            question="Why is checkout failing?",
            status="COMPLETED",
            content="A bad deploy [1].",
            sources=[
                {
                    "display_text": "payments-api errors",
                    "link": "http://sleuth.test/logs?query=%7B%7D",
                    "log_type_name": "Application logs",
                    "start": "2026-11-22T08:00:00Z",
                    "end": "2026-11-22T09:00:00Z",
                }
            ],
        )
    )
    page = client.get(f"/interactions/{interaction.id}", headers=org.headers)
    assert page.status_code == 200
    assert "Why is checkout failing?" in page.text
    assert '<a href="http://sleuth.test/logs?query=%7B%7D">payments-api errors</a>' in page.text


def test_other_organizations_and_bad_ids_are_not_found(client, factory, org):
    other = factory.org("globex")
    responder = factory.add(_responder(org))
    gid = encode_global_id("AlertResponder", responder.id)
    for path in [
        f"/alert-responders/{gid}",
        f"/investigations/{gid}",  # right number, wrong type
        "/alert-responders/not-an-id",
        "/digests/%20",
        "/interactions/00000000-0000-4000-8000-000000000000",
    ]:
        headers = other.headers if path == f"/alert-responders/{gid}" else org.headers
        response = client.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.json()["detail"].endswith("not found")


def test_sign_in_opens_a_session_that_opens_pages_but_not_the_api(client, factory, org):
    responder = factory.add(_responder(org))
    path = f"/alert-responders/{encode_global_id('AlertResponder', responder.id)}"

    anonymous = client.get(path, follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/login?next=%2Falert-responders%2F")
    form = client.get("/login")
    assert 'name="api_key"' in form.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)

    wrong = client.post("/login", data={"api_key": "slk_wrong", "next": path, "csrf_token": token})
    assert wrong.status_code == 401
    assert "not valid" in wrong.text

    form = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
    signed_in = client.post(
        "/login",
        data={"api_key": org.key, "next": path, "csrf_token": token},
        follow_redirects=False,
    )
    assert signed_in.status_code == 303
    assert signed_in.headers["location"] == path
    cookie = signed_in.headers["set-cookie"]
    assert "sleuth_session=" in cookie
    assert org.key not in cookie  # the cookie carries a session token, never the key
    assert "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    assert client.get(path).status_code == 200
    # The session never authenticates the API: a cross-site form post cannot act with it.
    assert client.get("/api/v1/webhook-subscriptions").json() == {"detail": "Missing API key"}


def test_safe_next_refuses_other_sites():
    assert safe_next("/investigations/abc?x=1") == "/investigations/abc?x=1"
    for value in [None, "", "https://evil.example", "//evil.example", "/\\evil.example", "x"]:
        assert safe_next(value) == "/"


@pytest.mark.storage
def test_ids_beyond_the_integer_range_are_not_found(client, org):
    huge = 2**40
    for path in [
        f"/alert-responders/{encode_global_id('AlertResponder', huge)}",
        f"/investigations/{encode_global_id('Investigation', huge)}",
        f"/digests/{encode_global_id('Digest', huge)}",
        f"/digests/{encode_global_id('Digest', huge)}/runs/{encode_global_id('DigestRun', huge)}",
        f"/knowledge/{huge}",
    ]:
        response = client.get(path, headers=org.headers)
        assert response.status_code == 404, path
        assert response.json()["detail"].endswith("not found")


def test_pages_live_in_web_and_the_api_serves_json_only():
    """Every module of ``sleuth_shell.web`` with ``ROUTES`` is served; no ``api/`` handler
    answers HTML (a page handler there is in the wrong package)."""
    import inspect
    import pkgutil

    import sleuth_shell.web as web
    from sleuth_shell.api import API_MODULES, ROOT_MODULES
    from sleuth_shell.web.routes import page_modules, page_routes

    names = {m.__name__.rsplit(".", 1)[1] for m in page_modules()}
    assert {"home", "investigations", "agents", "digests", "interactions", "signin"} <= names
    declared = [
        info.name
        for info in pkgutil.iter_modules(web.__path__)
        if hasattr(__import__(f"sleuth_shell.web.{info.name}", fromlist=["x"]), "ROUTES")
    ]
    assert sorted(declared) == sorted(names)
    served = {id(route) for route in page_routes()}
    for module in page_modules():
        assert all(id(route) in served for route in module.ROUTES), module.__name__
    for module in (*API_MODULES, *ROOT_MODULES):
        source = inspect.getsource(module)
        assert "Template" not in source and "PAGE_OPTIONS" not in source, module.__name__


def test_html_pages_refuse_framing_and_sniffing(client, factory, org):
    """Every HTML answer (a page, the sign-in form, a browser's error page) says no other site
    may frame it and its content type is what it declares."""
    html = {"Accept": "text/html"}
    responses = {
        "home": client.get("/", headers={**org.headers, **html}),
        "investigations": client.get("/investigations", headers={**org.headers, **html}),
        "login": client.get("/login", headers=html),
        "missing page": client.get("/investigations/nope", headers={**org.headers, **html}),
    }
    for name, response in responses.items():
        assert response.headers["content-type"].startswith("text/html"), name
        assert response.headers["x-frame-options"] == "DENY", name
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"], name
        assert response.headers["x-content-type-options"] == "nosniff", name
    assert responses["missing page"].status_code == 404
