"""Every file a publish writes takes its mode from the process umask, as the tables do: a server running
as another user than the publisher reads the release it must follow (mkstemp's 0600 would hide it)."""

from __future__ import annotations

import os
import stat

import pytest

from kernel.resources import Resources
from kernel.settings import load_settings
from shell.runner import run_stage
from tests.index_records import records, write_index_lake


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_a_publish_writes_every_file_with_the_umask_mode(tmp_path, mask):
    lake = tmp_path / "lake"
    old = os.umask(mask)
    try:
        write_index_lake(lake, records("v1"))
        run_stage("publish", Resources(load_settings(lake_root=str(lake))))
        write_index_lake(lake, records("v2"))
        run_stage("publish", Resources(load_settings(lake_root=str(lake))))  # upserts, cache entries, releases
    finally:
        os.umask(old)
    wrong = []
    for folder, dirs, files in os.walk(lake):
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            want = (0o777 if name in dirs else 0o666) & ~mask
            if mode & want != want or mode & mask & 0o066:
                wrong.append(f"{os.path.relpath(path, lake)} {oct(mode)}")
    assert not wrong, wrong[:20]
    assert (lake / "search" / "release.json").is_file()
