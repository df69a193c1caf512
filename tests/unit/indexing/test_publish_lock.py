"""One publisher at a time, on real processes: a second publish is refused while the first holds the lock
(exit 3, naming the holder), and a publisher SIGKILLed between loading a version and swapping the alias
neither blocks the next publish nor leaves a version that could be served or taken for the previous one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kernel.resources import Resources
from kernel.search.base import alias_name
from kernel.search.embedded import EmbeddedBackend
from kernel.settings import load_settings
from schemas.index import INDEXES
from shell.runner import run_stage
from tests.index_records import records, write_index_lake

SECPLAT = str(Path(sys.executable).with_name("secplat"))


@pytest.fixture
def lake(tmp_path):
    write_index_lake(tmp_path, records("v1"))
    return tmp_path


def _env(lake: Path) -> dict:
    return {**os.environ, "LAKE_ROOT": str(lake), "SEARCH_KEEP_VERSIONS": "1"}


def _wait_for(predicate, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _holder(lake: Path) -> dict:
    try:
        return json.loads((lake / "search" / ".publish.lock").read_text() or "{}")
    except (FileNotFoundError, ValueError):
        return {}


# A real publish whose first bulk load waits until the test says go, so the second publisher certainly
# arrives while the first holds the lock (only the timing is arranged; the publish itself is the real one).
SLOW_LOAD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from kernel.search.embedded import EmbeddedBackend
    from kernel.resources import Resources
    from kernel.settings import load_settings
    from shell.runner import run_stage

    load = EmbeddedBackend.load

    def load_when_told(self, target, spec, batches):
        while not Path(sys.argv[1]).exists():
            time.sleep(0.05)
        return load(self, target, spec, batches)

    EmbeddedBackend.load = load_when_told
    print(run_stage("publish", Resources(load_settings()), rebuild=True).summary())
""")


def test_a_second_publisher_is_refused_while_the_first_holds_the_lock(lake, tmp_path):
    go = tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", SLOW_LOAD, str(go)], env=_env(lake), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: _holder(lake).get("pid") == first.pid, "the first publisher to take the lock")
        second = subprocess.run([SECPLAT, "publish"], env=_env(lake), capture_output=True, text=True, timeout=120)
        assert second.returncode == 3, second.stderr
        assert second.stderr.startswith("error: another publisher holds the publish lock")
        assert f"pid {first.pid}" in second.stderr and second.stderr.count("\n") == 1
    finally:
        go.touch()
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    backend = EmbeddedBackend(lake / "search")
    for name, spec in INDEXES.items():  # the first publisher's versions, and nothing else
        versions = backend.versions(spec)
        assert len(versions) == 1 and versions[0].live, name
    assert _holder(lake) == {}  # released


SLOW_SWAP = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from kernel.resources import Resources
    from kernel.search.embedded import EmbeddedBackend
    from kernel.settings import load_settings
    from shell.runner import run_stage

    def commit_never(self, release):
        Path(sys.argv[1]).write_text(release.physical("documents"))
        time.sleep(600)

    EmbeddedBackend.commit_release = commit_never
    run_stage("publish", Resources(load_settings()), rebuild=True)
""")


def test_a_publisher_killed_between_load_and_swap_leaves_nothing_behind(lake, tmp_path):
    settings = load_settings(lake_root=str(lake), search_keep_versions=1)
    run_stage("publish", Resources(settings))
    backend = EmbeddedBackend(lake / "search")
    live = {name: backend.alias_target(alias_name(backend.prefix, name)) for name in INDEXES}
    marker = tmp_path / "loaded"
    victim = subprocess.Popen([sys.executable, "-c", SLOW_SWAP, str(marker)], env=_env(lake),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(marker.exists, "the victim to load a version")
    finally:
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=30)
    orphan = marker.read_text()
    assert orphan in {v.name for v in backend.versions(INDEXES["documents"])}  # loaded, never served
    assert {n: backend.alias_target(alias_name(backend.prefix, n)) for n in INDEXES} == live

    report = run_stage("publish", Resources(settings))  # the lock of the dead publisher does not block this one
    assert orphan in report.dropped
    assert orphan not in {v.name for v in backend.versions(INDEXES["documents"])}
    assert {n: backend.alias_target(alias_name(backend.prefix, n)) for n in INDEXES} == live
    assert {o.mode for o in report.indexes} == {"unchanged"}
    assert _holder(lake) == {}
