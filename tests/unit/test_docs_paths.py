"""What a newcomer reads names things that exist: every module path, module function and command in every
Markdown file of the tree (README.md, docs/, infra/, bench/data/, ...)."""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "etl", "indexing", "kernel", "query", "quality", "schemas", "shell", "dags", "infra", "tests",
            "bench", "docs")
_CODE_RE = re.compile(r"`([^`\n]+)`")
_PATH_RE = re.compile(r"^(?:" + "|".join(PACKAGES) + r")/[\w./-]*$")
_SECPLAT_RE = re.compile(r"^secplat ([a-z][a-z-]*)\b")
_MODULE_RE = re.compile(r"^python -m ([\w.]+)(?!<)")
GENERATED = ("bench/results/",)  # written by benchmarks, not kept in the tree


def markdown_files() -> list[Path]:
    """Every Markdown file the repository tracks (git's list; without git, every one outside hidden, build
    and virtualenv directories)."""
    try:
        listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
        return [ROOT / line for line in listed.stdout.split()]
    except (OSError, subprocess.CalledProcessError):
        return sorted(p for p in ROOT.rglob("*.md") if not any(
            part.startswith(".") or part in ("build", "node_modules") for part in p.relative_to(ROOT).parts))


def _texts() -> list[tuple[str, str]]:
    return [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in markdown_files()]


def test_the_path_test_reads_every_markdown_file():
    names = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "docs/architecture.md", "infra/README.md"} <= names


def _missing_path(token: str) -> str | None:
    """A path (``etl/segment/items.py``, ``etl/crawl/``) or a module's attribute (``etl/crawl.open_crawler``,
    ``query/training.run``): the file, directory or attribute must exist."""
    path, _, attribute = token.partition(".") if not token.endswith((".py", ".md", ".yaml", ".txt", ".sh", ".yml",
                                                                     ".json", ".jsonl", ".toml", "/")) \
        else (token, "", "")
    if token.startswith(GENERATED) or "<" in token or "*" in token:
        return None
    if attribute and not (ROOT / f"{path}.py").exists() and not (ROOT / path / "__init__.py").exists():
        return f"{token}: no module {path}"
    if not attribute and not (ROOT / path).exists():
        return f"{token}: no such file or directory"
    if attribute and all(name.isidentifier() for name in attribute.split(".")):
        obj = importlib.import_module(path.replace("/", "."))
        for name in attribute.split("."):
            if not hasattr(obj, name):
                return f"{token}: {path} has no {attribute}"
            obj = getattr(obj, name)
    return None


def test_every_path_module_and_command_the_docs_name_exists():
    from shell.cli import COMMANDS

    problems = []
    for where, text in _texts():
        for token in _CODE_RE.findall(text):
            token = token.strip()
            if _PATH_RE.match(token.split(" ")[0]) and " " not in token:
                problem = _missing_path(token.rstrip("."))
            elif m := _SECPLAT_RE.match(token):
                problem = None if m.group(1) in COMMANDS else f"{token}: no command {m.group(1)}"
            elif (m := _MODULE_RE.match(token)) and "<" not in token:
                module = m.group(1)
                problem = None if (ROOT / f"{module.replace('.', '/')}.py").exists() else f"{token}: no module"
            else:
                problem = None
            if problem:
                problems.append(f"{where}: {problem}")
    assert not problems, "\n".join(problems)
