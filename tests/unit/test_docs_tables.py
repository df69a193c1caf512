"""The CLI and settings tables a reader looks things up in say what the code has: every command of the
parser is in docs/cli.md and every name there is a command; every setting of ``Settings`` is in
docs/settings.md and every variable there is a setting."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| (.+?) \|", re.M)


def _first_cells(doc: str) -> list[str]:
    return _ROW.findall((ROOT / "docs" / doc).read_text(encoding="utf-8"))


def test_the_cli_table_names_every_command_and_only_commands():
    from shell.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")  # argparse keeps subcommands here only
    commands = set(sub.choices)
    named = {m for cell in _first_cells("cli.md") for m in re.findall(r"`secplat ([a-z][a-z-]*)", cell)}
    assert named - commands == set(), f"docs/cli.md names commands the CLI has not: {named - commands}"
    assert commands - named == set(), f"docs/cli.md lacks commands: {commands - named}"


def test_the_settings_table_names_every_setting_and_only_settings():
    from kernel.settings import Settings

    fields = {name.upper() for name in Settings.model_fields}
    named = {v for cell in _first_cells("settings.md") for v in re.findall(r"`([A-Z][A-Z0-9_]+)`", cell)}
    assert named - fields == set(), f"docs/settings.md names variables that are no setting: {named - fields}"
    assert fields - named == set(), f"docs/settings.md lacks settings: {sorted(fields - named)}"
