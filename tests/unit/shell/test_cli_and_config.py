"""The operator's surface: settings validation, one-line errors and exit codes of ``secplat``."""

from __future__ import annotations

import json
import os

import pytest

from etl.crawl.edgar_mirror import MirrorServer
from kernel.settings import ConfigError, load_settings, settings_help
from kernel.storage import LocalLake, StorageError, open_lake
from shell.cli import EXIT_CONFIG, EXIT_ENV, EXIT_PROBLEMS, main
from tests.conftest import free_port


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("EDGAR_IDENTITY", "EDGAR_WWW_URL", "EDGAR_DATA_URL", "EDGAR_MIRROR", "LAKE_ROOT", "SECPLAT_CONFIG",
                 "UNIVERSE_TICKERS", "UNIVERSE_CSV", "EDGAR_RATE_LIMIT", "FORMS"):
        monkeypatch.delenv(name, raising=False)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_settings_validate_and_explain():
    with pytest.raises(ConfigError, match="EDGAR_RATE_LIMIT"):
        load_settings(edgar_rate_limit=50)
    with pytest.raises(ConfigError, match="FORMS"):
        load_settings(forms="10-K,S-1")
    with pytest.raises(ConfigError, match="after"):
        load_settings(filed_from="2024-02-01", filed_to="2024-01-01")
    with pytest.raises(ConfigError, match="EDGAR_IDENTITY"):
        load_settings(edgar_identity="no-email-here")
    s = load_settings(universe_tickers="aapl, brk.b", forms="10-k,8-k")
    assert s.universe_tickers == ["AAPL", "BRK.B"] and s.forms == ["10-K", "8-K"]
    assert load_settings(universe_tickers="all").universe_tickers is None
    text = settings_help()
    for name in ("EDGAR_IDENTITY", "EDGAR_WWW_URL", "EDGAR_DATA_URL", "LAKE_ROOT", "EDGAR_RATE_LIMIT",
                 "UNIVERSE_CSV", "FORMS", "FILED_FROM", "FILED_TO"):
        assert name in text


def test_config_file_env_and_flag_precedence(tmp_path, monkeypatch):
    cfg = tmp_path / "secplat.toml"
    cfg.write_text('lake_root = "/from/file"\nedgar_rate_limit = 5\nforms = "10-K"\n')
    monkeypatch.setenv("SECPLAT_CONFIG", str(cfg))
    monkeypatch.setenv("EDGAR_RATE_LIMIT", "7")
    s = load_settings()
    assert s.lake_root == "/from/file" and s.edgar_rate_limit == 7 and s.forms == ["10-K"]
    assert load_settings(lake_root="/from/flag").lake_root == "/from/flag"
    # list settings from the environment are comma-separated, as documented (not JSON)
    monkeypatch.setenv("FORMS", "10-Q,8-K")
    monkeypatch.setenv("UNIVERSE_TICKERS", "aapl, BRK.B")
    s = load_settings()
    assert s.forms == ["10-Q", "8-K"] and s.universe_tickers == ["AAPL", "BRK.B"]
    monkeypatch.delenv("FORMS")
    monkeypatch.delenv("UNIVERSE_TICKERS")
    cfg.write_text("no_such_setting = 1\n")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings()
    cfg.write_text("lake_root = [unterminated\n")
    with pytest.raises(ConfigError, match="not valid"):
        load_settings()


def test_live_site_without_identity_is_refused_without_prompting(capsys, tmp_path):
    code, _, err = run_cli(capsys, "crawl", "--lake", str(tmp_path / "lake"))
    assert code == EXIT_CONFIG
    assert err.startswith("error: EDGAR_IDENTITY is not set") and err.count("\n") == 1
    assert not (tmp_path / "lake").exists()


def test_unreachable_host_is_one_line_and_exit_3(capsys, tmp_path, monkeypatch, fixture_mirror):
    monkeypatch.setenv("UNIVERSE_CSV", fixture_mirror["universe_csv"])
    port = free_port()
    monkeypatch.setenv("EDGAR_WWW_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("EDGAR_DATA_URL", f"http://127.0.0.1:{port}")
    code, _, err = run_cli(capsys, "crawl", "--lake", str(tmp_path / "lake"), "--tickers", "ACME")
    assert code == EXIT_ENV
    assert "unreachable" in err and err.strip().count("\n") == 0


def test_amendment_forms_are_accepted_and_crawl_only_amendments(capsys, tmp_path, fixture_mirror, monkeypatch):
    """FORMS=10-K/A,10-Q/A validates in the settings and the CLI crawls exactly the amendments (the fixture has
    one: ACME's 10-Q/A of 2024-05-20); an unknown amendment form is refused like any unknown form."""
    monkeypatch.setenv("UNIVERSE_CSV", fixture_mirror["universe_csv"])
    monkeypatch.setenv("FORMS", "10-K/A,10-Q/A")
    assert load_settings().forms == ["10-K/A", "10-Q/A"]
    code, out, err = run_cli(capsys, "crawl", "--mirror", str(fixture_mirror["root"]), "--lake",
                             str(tmp_path / "lake"), "--tickers", "ACME")
    assert code == 0, err
    assert "1 fetched" in out
    records = [json.loads(p.read_text()) for p in (tmp_path / "lake").rglob("filing.json")]
    assert [(r["form"], r["accession"]) for r in records] == [("10-Q/A", "0001000001-24-000021")]
    monkeypatch.setenv("FORMS", "S-1/A")
    code, _, err = run_cli(capsys, "config")
    assert code == EXIT_CONFIG and "FORMS" in err


@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_lake_without_write_permission(capsys, tmp_path, fixture_mirror, where, monkeypatch):
    monkeypatch.setenv("UNIVERSE_CSV", fixture_mirror["universe_csv"])
    if where == "under-a-file":
        blocker = tmp_path / "file"
        blocker.write_text("x")
        lake = str(blocker / "lake")
    else:
        lake = "/proc/secplat-lake"
    with pytest.raises(StorageError, match="not writable"):
        open_lake(lake).check_writable()
    code, _, err = run_cli(capsys, "crawl", "--mirror", str(fixture_mirror["root"]), "--lake", lake,
                           "--tickers", "ACME")
    assert code == EXIT_ENV and "not writable" in err


def test_unknown_ticker_is_reported_and_the_run_goes_on(capsys, tmp_path, fixture_mirror, monkeypatch):
    monkeypatch.setenv("UNIVERSE_CSV", fixture_mirror["universe_csv"])
    code, out, err = run_cli(capsys, "crawl", "--mirror", str(fixture_mirror["root"]), "--lake",
                             str(tmp_path / "lake"), "--tickers", "ACME,NOSUCH")
    assert code == EXIT_PROBLEMS
    assert "problem: NOSUCH: unknown ticker" in err
    assert "6 fetched" in out
    runs = list((tmp_path / "lake" / "runs" / "crawl").glob("*.json"))
    assert len(runs) == 1 and json.loads(runs[0].read_text())["fetched"] == 6


def test_mirror_as_of_and_config_commands(capsys, tmp_path, fixture_mirror, monkeypatch):
    monkeypatch.setenv("UNIVERSE_CSV", fixture_mirror["universe_csv"])
    code, out, _ = run_cli(capsys, "crawl", "--mirror", str(fixture_mirror["root"]), "--lake",
                           str(tmp_path / "lake"), "--tickers", "ACME", "--as-of", "2024-03-01")
    assert code == 0 and "3 fetched" in out  # 2018 10-Q, 2019 10-K, 2024-02-15 10-K
    code, out, _ = run_cli(capsys, "config", "--lake", "s3://bucket/prefix")
    assert code == 0 and json.loads(out)["lake_root"] == "s3://bucket/prefix"


def test_local_lake_writes_are_atomic_and_temp_files_of_dead_writers_are_swept(tmp_path):
    lake = LocalLake(tmp_path)
    lake.write_bytes("a/b.txt", b"one")
    lake.write_bytes("a/b.txt", b"two")
    assert lake.read_bytes("a/b.txt") == b"two"
    import socket

    stale = tmp_path / ".tmp" / f"{socket.gethostname()}-999999999-deadbeef"
    stale.write_bytes(b"partial")
    live = tmp_path / ".tmp" / f"{socket.gethostname()}-{__import__('os').getpid()}-cafe"
    live.write_bytes(b"in progress")
    reused = tmp_path / ".tmp" / f"{socket.gethostname()}-{__import__('os').getpid()}-f00d"
    reused.write_bytes(b"partial")  # its writer died; this process reused its PID later
    __import__("os").utime(reused, (1_000_000, 1_000_000))  # written in 1970, before this process started
    assert lake.sweep_temp() == 2
    assert not stale.exists() and not reused.exists() and live.exists()
    assert list(lake.list()) == ["a/b.txt"]
    with pytest.raises(StorageError, match="invalid lake key"):
        lake.write_bytes("../escape", b"x")


def test_a_pid_is_alive_only_for_a_process_started_before_it_was_seen():
    import os
    import time

    from kernel.storage import pid_alive, process_started

    assert process_started(os.getpid()) <= time.time()
    assert pid_alive(os.getpid()) and pid_alive(os.getpid(), since=time.time())
    assert not pid_alive(os.getpid(), since=1_000_000.0)  # seen in 1970: a process started since reused its PID
    assert not pid_alive(999_999_999) and process_started(999_999_999) is None


def test_a_stage_sweeps_the_temp_files_a_killed_run_left(tmp_path):
    """Whichever stage a killed run was in, the next stage run sweeps its half-written files first."""
    import socket

    from kernel.resources import Resources
    from shell.runner import run_stage

    stale = tmp_path / "lake" / ".tmp" / f"{socket.gethostname()}-999999999-deadbeef"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"partial")
    run_stage("segment", Resources(load_settings(lake_root=str(tmp_path / "lake"))))
    assert not stale.exists()


def test_mirror_server_serves_gzip_both_ways(fixture_mirror):
    import gzip

    import requests

    f = fixture_mirror["filings"][0]
    path = f"Archives/edgar/data/{f['cik']}/{f['accession'].replace('-', '')}/{f['primary_document']}"
    with MirrorServer(fixture_mirror["root"]) as server:
        gz = requests.get(f"{server.www_url}/{path}", headers={"Accept-Encoding": "gzip"}, stream=True)
        assert gz.headers["Content-Encoding"] == "gzip" and gzip.decompress(gz.raw.read()) == f["html"]
        plain = requests.get(f"{server.www_url}/{path}", headers={"Accept-Encoding": "identity"})
        assert "Content-Encoding" not in plain.headers and plain.content == f["html"]
        assert requests.get(f"{server.url}/elsewhere/x").status_code == 404


@pytest.mark.parametrize("name, content, message", [
    ("bad.yaml", b"a: [1\n", "is not valid"),
    ("bad.toml", b"\xff\xfe\x00", "is not UTF-8"),
    ("dir.toml", None, "cannot be read"),
])
def test_unreadable_config_files_are_one_line_errors(capsys, tmp_path, monkeypatch, name, content, message):
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    monkeypatch.setenv("SECPLAT_CONFIG", str(path))
    code, _, err = run_cli(capsys, "config")
    assert code == EXIT_CONFIG and err.startswith("error: config file") and message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("content, message", [
    (b"x,y\n1,2\n", "'Symbol' column"),
    (b"", "'Symbol' column"),
    (b"Symbol,Security\n\xff\xfe,x\n", "not UTF-8"),
])
def test_bad_universe_csv_is_a_one_line_error(capsys, tmp_path, monkeypatch, fixture_mirror, content, message):
    csv_path = tmp_path / "universe.csv"
    csv_path.write_bytes(content)
    monkeypatch.setenv("UNIVERSE_CSV", str(csv_path))
    code, _, err = run_cli(capsys, "crawl", "--mirror", str(fixture_mirror["root"]), "--lake", str(tmp_path / "lake"))
    assert code == EXIT_CONFIG and err.startswith("error: universe CSV") and message in err
    assert err.count("\n") == 1


def test_config_rejects_a_missing_universe_csv(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("UNIVERSE_CSV", str(tmp_path / "nowhere.csv"))
    code, _, err = run_cli(capsys, "config")
    assert code == EXIT_CONFIG and "UNIVERSE_CSV" in err and "nowhere.csv" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", [["publish"], ["list-versions"], ["query", "revenues"]])
def test_a_lake_root_that_is_a_file_is_a_one_line_error(capsys, tmp_path, monkeypatch, command):
    afile = tmp_path / "afile"
    afile.write_text("not a lake")
    monkeypatch.setenv("LAKE_ROOT", str(afile))
    code, _, err = run_cli(capsys, *command)
    assert code == EXIT_ENV and err.startswith("error: ") and "afile" in err and err.count("\n") == 1


@pytest.mark.parametrize("args", [["config"], ["list-versions"], ["--help"]])
def test_a_reader_that_closes_our_output_gets_no_traceback(tmp_path, args):
    """``secplat ... | head``: the reader is gone before we write; no traceback, SIGPIPE's exit status."""
    import subprocess
    import sys
    from pathlib import Path

    secplat = str(Path(sys.executable).with_name("secplat"))
    env = {**os.environ, "LAKE_ROOT": str(tmp_path / "lake")}
    proc = subprocess.Popen([secplat, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # the reader went away before the first line
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert code == 141 or (args == ["--help"] and code == 0), (code, err)  # argparse swallows its write error
    assert "Traceback" not in err and "BrokenPipe" not in err, err
