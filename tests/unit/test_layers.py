"""The layers hold: the domain (what both sides agree on) at the bottom, the kernel on it, stages on that, the
shell on top, thin DAG files above that.

The import graph is read from the source (every ``import`` and ``from ... import``, lazy ones inside
functions included), so a shortcut taken anywhere shows here.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOT_PACKAGES = {"tests", "bench", "infra", "build"}
DOMAIN, KERNEL, SCHEMAS, SHELL, DAGS = "domain", "kernel", "schemas", "shell", "dags"
STAGES = {"etl", "indexing", "quality", "query"}


def packages() -> list[str]:
    return sorted(p.name for p in ROOT.iterdir() if p.is_dir() and p.name not in NOT_PACKAGES
                  and not p.name.startswith(".") and any(p.glob("*.py")))


def import_graph() -> dict[str, set[str]]:
    """Top-level package -> the other top-level packages of this project it imports."""
    pkgs = set(packages())
    graph: dict[str, set[str]] = {p: set() for p in pkgs}
    for pkg in pkgs:
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                graph[pkg] |= {n.split(".")[0] for n in names} & pkgs - {pkg}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Pairs (and longer loops) of packages that reach each other."""
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {p: reach(p) for p in graph}
    groups = {frozenset(q for q in reachable[p] if p in reachable[q]) | {p} for p in graph if p in reachable[p]}
    return sorted(sorted(g) for g in groups)


def test_the_layout_names_the_layers():
    assert {DOMAIN, KERNEL, SCHEMAS, SHELL, DAGS} | STAGES <= set(packages())
    assert "secplat" not in packages()  # the old two-layer package is gone


def test_no_package_imports_a_package_that_imports_it():
    assert cycles(import_graph()) == []


def test_each_layer_imports_only_the_layers_below_it():
    graph = import_graph()
    assert graph[DOMAIN] == set(), f"the domain imports nothing of the project: {graph[DOMAIN]}"
    assert graph[SCHEMAS] <= {DOMAIN}, "schemas are plain record models"
    assert graph[KERNEL] <= {SCHEMAS, DOMAIN}, f"the kernel imports a stage or the shell: {graph[KERNEL]}"
    for stage in STAGES:
        assert not graph[stage] & {SHELL, DAGS}, f"{stage} imports the shell: {graph[stage]}"
    assert not graph[SHELL] & {DAGS}
    assert graph[DAGS] <= {SHELL}, f"DAG files call the shell only: {graph[DAGS]}"


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_shared_package_cycle_tool_agrees(shared):
    tool = shared / "tools" / "package_cycles.py"
    if not tool.is_file():
        pytest.skip(f"{tool} is absent")
    out = subprocess.run([sys.executable, str(tool), str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout


# A client built anywhere but here is a client the composition root does not know of (tests, benchmarks and
# Spark executors aside: an executor is its own process and opens its own lake from plain values).
CLIENT_CALLS = re.compile(r"\b(open_backend|open_lake|lancedb\.connect|boto3\.client|"
                          r"Elasticsearch|OpenSearch|OpenAICompatible|EmbeddedBackend|ElasticBackend|Embedder|llm\.from_settings)"
                          r"\(")
CLIENT_FACTORIES = {"kernel/resources.py", "kernel/settings.py", "kernel/storage.py", "kernel/llm.py",
                    "kernel/search/__init__.py", "kernel/search/embedded/backend.py", "kernel/search/elastic/backend.py",
                    "kernel/search/elastic/dialects.py",
                    "kernel/embedder.py"}
EXECUTOR_SIDE = {"indexing/spark.py"}  # _LakeRef.open: the lake an executor process opens for itself


def test_clients_are_built_only_by_the_composition_root_and_the_kernel_factories():
    found = []
    for pkg in packages():
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in CLIENT_FACTORIES | EXECUTOR_SIDE:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                code = line.split("#", 1)[0]
                if CLIENT_CALLS.search(code) and not code.lstrip().startswith(("def ", "class ")):
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert found == [], "clients constructed outside kernel.resources and the kernel's factories:\n" + "\n".join(found)


def test_the_client_pattern_finds_a_client():
    assert CLIENT_CALLS.search("backend = open_backend(settings)")
    assert CLIENT_CALLS.search("lake = settings.open_lake()")
    assert not CLIENT_CALLS.search("lake = resources.lake")


def stage_imports(package: str) -> dict[str, set[str]]:
    """Each stage package under ``package`` (``etl/crawl``, ...) -> the other stages of it that it imports."""
    stages = {p.name for p in (ROOT / package).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    graph: dict[str, set[str]] = {s: set() for s in stages}
    for stage in stages:
        for path in (ROOT / package / stage).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                graph[stage] |= {n.split(".")[1] for n in names if n.startswith(package + ".") and "." in n} - {stage}
    return graph


def test_stages_meet_only_through_the_lakes_contracts():
    """No ETL stage imports another: what one writes and the next reads (filing records, the table-text
    format, page text, company records) has one owner in the kernel or schemas/."""
    graph = stage_imports("etl")
    assert set(graph) >= {"crawl", "convert", "segment"}
    assert all(not other for other in graph.values()), graph
