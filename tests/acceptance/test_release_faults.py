"""Releases under crashes: ``secplat publish`` and ``secplat rollback`` SIGKILLed (real processes) at each of
their write points, found by tracing a real run (``kernel.faults``), not by sleeping. After every kill the
engine serves one complete release: the previous one for a kill before the release step, the new one
after it, never a mix; the next publish (or rollback) then succeeds and serves the new release whole."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernel import faults
from kernel.resources import Resources
from kernel.search.embedded import EmbeddedBackend
from kernel.settings import load_settings
from schemas.index import INDEXES
from shell.runner import run_stage
from tests import forked_cli
from tests.index_records import lexicon, records, write_index_lake

pytestmark = pytest.mark.slow
SECPLAT = str(Path(sys.executable).with_name("secplat"))


def _v2() -> dict:
    """Coca-Cola re-segmented (new text, one chunk fewer: upserts), PepsiCo as before, a changed lexicon
    (a rebuild), facts and concepts rewritten with the same rows."""
    data = records("v1")
    data["passages"] = [p for p in records("v2")["passages"] if p["doc_id"] == "KO_2023_10K"][:-1] + \
        [p for p in data["passages"] if p["doc_id"] == "PEP_2023_10K"]
    kept = {p["chunk_id"] for p in data["passages"]}
    data["tree_nodes"] = [n for n in ({**n, "chunk_ids": [c for c in n["chunk_ids"] if c in kept]}
                                      for n in data["tree_nodes"]) if n["chunk_ids"]]
    data["documents"] = [{**d, "source_name": "v2"} if d["doc_id"] == "KO_2023_10K" else d
                         for d in data["documents"]]
    data["lexicon"] = [{**t, "total_count": t["total_count"] + 1} for t in lexicon()]
    return data


def served(lake: Path) -> tuple[str | None, dict]:
    """The live release and what each index serves through it: rows, and the passages' and documents' tags
    per company (a mixed release would pair the new documents with the old passages)."""
    backend = EmbeddedBackend(lake / "search")
    release = backend.live_release()
    view: dict = {name: backend.count(f"{backend.prefix}-{name}") for name in INDEXES}
    for name in ("documents", "passages"):
        rows = backend.scan(f"{backend.prefix}-{name}", INDEXES[name], ["doc_id", "source_name"])
        view[name + " tags"] = sorted({(r["doc_id"], r["source_name"]) for r in rows})
    return (release.id if release else None), view


def _run(lake: Path, *args: str, kill_at: str | None = None, trace: Path | None = None, **settings: str):
    """``secplat ARGS`` on ``lake`` in a process of its own (``settings``: more environment, e.g. a cluster's
    URL), killed at ``kill_at`` or tracing its fault points to ``trace``."""
    env = _env(lake, kill_at=kill_at, trace=trace, **settings)
    return subprocess.run([SECPLAT, *args], env=env, capture_output=True, text=True, timeout=300)


def _killed(lake: Path, *args: str, kill_at: str, **settings: str) -> forked_cli.Done:
    """``secplat ARGS`` on ``lake`` killed at ``kill_at``, in a process forked from a warm server: the same
    command and the same SIGKILL as ``_run``, without its start-up at every kill point."""
    return forked_cli.run(list(args), _env(lake, kill_at=kill_at, **settings), lake.parent / "forked")


def _env(lake: Path, kill_at: str | None = None, trace: Path | None = None, **settings: str) -> dict:
    env = {**os.environ, "LAKE_ROOT": str(lake), "SEARCH_KEEP_VERSIONS": "2", **settings}
    env.pop(faults.KILL_AT, None)
    env.pop(faults.TRACE, None)
    if kill_at:
        env[faults.KILL_AT] = kill_at
    if trace:
        env[faults.TRACE] = str(trace)
    return env


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    """A lake published at v1, the v2 data beside it, and what each release serves."""
    root = tmp_path_factory.mktemp("release-faults")
    v1 = root / "v1"
    write_index_lake(v1, records("v1"))
    run_stage("publish", Resources(load_settings(lake_root=str(v1), search_keep_versions=2)))
    v2 = root / "v2"
    shutil.copytree(v1, v2)
    write_index_lake(v2, _v2())
    after = root / "after"
    shutil.copytree(v2, after)
    assert _run(after, "publish").returncode == 0
    return v2, served(v1), served(after)[1]


def _copy(src: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    return dest


def _points(lake: Path, tmp_path: Path, *args: str) -> list[str]:
    trace = tmp_path / "trace"
    trace.unlink(missing_ok=True)
    assert _run(lake, *args, trace=trace).returncode == 0
    return list(dict.fromkeys(trace.read_text().split("\n")[:-1]))


def test_a_killed_publish_leaves_one_whole_release_and_the_next_one_succeeds(states, tmp_path):
    v2, (old_release, old), new = states
    points = _points(_copy(v2, tmp_path / "trace-lake"), tmp_path, "publish")
    assert {"engine:upserted passages", "publish:upsert passages", "engine:rows added lexicon",
            "publish:rebuild lexicon", "publish:release live"} <= set(points), points
    live_at = points.index("publish:release live")
    for n, point in enumerate(points):
        lake = _copy(v2, tmp_path / "lake")
        killed = _killed(lake, "publish", kill_at=point)
        assert killed.returncode == -9, (point, killed.stderr[-500:])
        release, view = served(lake)
        if n < live_at:
            assert (release, view) == (old_release, old), point  # the previous release, whole
        else:
            assert release != old_release and view == new, point  # the new release, whole
        again = run_stage("publish", Resources(load_settings(lake_root=str(lake), search_keep_versions=2)))
        assert not again.blocked and again.release, point  # in-process: the same code, less start-up
        assert served(lake)[1] == new, point


def test_a_killed_rollback_leaves_one_whole_release_and_the_next_one_succeeds(states, tmp_path):
    v2, (old_release, old), new = states
    published = _copy(v2, tmp_path / "published")
    assert _run(published, "publish").returncode == 0
    points = _points(_copy(published, tmp_path / "trace-lake"), tmp_path, "rollback")
    assert points == ["rollback:before", "rollback:release live"], points
    for point in points:
        lake = _copy(published, tmp_path / "lake")
        assert _run(lake, "rollback", kill_at=point).returncode == -9
        release, view = served(lake)
        if point == "rollback:before":
            assert view == new and release != old_release
            assert _run(lake, "rollback").returncode == 0
        assert served(lake) == (old_release, old), point  # the previous release, whole, upserts undone
    refused = _run(lake, "rollback")  # the first release has nothing before it: one line, exit 3
    assert refused.returncode == 3 and refused.stderr.count("\n") == 1 and "first release" in refused.stderr
    assert _run(lake, "publish").returncode == 0 and served(lake)[1] == new  # upserts on top of the restored


def test_after_a_killed_upsert_what_is_listed_is_what_is_served(states, tmp_path):
    """``list-versions`` counts each index at the table version the live release reads; the rows a killed
    upsert wrote past it are listed apart, with what the next publish does with them."""
    v2, (old_release, old), _ = states
    lake = _copy(v2, tmp_path / "lake")
    assert _run(lake, "publish", kill_at="engine:upserted passages").returncode == -9
    listed = json.loads(_run(lake, "list-versions", "--json").stdout)
    assert listed["live"] == old_release
    for index in INDEXES:
        live = [v for v in listed["versions"][index] if v["live"]]
        assert len(live) == 1 and live[0]["count"] == old[index], index
    later = [v for v in listed["unreleased"] if v["index"] == "passages"]
    assert len(later) == 1 and later[0]["unreleased_count"] is not None and later[0]["releases"] == []
    text = _run(lake, "list-versions").stdout
    assert "not served by any release" in text and "the next publish" in text


def test_a_half_written_cache_entry_is_named_and_removed_by_the_next_publish(states, tmp_path):
    v2, _, new = states
    lake = _copy(v2, tmp_path / "lake")
    assert _run(lake, "publish", kill_at="engine:cache entry half-written").returncode == -9
    cache = lake / "search" / ".cache"
    left = [p for p in cache.glob("*/.*")]
    assert left, "the kill left no half-written entry"
    again = _run(lake, "publish")
    assert again.returncode == 0, again.stderr[-500:]
    assert "half-written cache entr" in again.stdout and left[0].name in again.stdout
    assert not [p for p in cache.glob("*/.*")] and served(lake)[1] == new
