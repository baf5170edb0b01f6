"""The web app's security and behaviour through the test client: server-side sessions, CSRF on
every form, escaping of hostile values, admin-only actions, browser error pages, each page."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from sleuth_core.ids import encode_global_id
from sleuth_shell.db.models import (
    AdvancedSettings,
    AlertResponder,
    ApiKey,
    Digest,
    DigestRun,
    Interaction,
    Investigation,
    Job,
    LogRecord,
    WebSession,
)
from sleuth_shell.investigations.service import RUN_KIND
from sleuth_shell.statuses import (
    INVESTIGATION,
    DigestRunStatus,
    InteractionStatus,
    InvestigationStatus,
)
from sleuth_shell.web.render import ago, cite_links, markdown_html, safe_url, schedule_words, ts

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the page has no CSRF field"
    return match.group(1)


def sign_in(client, key: str) -> str:
    """Sign in through the form; returns the session's CSRF token (from the home page)."""
    token = _csrf(client.get("/login").text)
    response = client.post(
        "/login", data={"api_key": key, "next": "/", "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303, response.text
    home = client.get("/")
    assert home.status_code == 200
    return _csrf(home.text)


def _agent(org, name="Checkout errors", status="ACTIVE"):
    return AlertResponder(
        org_id=org.id,
        team_id=org.default_team_id,
        name=name,
        runbook_prompt="Check deploys",
        runbook_active=True,
        text_matches=["*checkout*"],
        match_rules={"operator": "AND", "conditions": []},
        webhook_sources=[],
        status=status,
    )


def test_session_cookie_is_opaque_and_stored_hashed(client, factory, org):
    sign_in(client, org.key)
    cookie = client.cookies.get("sleuth_session")
    assert cookie and org.key not in cookie
    rows = factory.run(lambda s: _sessions(s, org))
    assert len(rows) == 1
    assert rows[0].token_hash != cookie and len(rows[0].token_hash) == 64
    assert rows[0].expires_at > datetime.now(UTC) + timedelta(hours=11)


async def _all(session, model):
    return (await session.scalars(select(model))).all()


async def _sessions(session, org):
    """The organization's web sessions."""
    return (await session.scalars(select(WebSession).where(WebSession.org_id == org.id))).all()


def test_session_cookie_is_signed_and_tampering_signs_out(client, org):
    sign_in(client, org.key)
    cookie = client.cookies.get("sleuth_session")
    token, dot, signature = cookie.rpartition(".")
    assert dot and len(signature) == 43 and len(token) == 43
    assert client.get("/", follow_redirects=False).status_code == 200
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    other = "x" + token[1:] if token[0] != "x" else "y" + token[1:]
    for forged in (
        token,  # the bare session id, unsigned
        f"{token}.{flipped}",  # signature altered
        f"{other}.{signature}",  # id altered, signature kept
        f"{token}.",
        ".",
        "garbage",
        f"{token}.{signature}x" * 3,
    ):
        client.cookies.set("sleuth_session", forged)
        assert client.get("/", follow_redirects=False).status_code == 303, forged
    client.cookies.set("sleuth_session", cookie)
    assert client.get("/", follow_redirects=False).status_code == 200


def test_unsigned_session_id_from_the_database_opens_nothing(client, factory, org):
    """Knowing a session id (the old cookie format) is not enough without the signature."""
    sign_in(client, org.key)
    token = client.cookies.get("sleuth_session").rpartition(".")[0]
    client.cookies.clear()
    client.cookies.set("sleuth_session", token)
    assert client.get("/", follow_redirects=False).status_code == 303


@pytest.mark.own_app  # the database's signing secret: a database of its own
def test_generated_secret_is_kept_in_the_database_and_shared(settings, factory, org):
    """Unset SLEUTH_SECRET_KEY: the first app generates the secret, a second node (another app on
    the same database) accepts its cookies; a new secret row signs everyone out."""
    from litestar.testing import TestClient

    from sleuth_shell.app import create_app
    from sleuth_shell.db.models import ServerSecret

    assert settings.secret_key is None
    with TestClient(create_app(settings)) as first:
        sign_in(first, org.key)
        cookie = first.cookies.get("sleuth_session")
    rows = factory.run(lambda s: _all(s, ServerSecret))
    assert [r.name for r in rows] == ["session_signing"] and len(rows[0].value) >= 64
    with TestClient(create_app(settings)) as second:
        second.cookies.set("sleuth_session", cookie)
        assert second.get("/", follow_redirects=False).status_code == 200

    async def rotate(session):
        row = await session.get(ServerSecret, "session_signing")
        row.value = "rotated-" + "z" * 60
        await session.commit()

    factory.run(rotate)
    with TestClient(create_app(settings)) as third:
        third.cookies.set("sleuth_session", cookie)
        assert third.get("/", follow_redirects=False).status_code == 303


@pytest.mark.own_app
def test_configured_secret_rotation_signs_everyone_out(settings, org):
    from litestar.testing import TestClient

    from sleuth_shell.app import create_app

    one = settings.model_copy(update={"secret_key": "a" * 40})
    two = settings.model_copy(update={"secret_key": "b" * 40})
    with TestClient(create_app(one)) as first:
        sign_in(first, org.key)
        cookie = first.cookies.get("sleuth_session")
    with TestClient(create_app(one)) as same:
        same.cookies.set("sleuth_session", cookie)
        assert same.get("/", follow_redirects=False).status_code == 200
    with TestClient(create_app(two)) as rotated:
        rotated.cookies.set("sleuth_session", cookie)
        assert rotated.get("/", follow_redirects=False).status_code == 303
        sign_in(rotated, org.key)  # signing in again works with the new key
        assert rotated.get("/", follow_redirects=False).status_code == 200


def test_sign_out_ends_the_session_even_for_a_kept_cookie(client, factory, org):
    csrf = sign_in(client, org.key)
    cookie = client.cookies.get("sleuth_session")
    # Signing out needs the CSRF token too (a cross-site form cannot sign anyone out).
    assert client.post("/logout", data={}).status_code == 403
    assert (
        client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False).status_code == 303
    )
    assert factory.run(lambda s: _sessions(s, org)) == []
    client.cookies.set("sleuth_session", cookie)
    assert client.get("/", follow_redirects=False).status_code == 303


def test_expired_sessions_and_revoked_keys_open_nothing(client, factory, org):
    sign_in(client, org.key)

    async def expire(session):
        await session.execute(
            update(WebSession)
            .where(WebSession.org_id == org.id)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await session.commit()

    factory.run(expire)
    assert client.get("/", follow_redirects=False).status_code == 303

    sign_in(client, org.key)

    async def revoke(session):
        key = (await session.scalars(select(ApiKey).where(ApiKey.org_id == org.id))).one()
        await session.delete(key)
        await session.commit()

    factory.run(revoke)
    assert client.get("/", follow_redirects=False).status_code == 303


def test_sign_in_form_needs_its_csrf_cookie(client, org):
    refused = client.post("/login", data={"api_key": org.key, "csrf_token": "forged"})
    assert refused.status_code == 403
    assert "expired" in refused.text
    assert "sleuth_session" not in client.cookies


def test_every_form_checks_the_csrf_token(client, factory, org):
    agent = factory.add(_agent(org))
    gid = encode_global_id("AlertResponder", agent.id)
    csrf = sign_in(client, org.key)
    for data in ({}, {"csrf_token": "wrong"}):
        refused = client.post(f"/alert-responders/{gid}/pause", data=data)
        assert refused.status_code == 403
        assert refused.json() == {"detail": "The form expired or was not sent by this site"}
    assert factory.run(lambda s: s.get(AlertResponder, agent.id)).status == "ACTIVE"
    done = client.post(
        f"/alert-responders/{gid}/pause", data={"csrf_token": csrf}, follow_redirects=False
    )
    assert done.status_code == 303
    assert factory.run(lambda s: s.get(AlertResponder, agent.id)).status == "PAUSED"
    assert "Resume" in client.get(f"/alert-responders/{gid}").text
    client.post(f"/alert-responders/{gid}/resume", data={"csrf_token": csrf})
    assert factory.run(lambda s: s.get(AlertResponder, agent.id)).status == "ACTIVE"


def test_stop_button_stops_an_unfinished_investigation(client, factory, org):
    investigation = factory.investigation
    running = investigation(org, "Checkout 5xx", InvestigationStatus.PENDING)
    job = factory.add(
        Job(
            kind=RUN_KIND,
            key=str(running.id),
            payload={"investigation_id": running.id},
            run_at=NOW,
            status="pending",
            attempts=0,
            max_attempts=1,
            created_at=NOW,
            updated_at=NOW,
        )
    )
    done = investigation(org, "Disk full", InvestigationStatus.COMPLETED)
    theirs = investigation(factory.org("globex"), "Globex alert", InvestigationStatus.IN_PROGRESS)
    gid, done_gid = (encode_global_id("Investigation", i.id) for i in (running, done))
    csrf = sign_in(client, org.key)

    page = client.get(f"/investigations/{gid}").text
    assert f'action="/investigations/{gid}/stop"' in page and ">Stop</button>" in page
    assert ">Stop</button>" not in client.get(f"/investigations/{done_gid}").text

    for data in ({}, {"csrf_token": "wrong"}):
        assert client.post(f"/investigations/{gid}/stop", data=data).status_code == 403
    assert factory.run(lambda s: s.get(Investigation, running.id)).status == "PENDING"

    stopped = client.post(
        f"/investigations/{gid}/stop", data={"csrf_token": csrf}, follow_redirects=False
    )
    assert stopped.status_code == 303
    assert stopped.headers["location"] == f"/investigations/{gid}"
    assert factory.run(lambda s: s.get(Investigation, running.id)).status == "STOPPED"
    assert factory.run(lambda s: s.get(Job, job.id)) is None  # its queued run is dropped
    after = client.get(f"/investigations/{gid}").text
    assert "STOPPED" in after and ">Stop</button>" not in after

    # A finished investigation stays as it was; another organization's is not found.
    client.post(f"/investigations/{done_gid}/stop", data={"csrf_token": csrf})
    assert factory.run(lambda s: s.get(Investigation, done.id)).status == "COMPLETED"
    foreign = encode_global_id("Investigation", theirs.id)
    assert (
        client.post(f"/investigations/{foreign}/stop", data={"csrf_token": csrf}).status_code == 404
    )
    assert client.post("/investigations/nope/stop", data={"csrf_token": csrf}).status_code == 404
    assert factory.run(lambda s: s.get(Investigation, theirs.id)).status == "IN_PROGRESS"


def test_hostile_values_are_escaped_everywhere(client, factory, org):
    agent = factory.add(_agent(org, name=f"agent {XSS}"))
    inv = factory.add(
        Investigation(
            org_id=org.id,
            alert_responder_id=agent.id,
            team_id=org.default_team_id,
            name=f"inv {XSS}",
            status="COMPLETED",
            prompt=f"prompt {XSS}",
            event_payload='{"title": "<script>alert(2)</script>"}',
            result=(
                f"Answer {XSS} [click](javascript:alert(3)) [ok](https://ci.example.com/1) "
                "<a href='javascript:alert(4)'>raw</a>"
            ),
        )
    )
    interaction = factory.add(
        Interaction(
            org_id=org.id,
            question=f"q {XSS}",
            status="COMPLETED",
            content="[bad](JaVaScRiPt:alert(5)) and [data](data:text/html;base64,PHNjcmlwdD4=)",
            sources=[{"display_text": f"src {XSS}", "link": "javascript:alert(6)"}],
        )
    )
    sign_in(client, org.key)
    pages = [
        "/",
        "/alert-responders",
        f"/alert-responders/{encode_global_id('AlertResponder', agent.id)}",
        "/investigations",
        f"/investigations/{encode_global_id('Investigation', inv.id)}",
        f"/interactions/{interaction.id}",
        "/ask",
    ]
    for path in pages:
        text = client.get(path).text
        assert "<script>alert" not in text, path
        assert "<img src=x" not in text, path
        # Unsafe links stay inert text: no attribute anywhere points at them.
        assert not re.search(
            r"<[a-z]+[^<>]*\s(href|src)=[\"']?\s*(javascript|data|vbscript):", text, re.I
        ), path
    text = client.get(f"/investigations/{encode_global_id('Investigation', inv.id)}").text
    assert "inv &lt;script&gt;" in text
    assert '<a href="https://ci.example.com/1">ok</a>' in text
    assert "&lt;a href=" in text  # raw HTML in markdown is shown as text


def test_markdown_and_link_helpers_refuse_unsafe_links():
    for bad in ["javascript:alert(1)", " JAVASCRIPT:x", "java\tscript:x", "vbscript:x", "data:x"]:
        assert safe_url(bad) is None, bad
    for good in ["https://a.example/x", "/logs?query=%7B%7D", "mailto:a@example.com"]:
        assert safe_url(good) == good
    assert "<a" not in str(markdown_html("[x](javascript:alert(1))"))
    assert "&lt;b&gt;" in str(markdown_html("<b>bold</b>"))


def test_time_and_schedule_helpers():
    assert ts(datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)) == "2026-01-02 03:04:05 UTC"
    assert ago(NOW - timedelta(minutes=5), NOW) == "5 min ago"
    assert ago(NOW + timedelta(hours=3), NOW) == "in 3 h"
    assert ago(NOW - timedelta(days=30), NOW) == "2026-10-23"
    assert schedule_words("0 9 * * 0-4") == "at 09:00 UTC, Monday to Friday"
    assert schedule_words("30 7 * * 0") == "at 07:30 UTC, on Monday"
    assert schedule_words("*/5 * * * *") == "cron */5 * * * * (UTC, day 0 = Monday)"


def test_admin_edits_settings_with_a_validation_message(client, factory):
    org = factory.org("admins", admin_key=True)
    csrf = sign_in(client, org.key)
    page = client.get("/settings")
    assert '<textarea id="document"' in page.text
    bad = client.post("/settings", data={"csrf_token": csrf, "document": '{"assignments": 5}'})
    assert bad.status_code == 400
    assert 'id="document-error"' in bad.text
    assert "assignments" in re.search(r'id="document-error"[^>]*>([^<]*)<', bad.text).group(1)
    not_json = client.post("/settings", data={"csrf_token": csrf, "document": "{"})
    assert "Not valid JSON" in not_json.text
    assert factory.run(lambda s: s.get(AdvancedSettings, org.id)) is None
    good = client.post(
        "/settings", data={"csrf_token": csrf, "document": '{"note": "hi"}'}, follow_redirects=False
    )
    assert good.status_code == 303
    assert factory.run(lambda s: s.get(AdvancedSettings, org.id)).document == {"note": "hi"}


def test_non_admins_read_settings_but_cannot_change_them(client, factory, org):
    csrf = sign_in(client, org.key)
    page = client.get("/settings")
    assert "Read-only" in page.text
    assert "<textarea" not in page.text
    assert "Revoke" not in page.text
    refused = client.post(
        "/settings",
        data={"csrf_token": csrf, "document": "{}"},
        headers={"Accept": "text/html"},
    )
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("text/html")
    assert "Admin API key required" in refused.text
    other_key = factory.run(lambda s: s.scalar(select(ApiKey.id).where(ApiKey.org_id == org.id)))
    assert (
        client.post(f"/settings/api-keys/{other_key}/revoke", data={"csrf_token": csrf}).status_code
        == 403
    )


def test_admin_revokes_another_key_and_its_sessions(client, factory):
    org = factory.org("keys", admin_key=True)
    other = factory.key(org)
    other_id = factory.run(
        lambda s: s.scalar(
            select(ApiKey.id).where(ApiKey.org_id == org.id).order_by(ApiKey.id.desc())
        )
    )
    csrf = sign_in(client, org.key)
    assert f"/settings/api-keys/{other_id}/revoke" in client.get("/settings").text
    done = client.post(
        f"/settings/api-keys/{other_id}/revoke", data={"csrf_token": csrf}, follow_redirects=False
    )
    assert done.status_code == 303
    assert (
        client.get(
            "/api/v1/settings/advanced", headers={"X-Service-Org-Api-Key": other}
        ).status_code
        == 401
    )


def test_browsers_get_html_errors_and_the_api_keeps_json(client, org):
    page = client.get("/no-such-page", headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<h1>Not found</h1>" in page.text
    api = client.get("/api/v1/no-such", headers={"Accept": "text/html", **org.headers})
    assert api.status_code == 404
    assert api.json() == {"detail": "Not found"}
    sign_in(client, org.key)
    missing = client.get("/investigations/nope", headers={"Accept": "text/html"})
    assert missing.status_code == 404
    assert "Investigation not found" in missing.text
    assert 'href="/ask"' in missing.text  # the signed-in layout, with navigation


def test_pages_show_only_the_signed_in_organizations_data(client, factory, org):
    other = factory.org("globex")
    factory.add(_agent(other, name="Globex secret agent"))
    factory.add(
        Digest(
            org_id=other.id,
            team_id=other.default_team_id,
            name="Globex digest",
            sections=[],
            schedule="0 9 * * *",
        )
    )
    factory.add(Interaction(org_id=other.id, question="Globex question", status="COMPLETED"))
    mine = factory.add(_agent(org, name="Acme agent"))
    sign_in(client, org.key)
    for path in ["/", "/alert-responders", "/digests", "/ask", "/investigations"]:
        text = client.get(path).text
        assert "Globex" not in text, path
    assert "Acme agent" in client.get("/alert-responders").text
    assert mine is not None


def test_lists_filter_and_page(client, factory, org):
    agent = factory.add(_agent(org))
    odd = {7: InvestigationStatus.ERRORED, 9: InvestigationStatus.IN_PROGRESS}
    for n in range(30):
        factory.add(
            Investigation(
                org_id=org.id,
                alert_responder_id=agent.id if n % 2 else None,
                team_id=org.default_team_id,
                name=f"inv-{n:02d}",
                status=odd.get(n, InvestigationStatus.COMPLETED),
                prompt="p",
            )
        )
    sign_in(client, org.key)
    first = client.get("/investigations").text
    assert "inv-29" in first and "inv-04" not in first
    assert "page=2" in first
    # The filter offers exactly the investigation statuses.
    offered = re.findall(r"<option(?: selected)?>([A-Z_]+)</option>", first)
    assert offered == list(INVESTIGATION.values)
    second = client.get("/investigations?page=2").text
    assert "inv-04" in second
    errored = client.get("/investigations?status=ERRORED").text
    assert "inv-07" in errored and "inv-08" not in errored and "inv-09" not in errored
    in_progress = client.get("/investigations?status=IN_PROGRESS").text
    assert "inv-09" in in_progress and "inv-07" not in in_progress
    by_agent = client.get(
        f"/investigations?agent={encode_global_id('AlertResponder', agent.id)}"
    ).text
    assert "inv-29" in by_agent and "inv-28" not in by_agent
    for wrong in ("BOGUS", "FAILED", "RUNNING"):
        assert client.get(f"/investigations?status={wrong}").status_code == 400, wrong


def test_home_lists_work_in_progress_and_scheduled(client, factory, org):
    def section(html: str) -> str:
        return html.split("<h2>Running and scheduled</h2>")[1].split("</section>")[0]

    for name, status in (
        ("inv-working", InvestigationStatus.IN_PROGRESS),
        ("inv-waiting", InvestigationStatus.PENDING),
        ("inv-done", InvestigationStatus.COMPLETED),
        ("inv-stopped", InvestigationStatus.STOPPED),
    ):
        factory.investigation(org, name, status)
    for question, status in (
        ("q-working", InteractionStatus.IN_PROGRESS),
        ("q-later", InteractionStatus.PENDING),
        ("q-failed", InteractionStatus.FAILED),
    ):
        factory.interaction(org, question, status)
    digest = factory.add(
        Digest(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Weekly digest",
            sections=[],
            schedule="0 9 * * 1",
        )
    )
    factory.add(DigestRun(org_id=org.id, digest_id=digest.id, status=DigestRunStatus.IN_PROGRESS))
    sign_in(client, org.key)
    running = section(client.get("/").text)
    for shown in ("inv-working", "inv-waiting", "q-working", "q-later", "Weekly digest"):
        assert shown in running, shown
    for hidden in ("inv-done", "inv-stopped", "q-failed"):
        assert hidden not in running, hidden


def test_logs_page_filters_and_pages(client, factory, org):
    base = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)
    for n in range(60):
        factory.add(
            LogRecord(
                org_id=org.id,
                timestamp=base + timedelta(seconds=n),
                service="payments" if n % 2 else "checkout",
                level="ERROR" if n % 3 == 0 else "INFO",
                message=f"line-{n:02d} {XSS if n == 0 else ''}",
                attributes={},
            )
        )
    sign_in(client, org.key)
    page = client.get("/logs").text
    assert "line-59" in page and "line-05" not in page  # newest first, 50 a page
    assert "page=2" in page
    assert "<script>alert" not in client.get("/logs?page=2").text
    errors = client.get("/logs?level=ERROR&service=checkout").text
    assert "line-54" in errors and "line-55" not in errors and "line-56" not in errors
    text = client.get("/logs?text=line-1").text
    assert "line-12" in text and "line-22" not in text
    ranged = client.get("/logs?from=2026-11-22T08:00:10Z&to=2026-11-22T08:00:12Z").text
    assert "line-10" in ranged and "line-11" in ranged and "line-12" not in ranged
    assert client.get("/logs?level=LOUD").status_code == 400
    assert client.get("/logs?from=yesterday").status_code == 400


def test_ask_answers_and_follow_ups_carry_the_conversation(client, factory, org):
    csrf = sign_in(client, org.key)
    empty = client.post("/ask", data={"csrf_token": csrf, "question": "   "})
    assert empty.status_code == 400
    assert 'id="question-error"' in empty.text
    asked = client.post(
        "/ask",
        data={"csrf_token": csrf, "question": "Why is checkout failing?"},
        follow_redirects=False,
    )
    assert asked.status_code == 303
    first_path = asked.headers["location"]
    first_id = first_path.rsplit("/", 1)[1]
    page = client.get(first_path).text
    assert "Why is checkout failing?" in page
    follow = client.post(
        "/ask",
        data={"csrf_token": csrf, "question": "And payments?", "follow_up": first_id},
        follow_redirects=False,
    )
    second = factory.run(lambda s: s.get(Interaction, follow.headers["location"].rsplit("/", 1)[1]))
    assert {"interaction_id": first_id} in second.context
    assert f'href="/interactions/{first_id}"' in client.get(follow.headers["location"]).text


def test_digest_page_shows_schedule_and_runs_now(client, factory, org):
    digest = factory.add(
        Digest(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Morning",
            sections=[{"section": "Errors", "prompt": "Errors overnight"}],
            schedule="0 9 * * 0-4",
        )
    )
    gid = encode_global_id("Digest", digest.id)
    csrf = sign_in(client, org.key)
    page = client.get(f"/digests/{gid}").text
    assert "at 09:00 UTC, Monday to Friday" in page
    assert page.count(":00:00 UTC") >= 3  # the next fire times
    assert "Morning" in client.get("/digests").text
    run = client.post(f"/digests/{gid}/run", data={"csrf_token": csrf}, follow_redirects=False)
    assert run.status_code == 303
    assert run.headers["location"].startswith(f"/digests/{gid}/runs/")
    assert "PENDING" in client.get(run.headers["location"]).text


@pytest.mark.parametrize("path", ["/", "/ask", "/settings", "/logs", "/knowledge", "/digests"])
def test_pages_without_a_session_go_to_sign_in(client, path):
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=")


def test_citation_markers_link_to_their_sources():
    html = cite_links(markdown_html("Bad deploy [1], see [2] and [9]. `code [1]`"), 2)
    assert '<a class="cite" href="#source-1">[1]</a>' in str(html)
    assert '<a class="cite" href="#source-2">[2]</a>' in str(html)
    assert "[9]" in str(html) and "#source-9" not in str(html)
    assert "<code>code [1]</code>" in str(html)


def _completed(factory, org, analysis: dict[str, object]) -> Investigation:
    """A completed investigation of ``org`` with this ``analysis``."""
    return factory.add(
        Investigation(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Orders errors",
            status="COMPLETED",
            prompt="p",
            result="It was c0ffee12 [1].",
            analysis=analysis,
        )
    )


def test_investigation_page_shows_the_verdict(client, factory, org):
    analysis = {
        "verdict": "change",
        "change_id": "c0ffee12",
        "deploy_id": "deploy-orders-9",
        "service": "orders",
        "affected_services": ["orders", "checkout"],
        "confidence": "LIKELY",
        "remediation": "Revert commit c0ffee12 and redeploy.",
        "onset": "2026-05-06T13:35:00Z",
        "evidence": [1, 2],
    }
    inv = _completed(factory, org, analysis)
    plain = factory.add(
        Investigation(
            org_id=org.id, team_id=org.default_team_id, name="Old", status="COMPLETED", prompt="p"
        )
    )
    sign_in(client, org.key)
    page = client.get(f"/investigations/{encode_global_id('Investigation', inv.id)}").text
    assert "<code>c0ffee12</code>" in page and "<code>deploy-orders-9</code>" in page
    assert "LIKELY" in page and "Revert commit c0ffee12 and redeploy." in page
    assert "Also affected</dt><dd>checkout" in page and "[1] [2]" in page
    other = client.get(f"/investigations/{encode_global_id('Investigation', plain.id)}").text
    assert "Verdict" not in other


def test_investigation_charts_span_the_window_the_analysis_read(client, factory, org):
    """The charts cover the look-back the analysis read (recorded in ``analysis.window``), not one
    worked out again from the alert: an instruction such as "the last 6 hours" can move the
    analysis away from the payload's own (old) time."""
    analysis = {
        "verdict": "change",
        "change_id": "c0ffee12",
        "service": "orders",
        "affected_services": ["orders"],
        "confidence": "LIKELY",
        "onset": "2026-05-06T13:35:00Z",
        "window": {"start": "2026-05-06T01:40:00Z", "end": "2026-05-06T13:45:00Z"},
        "evidence": [1],
    }
    inv = _completed(factory, org, analysis)
    sign_in(client, org.key)
    page = client.get(f"/investigations/{encode_global_id('Investigation', inv.id)}").text
    assert "from 2026-05-06 01:40 UTC to 2026-05-06 13:45 UTC" in page


def test_an_analysis_without_its_window_is_charted_over_the_look_back_the_agent_reads(
    client, factory, org
):
    """An analysis stored before it recorded its window: the page works out the same look-back
    as the investigation (`rca.fired_at`): the prompt's "last 6 hours" wins over a payload's
    2021 time."""
    from datetime import UTC, datetime

    done = datetime(2026, 5, 6, 14, 0, tzinfo=UTC)
    analysis = {"verdict": "change", "service": "orders", "affected_services": ["orders"]}
    inv = factory.add(
        Investigation(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Orders errors",
            status="COMPLETED",
            prompt="Which errors in the last 6 hours?",
            event_payload='{"title": "orders down", "occurred_at": "2021-06-04T13:35:29Z"}',
            result="done",
            analysis=analysis,
            created_at=done,
            started_at=done,
            completed_at=done,
        )
    )
    sign_in(client, org.key)
    page = client.get(f"/investigations/{encode_global_id('Investigation', inv.id)}").text
    assert "from 2026-05-06 02:00 UTC to 2026-05-06 14:00 UTC" in page
