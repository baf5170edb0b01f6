"""The layer rule over the shell's imports: a module imports only lower layers (or its own package).

The layers, top to bottom, are the ones ``docs/architecture.md`` draws. Every import is checked,
including those inside functions (a lazy import is an import all the same). Every module must be
in a layer: a new package fails the check until it is placed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sleuth_shell

ROOT = Path(sleuth_shell.__file__).parent

#: Rank of each module prefix (the longest matching prefix wins). Higher may import lower.
LAYERS: dict[str, int] = {
    "sleuth_shell.cli": 100,
    "sleuth_shell.__main__": 110,
    "sleuth_shell.app": 90,
    "sleuth_shell.runtime": 85,
    "sleuth_shell.api": 80,
    # The API modules whose operations the web app's forms call too (one path per operation):
    # below web, and only on top of the shared request checks.
    "sleuth_shell.api.alert_responders": 77,
    "sleuth_shell.api.alerts": 77,
    "sleuth_shell.api.digests": 77,
    "sleuth_shell.api.suppressions": 77,
    "sleuth_shell.api.body": 76,
    "sleuth_shell.api.common": 76,
    "sleuth_shell.api.deps": 76,
    "sleuth_shell.gate": 79,  # the request middleware: auth and rate limits, below api
    "sleuth_shell.ratelimit": 78,  # below api (the webhook intake counts with it), above auth
    "sleuth_shell.mcp_server": 80,
    "sleuth_shell.auth": 75,
    "sleuth_shell.errors": 75,
    "sleuth_shell.chat": 72,
    "sleuth_shell.intake": 72,
    "sleuth_shell.web": 80,  # the HTML pages, beside the JSON API
    "sleuth_shell.web.render": 72,  # templates and filters (error pages render with them)
    "sleuth_shell.web.sessions": 72,
    "sleuth_shell.oauth": 71,  # the MCP endpoint's authorization server: auth and web use it
    "sleuth_shell.alerts": 71,  # the alert log: read by the intake's callers and the pages
    "sleuth_shell.interactions": 70,
    "sleuth_shell.digests": 70,
    "sleuth_shell.investigations": 70,
    "sleuth_shell.runs": 60,
    "sleuth_shell.services": 50,
    "sleuth_shell.agents": 40,
    "sleuth_shell.knowledge": 40,
    "sleuth_shell.observability": 40,
    "sleuth_shell.notify": 40,
    "sleuth_shell.billing": 40,
    "sleuth_shell.admin": 40,
    "sleuth_shell.changes": 40,
    "sleuth_shell.datasources": 40,
    "sleuth_shell.demo": 45,  # loads its data through the stores' ingestion
    "sleuth_shell.jobs": 30,
    "sleuth_shell.agents.base": 20,
    "sleuth_shell.db": 10,
    "sleuth_shell.config": 10,
    "sleuth_shell.domain": 5,  # shared vocabulary (stdlib only): db and paging read it
    "sleuth_shell.urls": 10,
    "sleuth_shell.text": 10,
    "sleuth_shell.org_settings": 40,  # the advanced settings document: one read, one write
    "sleuth_shell.access_log": 10,  # serve's access log filter (stdlib only)
    "sleuth_shell.gc_tuning": 10,  # the serving processes' collector settings (stdlib only)
    "sleuth_shell.statuses": 5,  # the run statuses (stdlib only; the models' CHECK constraints)
    "sleuth_shell.json_body": 15,  # the request bodies' depth check and decoding (msgspec)
    "sleuth_shell.ingestion": 15,  # pure: the ingestion bodies' shared envelope and error
    "sleuth_shell.question": 15,  # pure, on top of text
    "sleuth_shell.passages": 15,  # pure, on top of text
}
#: Modules ranked by their exact name only (never as a prefix of others).
EXACT: dict[str, int] = {"sleuth_shell": 0}  # the package root: only ``__version__``


def module_names() -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def layer_of(module: str) -> tuple[str, int] | None:
    """The longest layer prefix of ``module`` and its rank; None when no layer holds it."""
    if module in EXACT:
        return module, EXACT[module]
    found = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    if not found:
        return None
    best = max(found, key=len)
    return best, LAYERS[best]


def package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def imports_of(source: str, modules: set[str]) -> list[tuple[int, str]]:
    """``(line, module)`` of every ``sleuth_shell`` import in ``source``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if sub in modules else node.module))
    return [(line, name) for line, name in found if name.split(".")[0] == "sleuth_shell"]


def violations(module: str, source: str, modules: set[str]) -> list[str]:
    layer = layer_of(module)
    if layer is None:
        return [f"{module} is in no layer (add it to LAYERS and docs/architecture.md)"]
    _, rank = layer
    bad = []
    for line, target in imports_of(source, modules):
        if package_of(target) == package_of(module) and module != "sleuth_shell":
            continue
        target_layer = layer_of(target)
        if target_layer is None:
            bad.append(f"{module}:{line} imports {target}, which is in no layer")
            continue
        target_prefix, target_rank = target_layer
        if target_rank >= rank:
            bad.append(f"{module}:{line} imports {target} (layer {target_prefix}={target_rank})")
    return bad


def unlayered(modules: set[str]) -> list[str]:
    """The modules no layer holds."""
    return sorted(module for module in modules if layer_of(module) is None)


def test_every_module_has_a_layer() -> None:
    assert unlayered(set(module_names())) == []


def test_no_module_imports_a_higher_or_sibling_layer() -> None:
    modules = module_names()
    problems = [
        problem
        for module, path in sorted(modules.items())
        for problem in violations(module, path.read_text(encoding="utf-8"), set(modules))
    ]
    assert problems == []


def test_the_checker_catches_upward_imports() -> None:
    modules = set(module_names())
    upward = {
        "sleuth_shell.jobs.runtime": "def f():\n    from sleuth_shell.digests import x\n",
        "sleuth_shell.notify.delivery": "from sleuth_shell.services import Services\n",
        "sleuth_shell.agents.context": "from sleuth_shell.knowledge.search import S\n",
        "sleuth_shell.db.migrations.env": "from sleuth_shell.knowledge.search import f\n",
        "sleuth_shell.knowledge.search": "from sleuth_shell.agents.retrieval import R\n",
    }
    for module, source in upward.items():
        assert violations(module, source, modules), module
    assert (
        violations("sleuth_shell.notify.delivery", "from sleuth_shell.jobs import x\n", modules)
        == []
    )


def test_the_check_fails_on_a_bad_import_and_on_an_unlayered_module() -> None:
    """The whole check, run over a tree with one bad import and one module no layer holds,
    reports both (so the test above can fail: nothing matches every module by default)."""
    modules = {*module_names(), "sleuth_shell.newthing", "sleuth_shell.newthing.part"}
    assert unlayered(modules) == ["sleuth_shell.newthing", "sleuth_shell.newthing.part"]
    bad_import = "from sleuth_shell.api.changes import x\n"
    assert violations("sleuth_shell.db.models", bad_import, modules) == [
        "sleuth_shell.db.models:1 imports sleuth_shell.api.changes (layer sleuth_shell.api=80)"
    ]
    assert violations("sleuth_shell.newthing", "", modules) == [
        "sleuth_shell.newthing is in no layer (add it to LAYERS and docs/architecture.md)"
    ]
    assert violations("sleuth_shell.db.models", "import sleuth_shell.newthing\n", modules) == [
        "sleuth_shell.db.models:1 imports sleuth_shell.newthing, which is in no layer"
    ]
    assert layer_of("sleuth_shell") == ("sleuth_shell", 0)


def test_the_documented_dialect_branches_are_the_real_ones() -> None:
    """docs/architecture.md ("Storage") lists every module that chooses SQL by dialect."""
    import re

    branch = re.compile(r"dialect\.name|get_backend_name\(\)|dialect == \"")
    found = {
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if "versions" not in path.parts
        and path.name != "dialect.py"
        and branch.search(path.read_text(encoding="utf-8"))
    }
    doc = (ROOT.parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
    storage = doc.split("## Storage", 1)[1]
    documented = set(re.findall(r"`((?:[a-z_]+/)*[a-z_]+\.py)`", storage))
    documented = {d for d in documented if not d.startswith(("sleuth_shell/", "tests/"))}
    assert found == documented
