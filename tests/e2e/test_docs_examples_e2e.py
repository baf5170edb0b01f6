"""Every example in ``docs/*.md``, run against a real ``sleuth serve`` (issue 13: the docs cannot
drift from the product).

The fenced code blocks of each page are found and classified by their language tag; nothing is
skipped silently. A block is one of:

* ``console``: a transcript. Each ``$ command`` line runs in bash (curl is the real ``curl``,
  ``sleuth`` this checkout's CLI) with the page's shell state carried from command to command; the
  lines after it are its expected output (stdout and stderr together).
* ``sh``: a script, run the same way with ``set -eo pipefail`` (it must exit 0). Its expected
  outputs are the ``# {...}`` comment lines inside it and a ``json`` block right after it; they
  are matched, in order, against the last JSON documents the script printed.
* ``python`` with ``>>>``: doctests, run in the page's order with shared globals.
* ``python`` without ``>>>``: either in :data:`RUN_PYTHON` (run as a program; a ``text`` block
  right after it is its exact expected stdout) or in :data:`NOT_RUN` with the reason.
* ``json`` not after a command: a request body or configuration; it must parse. An MCP client
  configuration (``mcpServers``) is also used: every server's ``url`` and ``headers`` must list
  Sleuth's tools on the test server.
* ``toml``: must parse.
* untagged blocks on the pages of :data:`OUTPUT_PAGES` are measured output (profiles, tables);
* anything else (diagrams, untagged) must be in :data:`NOT_RUN`.

A block that fits none of these, or a :data:`NOT_RUN` entry that no longer matches a block, fails
the test: a new example must either run or be listed with the reason it cannot.

Each page with examples to run gets its own fresh SQLite database and ``sleuth serve``. How the
placeholders the docs use are filled in:

* ``http://127.0.0.1:<any port>`` (in commands and in expected output) is the test server's URL;
  ``sleuth serve ...`` lines are not run (the server already runs) and neither is an ``export``
  of ``SLEUTH_DATABASE_URL`` (the page's database is the test's).
* The environment holds ``SLEUTH``, ``SLEUTH_URL`` and ``SLEUTH_PUBLIC_URL`` (the server's URL).
  On a page that does not create its own organization (no ``sleuth admin create-org``), an
  organization ``acme`` exists with an admin key in ``KEY``, ``API_KEY``, ``SLEUTH_KEY``,
  ``SLEUTH_API_KEY`` and ``ADMIN_KEY``, and its signing secret in ``SLEUTH_SIGNING_SECRET``.
* Identifiers are learned: where the doc's expected output shows an ID, key, secret or elided
  value (``…``) and the real output has another string at the same place, later commands get the
  real one wherever the doc's appears (so ``export KEY=slk_76C_…dwlyw`` exports the real key).

How expected output is compared (:func:`same_shape`): JSON objects must have exactly the keys the
doc shows (except maps keyed by months or dates); values must have the doc's type; ``null``,
booleans and the strings of :data:`EXACT_KEYS` (``detail``, ``status``, names, ...) must be
equal; list lengths are data, not
shape, so only the elements both lists have are compared. ``HTTP/1.1 404 Not Found`` status lines
and plain text lines (``Error: ...``) must be equal. A ``GET`` whose output does not match yet is
retried for a few seconds (the docs show background work once it has finished).
"""

from __future__ import annotations

import asyncio
import doctest
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_harness import ROOT, free_port, serve, sleuth_env

from sleuth_shell import admin
from sleuth_shell.db import create_engine, create_session_factory, migrate

pytestmark = pytest.mark.e2e

DOCS = ROOT / "docs"

#: Blocks that are not run here, by (page, first line of the block): the reason.
NOT_RUN: dict[tuple[str, str], str] = {
    ("mcp.md", "mkdir -p .cursor && cp integrations/cursor/mcp.json .cursor/mcp.json"): (
        "copies Cursor's configuration into a checkout; tests/shell/test_integrations.py checks "
        "the file's shape"
    ),
    ("mcp.md", "claude mcp add --transport http sleuth https://sleuth.example.com/mcp"): (
        "Claude Code's own command (no Claude Code here); tests/e2e/test_mcp_e2e.py connects the "
        "MCP SDK's OAuth client to the same URL"
    ),
    ("mcp.md", "claude plugin marketplace add ./ && claude plugin install sleuth@sleuth"): (
        "Claude Code's plug-in install; tests/shell/test_integrations.py checks the plug-in files "
        "and tests/e2e/test_mcp_e2e.py connects through the plug-in's URL"
    ),
    ("agents.md", "class Agent(Protocol):"): "the protocol's signatures, not a program",
    ("agents.md", "# my_agent/__init__.py"): (
        "a plug-in package; tests/shell/test_agent_registry.py loads an agent the same way"
    ),
    (
        "architecture.md",
        "core/src/sleuth_core     pure: plain values in, plain values out; no I/O,"
        " no clock, no event loop",
    ): "a directory map",
    ("architecture.md", "cli, __main__"): "the layer diagram (tests/shell/test_layers.py)",
    ("core.md", "CoreError"): "the exception hierarchy drawn as a tree",
    (
        "chat.md",
        "sleuth admin set-webhook-secret acme <remote_id> --provider-secret <Slack signing secret>",
    ): "needs the reader's Slack signing secret; set-webhook-secret runs in "
    "alert-agents-and-digests.md",
    ("chat.md", "SLEUTH_CHAT_BOT_TOKEN=xoxb-... sleuth serve"): (
        "needs a real Slack bot token; the Web API client is tested against a local stand-in "
        "in tests/shell/test_chat_web_api.py"
    ),
    ("billing.md", "from sleuth_shell.billing import FEATURE_INTERACTION, record_usage"): (
        "a fragment of service code (await inside a caller); tests/shell/test_billing_usage.py"
    ),
    ("billing.md", 'SLEUTH_AGENT_COSTS="run=2,knowledge_search=0.5,log_query=0.2" sleuth serve'): (
        "starts a server; the variable is checked by tests/shell/test_agent_retrieval.py"
    ),
    ("interactions.md", "import hashlib, hmac, json, os, time"): (
        "a callback receiver program that waits for requests; its signature check is the one "
        "tests/callback_receiver.py does against a real server, and the vector below"
    ),
    (
        "interactions.md",
        "secret:    dc20fd41d15bf2b529d955e21f34ef9d51698319b6b5b6ac3bc1278416779145",
    ): "a signature test vector, checked by test_signature_vector_in_interactions_doc below",
    ("alert-intake.md", "receivers:"): (
        "Alertmanager's receiver block: tests/e2e/test_alertmanager_e2e.py runs it in Debian's "
        "prometheus-alertmanager with the run's URL and secret"
    ),
    ("opentelemetry.md", "receivers:"): (
        "an OpenTelemetry Collector configuration (no Collector runs here); "
        "tests/e2e/test_otlp_e2e.py parses it and sends to its otlphttp endpoint with its headers"
    ),
}

#: Pages whose untagged (or ``text``) blocks are measured output, never programs: what the
#: benchmarks and profilers printed, kept as the record of a measurement.
OUTPUT_PAGES: dict[str, str] = {
    "performance.md": "benchmark tables and profiler output (make bench-*, py-spy, cProfile)",
}

#: Pages whose ``sh`` blocks another test runs as one script, with assertions about their answers.
RUN_ELSEWHERE: dict[str, str] = {
    "alert-intake.md": "tests/e2e/test_alert_intake_docs_e2e.py",
}

#: Python programs (by page, first line) run as they are, with the server URL filled in.
RUN_PYTHON: set[tuple[str, str]] = {("mcp.md", "import asyncio")}

#: Console commands that need a program this machine does not have: validated, not run.
VALIDATED_COMMANDS = ("claude mcp add ",)

#: JSON members whose string values must equal the doc's (others only need the type).
EXACT_KEYS = frozenset(
    {
        "detail",
        "status",
        "kind",
        "type",
        "name",
        "title",
        "question",
        "team_name",
        "organization_name",
        "section",
        "prompt",
        "schedule",
        "channel_id",
        "plan",
        "org",
        "month",
        "jsonrpc",
        "operator",
        "value",
        "investigation_prompt",
        "chat_channel_id",
        "text_matches",
    }
)

_LOCAL_URL = re.compile(r"http://127\.0\.0\.1:\d+")
_DATA_KEY = re.compile(r"^\d{4}-\d\d")
_IDENTIFIER = re.compile(r"^[A-Za-z0-9_+/=.:-]{6,}$")
_FENCE = re.compile(r"^([ \t]*)(`{3,})(\S*)[^\n]*\n(.*?)^\1\2[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass
class Block:
    page: str
    line: int
    lang: str
    text: str

    @property
    def first_line(self) -> str:
        return next((ln.strip() for ln in self.text.splitlines() if ln.strip()), "")

    @property
    def where(self) -> str:
        return f"docs/{self.page}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    return [
        Block(
            path.name,
            text[: m.start()].count("\n") + 1,
            m.group(3).lower(),
            textwrap.dedent(m.group(4)),
        )
        for m in _FENCE.finditer(text)
    ]


def all_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


# --- expected output ------------------------------------------------------------------------------


def loads_elided(text: str) -> Any:
    """JSON as the docs write it: ``…`` outside strings stands for left-out elements."""
    out: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif char != "…":
            out.append(char)
    cleaned = "".join(out)
    for _ in range(3):
        cleaned = re.sub(r",\s*([\]}])", r"\1", cleaned)
        cleaned = re.sub(r"([\[{])\s*,", r"\1", cleaned)
        cleaned = re.sub(r",\s*,", ",", cleaned)
    return json.loads(cleaned)


def json_documents(text: str) -> list[Any]:
    """Every JSON object or array printed in ``text`` (other text is skipped)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    index = 0
    while True:
        match = re.compile(r"[\[{]").search(text, index)
        if match is None:
            return found
        try:
            value, end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            index = match.start() + 1
            continue
        found.append(value)
        index = end


@dataclass
class Page:
    """One page's run: its server, environment, shell state and learned identifiers."""

    name: str
    base: str
    env: dict[str, str]
    state: Path
    learned: dict[str, str] = field(default_factory=dict)

    def fill(self, text: str) -> str:
        text = _LOCAL_URL.sub(self.base, text)
        for doc_value in sorted(self.learned, key=len, reverse=True):
            text = text.replace(doc_value, self.learned[doc_value])
        return text

    def learn(self, expected: str, actual: str) -> None:
        if expected != actual and ("…" in expected or _IDENTIFIER.match(expected)):
            if expected.startswith(self.base) or expected in {"true", "false"}:
                return
            self.learned.setdefault(expected, actual)

    def bash(self, script: str, *, strict: bool) -> subprocess.CompletedProcess[str]:
        prelude = f"source {shlex.quote(str(self.state))} 2>/dev/null\n"
        if strict:
            prelude += "set -eo pipefail\n"
        save = (
            "\n__rc=$?\nset +e\n{ declare -p | grep -Ev "
            "'^declare -[a-zA-Z-]*r|^declare -[a-zA-Z-]* (BASH[A-Z_]*|SHELLOPTS|EUID|PPID|UID|"
            "FUNCNAME|GROUPS|PIPESTATUS|_|__rc)='; declare -f; } > "
            f"{shlex.quote(str(self.state))}\nexit $__rc\n"
        )
        return subprocess.run(
            ["bash", "-c", prelude + script + save],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def same_shape(page: Page, expected: Any, actual: Any, path: str = "$", key: str = "") -> None:
    """Assert ``actual`` has the shape the doc shows (see the module docstring)."""
    where = f"{path}: doc {json.dumps(expected)[:200]} vs real {json.dumps(actual)[:200]}"
    if isinstance(expected, dict) and expected and all(map(_DATA_KEY.match, expected)):
        # A map keyed by data (months, dates): its keys are not its shape.
        assert isinstance(actual, dict) and all(map(_DATA_KEY.match, actual)), where
        sample = next(iter(expected.values()))
        for name, value in actual.items():
            same_shape(page, sample, value, f"{path}.{name}", name)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), where
        assert set(expected) == set(actual), (
            f"{path}: keys differ: doc only {sorted(set(expected) - set(actual))}, "
            f"real only {sorted(set(actual) - set(expected))}"
        )
        for name, value in expected.items():
            same_shape(page, value, actual[name], f"{path}.{name}", name)
    elif isinstance(expected, list):
        assert isinstance(actual, list), where
        for index, (doc_item, real_item) in enumerate(zip(expected, actual, strict=False)):
            same_shape(page, doc_item, real_item, f"{path}[{index}]", key)
    elif expected is None or isinstance(expected, bool):
        assert actual is expected, where
    elif isinstance(expected, int | float):
        assert isinstance(actual, int | float) and not isinstance(actual, bool), where
    else:
        assert isinstance(actual, str), where
        filled = page.fill(expected)
        if key in EXACT_KEYS and "…" not in expected and filled != actual:
            raise AssertionError(where)
        page.learn(expected, actual)


def check_text_output(page: Page, expected: str, actual: str) -> None:
    """Console output: JSON documents by shape, an HTTP status line and text lines exactly."""
    expected = expected.strip()
    if expected.startswith("HTTP/"):
        assert actual.splitlines()[0].strip() == expected.splitlines()[0].strip(), actual
        body = expected.split("\n\n", 1)[1] if "\n\n" in expected else ""
        if body.strip():
            docs = json_documents(actual)
            assert docs, actual
            same_shape(page, loads_elided(body), docs[-1])
        return
    if expected.startswith(("{", "[")):
        docs = json_documents(actual)
        assert len(docs) == 1, f"expected one JSON document, got: {actual[:500]}"
        same_shape(page, loads_elided(expected), docs[0])
        return
    assert actual.strip() == page.fill(expected), f"doc: {expected!r}\nreal: {actual!r}"


# --- running a page -------------------------------------------------------------------------------


def console_commands(block: Block) -> Iterator[tuple[str, str]]:
    """``(command, expected output)`` of each ``$`` line of a transcript."""
    command: str | None = None
    output: list[str] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "\n".join(output)
            command, output = line[2:], []
        else:
            assert command is not None, f"{block.where}: output before any command"
            output.append(line)
    if command is not None:
        yield command, "\n".join(output)


def skipped_line(command: str) -> bool:
    stripped = command.strip()
    return stripped.startswith("sleuth serve") or stripped.startswith("export SLEUTH_DATABASE_URL=")


def is_get(command: str) -> bool:
    return command.lstrip().startswith("curl ") and not re.search(r"\s-(X|d)\s", command)


def run_console(page: Page, block: Block) -> None:
    for command, expected in console_commands(block):
        if skipped_line(command):
            continue
        if command.startswith(VALIDATED_COMMANDS):
            validate_mcp_add(page, command)
            continue
        deadline = time.monotonic() + (8 if is_get(command) else 0)
        while True:
            done = page.bash(page.fill(command), strict=False)
            output = done.stdout + done.stderr
            try:
                if expected.strip():
                    check_text_output(page, expected, output)
                break
            except AssertionError as error:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{block.where}: $ {command}\n{error}") from None
                time.sleep(0.1)


def sh_expectations(block: Block, following: Block | None) -> list[Any]:
    expected = [
        loads_elided(re.split(r"\s{3,}\(", line.strip()[2:])[0])
        for line in block.text.splitlines()
        if re.match(r"\s*# [\[{]", line)
    ]
    if following is not None and following.lang == "json":
        expected.append(loads_elided(following.text))
    return expected


def run_sh(page: Page, block: Block, following: Block | None) -> None:
    script = "\n".join(
        line for line in block.text.splitlines() if not skipped_line(line.split("#")[0] + " ")
    )
    expected = sh_expectations(block, following)
    deadline = time.monotonic() + (8 if expected and is_get(script.splitlines()[-1]) else 0)
    while True:
        done = page.bash(page.fill(script), strict=True)
        assert done.returncode == 0, f"{block.where} failed:\n{done.stdout}\n{done.stderr}"
        printed = json_documents(done.stdout)
        try:
            assert len(printed) >= len(expected), (
                f"{block.where}: the doc shows {len(expected)} answers, it printed "
                f"{done.stdout[:800]}"
            )
            for doc_value, real in zip(
                expected, printed[len(printed) - len(expected) :], strict=True
            ):
                same_shape(page, doc_value, real)
            return
        except AssertionError as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"{block.where}: {error}") from None
            time.sleep(0.1)


def validate_mcp_add(page: Page, command: str) -> None:
    """``claude mcp add --transport http NAME URL --header H``: the URL and header work."""
    words = shlex.split(page.fill(command).replace("$SLEUTH_API_KEY", page.env["SLEUTH_API_KEY"]))
    assert words[:3] == ["claude", "mcp", "add"] and "--transport" in words
    assert words[words.index("--transport") + 1] == "http"
    url = next(w for w in words if w.startswith(("http://", "https://")))
    header = words[words.index("--header") + 1]
    name, value = header.split(":", 1)
    probe_mcp(url, {name.strip(): value.strip()})


def probe_mcp(url: str, headers: dict[str, str]) -> None:
    response = httpx.post(
        url,
        headers={
            **headers,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
        json={"jsonrpc": "2.0", "method": "tools/list", "id": 1},
        timeout=30,
        follow_redirects=True,
    )
    assert response.status_code == 200, response.text
    assert "sleuth_ask" in response.text and "sleuth_fetch_context" in response.text


def validate_json(page: Page, block: Block) -> None:
    value = loads_elided(block.text)
    servers = value.get("mcpServers") if isinstance(value, dict) else None
    for server in (servers or {}).values():
        headers = {
            name: re.sub(r"\$\{env:(\w+)\}", lambda m: page.env[m.group(1)], text)
            for name, text in server.get("headers", {}).items()
        }
        probe_mcp(page.fill(server["url"]), headers)


def run_python(page: Page, block: Block, following: Block | None, tmp: Path) -> None:
    program = tmp / f"{page.name}-{block.line}.py"
    program.write_text(page.fill(block.text), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(program)],
        env=page.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{block.where}:\n{done.stderr}"
    if following is not None and following.lang == "text":
        assert done.stdout.strip() == page.fill(following.text).strip(), done.stdout


def run_doctests(block: Block, globs: dict[str, Any]) -> None:
    test = doctest.DocTestParser().get_doctest(
        block.text, globs, block.where, str(DOCS / block.page), block.line
    )
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=report.append, clear_globs=False)
    globs.update(test.globs)  # a page's later examples use its earlier imports
    assert not runner.failures, "".join(report)


# --- the plan ------------------------------------------------------------------------------------


@dataclass
class Plan:
    steps: list[tuple[str, Block, Block | None]]
    needs_server: bool


def plan_page(path: Path, listed: set[tuple[str, str]]) -> Plan:
    """What to do with each block of a page; fails on a block nothing accounts for."""
    blocks = blocks_of(path)
    steps: list[tuple[str, Block, Block | None]] = []
    consumed: set[int] = set()
    for index, block in enumerate(blocks):
        if index in consumed:
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        key = (block.page, block.first_line)
        if key in NOT_RUN:
            listed.add(key)
            continue
        if block.page in OUTPUT_PAGES and block.lang in ("", "text"):
            continue
        if block.lang == "console":
            steps.append(("console", block, None))
        elif block.lang == "sh":
            if block.page in RUN_ELSEWHERE:
                continue
            steps.append(("sh", block, following))
            if following is not None and following.lang == "json":
                consumed.add(index + 1)
        elif block.lang == "python" and ">>>" in block.text:
            steps.append(("doctest", block, None))
        elif block.lang == "python" and key in RUN_PYTHON:
            steps.append(("python", block, following))
            if following is not None and following.lang == "text":
                consumed.add(index + 1)
        elif block.lang == "json":
            steps.append(("json", block, None))
        elif block.lang == "toml":
            steps.append(("toml", block, None))
        else:
            raise AssertionError(
                f"{block.where}: a {block.lang or 'untagged'} block this test cannot run "
                f"({block.first_line!r}); make it runnable or add it to NOT_RUN with the reason"
            )
    needs_server = any(kind in {"console", "sh", "python", "json"} for kind, _, _ in steps)
    return Plan(steps, needs_server)


def test_every_doc_block_is_accounted_for() -> None:
    """Fast and server-free: a new block nothing can run, or a stale NOT_RUN entry, fails here."""
    listed: set[tuple[str, str]] = set()
    for path in all_pages():
        plan_page(path, listed)
    assert set(NOT_RUN) == listed, f"NOT_RUN entries matching no block: {set(NOT_RUN) - listed}"
    for page in RUN_ELSEWHERE:
        assert (DOCS / page).exists()
    for page, _ in RUN_PYTHON:
        assert (DOCS / page).exists()


def test_signature_vector_in_interactions_doc() -> None:
    """The callback signature vector in docs/interactions.md is what HMAC-SHA256 gives."""
    import hashlib
    import hmac

    vector = next(
        b for b in blocks_of(DOCS / "interactions.md") if b.first_line.startswith("secret:")
    )
    fields = dict(line.split(":", 1) for line in vector.text.splitlines() if line.strip())
    secret, body, signature = (fields[k].strip() for k in ("secret", "body", "signature"))
    digest = hmac.new(secret.encode(), body.encode("utf-8"), hashlib.sha256).hexdigest()
    assert signature == f"v1={digest}"


async def _harness_org(database: str) -> tuple[str, str]:
    """Organization ``acme`` (team plan) with an admin key, made in-process (the CLI's startup
    would cost seconds per page); returns the key and the signing secret."""
    engine = create_engine(database)
    try:
        async with create_session_factory(engine)() as session:
            org = await admin.create_org(session, "acme", "team")
            _, key = await admin.create_key(session, "acme", admin=True)
            return key, org.signing_secret
    finally:
        await engine.dispose()


PAGES = [p for p in all_pages() if _FENCE.search(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_the_pages_examples_run_as_written(path: Path, tmp_path: Path) -> None:
    plan = plan_page(path, set())
    globs: dict[str, Any] = {}
    if not plan.needs_server:
        for kind, block, _ in plan.steps:
            if kind == "doctest":
                run_doctests(block, globs)
            elif kind == "toml":
                tomllib.loads(block.text)
        return
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    database = f"sqlite:///{tmp_path / 'sleuth.db'}"
    env = sleuth_env(database, SLEUTH_PUBLIC_URL=base, SLEUTH_ALLOW_PRIVATE_URLS="true")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(SLEUTH=base, SLEUTH_URL=base)
    migrate(database)
    if "sleuth admin create-org" not in path.read_text(encoding="utf-8"):
        key, secret = asyncio.run(_harness_org(database))
        env.update(
            KEY=key,
            API_KEY=key,
            SLEUTH_KEY=key,
            SLEUTH_API_KEY=key,
            ADMIN_KEY=key,
            SLEUTH_SIGNING_SECRET=secret,
        )
    state = tmp_path / "shell-state.sh"
    state.write_text("", encoding="utf-8")
    page = Page(path.name, base, env, state)
    with serve(env, tmp_path / "serve.log", port=port):
        for kind, block, following in plan.steps:
            if kind == "console":
                run_console(page, block)
            elif kind == "sh":
                run_sh(page, block, following)
            elif kind == "doctest":
                run_doctests(block, globs)
            elif kind == "python":
                run_python(page, block, following, tmp_path)
            elif kind == "json":
                validate_json(page, block)
            elif kind == "toml":
                tomllib.loads(block.text)


def test_the_comparison_catches_drift() -> None:
    """The checks above can fail: a changed message, a missing member, a wrong type."""
    page = Page("x.md", "http://127.0.0.1:1", {}, Path("/dev/null"))
    same_shape(page, loads_elided('{"detail":"Digest not found"}'), {"detail": "Digest not found"})
    with pytest.raises(AssertionError):
        same_shape(page, {"detail": "Digest not found"}, {"detail": "Not found"})
    with pytest.raises(AssertionError, match="keys differ"):
        same_shape(page, {"id": "RGlnZXN0OjE=", "url": "u"}, {"id": "RGlnZXN0OjI="})
    with pytest.raises(AssertionError):
        same_shape(page, {"n": 1}, {"n": "1"})
    with pytest.raises(AssertionError):
        same_shape(page, {"runbook": None}, {"runbook": {}})
    same_shape(page, {"id": "RGlnZXN0OjE="}, {"id": "RGlnZXN0OjI="})
    assert page.fill("curl $SLEUTH/api/v1/digests/RGlnZXN0OjE=") == (
        "curl $SLEUTH/api/v1/digests/RGlnZXN0OjI="
    )
    assert loads_elided('{"a": [1, …], "b": "x…", "c": […]}') == {"a": [1], "b": "x…", "c": []}
