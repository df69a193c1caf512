"""Faults of a crawl that must leave nothing to redo: a filing interrupted in the middle of its exhibits
resumes with only what is missing; SEC's block holds for the client in every lake; a blocked crawl leaves its
run report (the project's own fixture mirror: no ../shared needed)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from etl.crawl.edgar_mirror import FaultPlan, MirrorServer
from kernel.filing_records import read_records
from kernel.storage import open_lake

ACC = "0001000001-24-000030"  # ACME's 8-K in the fixture mirror
EXHIBITS = [f"ex99{i}.htm" for i in range(1, 6)]


def _with_exhibits(root: Path) -> None:
    """Give ACME's 8-K five EX-99 exhibits: in its index.json (with sizes) and on its EDGAR index page."""
    folder = root / "www.sec.gov/Archives/edgar/data/1000001" / ACC.replace("-", "")
    listing = json.loads((folder / "index.json").read_text())
    primary = listing["directory"]["item"][0]["name"]
    rows = [f'<tr><td>1</td><td>8-K</td><td><a href="/x/{primary}">{primary}</a></td><td>8-K</td><td>1</td></tr>']
    for seq, name in enumerate(EXHIBITS, start=2):
        body = f"<html><body><p>Press release {seq}: revenue grew {seq}%.</p></body></html>".encode()
        (folder / name).write_bytes(body)
        listing["directory"]["item"].append({"name": name, "type": "text.gif", "size": str(len(body))})
        rows.append(f'<tr><td>{seq}</td><td>EX-99.{seq - 1}</td><td><a href="/x/{name}">{name}</a></td>'
                    f"<td>EX-99.{seq - 1}</td><td>{len(body)}</td></tr>")
    (folder / "index.json").write_text(json.dumps(listing))
    (folder / f"{ACC}-index.html").write_text(
        '<html><body><table class="tableFile" summary="Document Format Files">'
        "<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th><th>Size</th></tr>"
        + "".join(rows) + "</table></body></html>")


def _env(monkeypatch, server, fixture_mirror) -> None:
    for name, value in {"EDGAR_WWW_URL": server.www_url, "EDGAR_DATA_URL": server.data_url,
                        "EDGAR_IDENTITY": "Secplat Tests tests@example.com", "HTTP_BACKOFF_BASE": "0.05",
                        "UNIVERSE_CSV": fixture_mirror["universe_csv"], "CRAWL_WORKERS": "1",
                        "EXHIBIT_TYPES": "EX-99*"}.items():
        monkeypatch.setenv(name, value)


def _archive_asks(log) -> list[str]:
    return [e.path.rsplit("/", 1)[1] for e in log if "/Archives/edgar/data/" in e.path]


def test_a_filing_blocked_in_its_exhibits_resumes_with_what_is_missing_only(fixture_mirror, tmp_path, monkeypatch,
                                                                            capsys):
    """Blocked after three of the 8-K's five exhibits: the rerun after the block asks EDGAR for the two
    missing exhibits only (not index.json, the index page, the primary document or the finished exhibits),
    and the filing it completes is the one a clean crawl makes."""
    from shell.cli import main

    _with_exhibits(fixture_mirror["root"])
    args = ["crawl", "--tickers", "ACME", "--forms", "8-K"]
    with MirrorServer(fixture_mirror["root"]) as server:  # a clean crawl: the order of its requests
        _env(monkeypatch, server, fixture_mirror)
        assert main([*args, "--lake", str(tmp_path / "clean")]) == 0, capsys.readouterr().err
        order = [e.path for e in server.log]
    third = next(i for i, p in enumerate(order) if p.endswith(EXHIBITS[2]))
    block_s = 2.0
    with MirrorServer(fixture_mirror["root"], faults=FaultPlan(block_after=third + 1, block_seconds=block_s)) as server:
        _env(monkeypatch, server, fixture_mirror)
        lake_args = [*args, "--lake", str(tmp_path / "lake")]
        assert main(lake_args) == 3
        assert "EDGAR blocked this client" in capsys.readouterr().err
        first = min(e.at for e in server.log if e.outcome == "403 blocked")
        time.sleep(max(0.0, first + block_s - time.time()) + 0.2)
        server.clear_log()
        assert main(lake_args) == 0, capsys.readouterr().err
        assert sorted(_archive_asks(server.log)) == EXHIBITS[3:]
    clean, resumed = (read_records(open_lake(str(tmp_path / name))) for name in ("clean", "lake"))
    strip = {"fetched_at"}
    assert [r.model_dump(exclude=strip) for r in resumed] == [r.model_dump(exclude=strip) for r in clean]
    eight_k = next(r for r in resumed if r.accession == ACC)
    assert [e.name for e in eight_k.exhibits if e.status == "ok"] == EXHIBITS
    lake = open_lake(str(tmp_path / "lake"))
    assert not [k for k in lake.list("raw") if k.endswith("fetched.json")]  # the progress record went
    report = json.loads(lake.read_bytes(max(k for k in lake.list("runs/crawl"))))
    assert report["status"] == "ok" and report["resumed"] == 6  # index.json, index page, primary, 3 exhibits


def test_a_changed_file_in_the_lake_is_fetched_again(fixture_mirror, tmp_path, monkeypatch, capsys):
    """A noted file whose bytes no longer match its note is not trusted: it is fetched again."""
    from shell.cli import main

    _with_exhibits(fixture_mirror["root"])
    with MirrorServer(fixture_mirror["root"], faults=FaultPlan(block_after=6, block_seconds=1.0)) as server:
        _env(monkeypatch, server, fixture_mirror)
        args = ["crawl", "--tickers", "ACME", "--forms", "8-K", "--lake", str(tmp_path / "lake")]
        assert main(args) == 3
        capsys.readouterr()
        lake = open_lake(str(tmp_path / "lake"))
        progress = json.loads(lake.read_bytes(next(k for k in lake.list("raw") if k.endswith("fetched.json"))))
        assert "index.json" in progress
        spoiled = next(n for n in progress if n != "index.json")
        key = next(k for k in lake.list("raw") if k.endswith("/" + spoiled))
        lake.write_bytes(key, b"not what was fetched")
        time.sleep(1.2)
        server.clear_log()
        assert main(args) == 0, capsys.readouterr().err
        assert spoiled in _archive_asks(server.log) and "index.json" not in _archive_asks(server.log)
    assert lake.read_bytes(key) != b"not what was fetched"


def test_the_block_holds_for_the_client_in_every_lake_and_each_crawl_reports_it(fixture_mirror, tmp_path,
                                                                              monkeypatch, capsys):
    """A crawl into another lake during the block sends nothing, says why (exit 3) and writes its run report
    (status failed, the reason); the blocked crawl's report says what it did before."""
    from shell.cli import main

    with MirrorServer(fixture_mirror["root"], faults=FaultPlan(block_after=4, block_seconds=30.0)) as server:
        _env(monkeypatch, server, fixture_mirror)
        assert main(["crawl", "--tickers", "ALL", "--lake", str(tmp_path / "a")]) == 3
        capsys.readouterr()
        sent = len(server.log)
        assert main(["crawl", "--tickers", "ALL", "--lake", str(tmp_path / "b")]) == 3
        err = capsys.readouterr().err
        assert len(server.log) == sent, "a crawl into another lake sent a request during the block"
        assert err.startswith("error: EDGAR blocked this client") and err.count("\n") == 1
    for name in ("a", "b"):
        lake = open_lake(str(tmp_path / name))
        report = json.loads(lake.read_bytes(max(lake.list("runs/crawl"))))
        assert report["status"] == "failed" and report["error_type"] == "Blocked"
        assert "EDGAR blocked this client" in report["error"]
    blocked = json.loads(open_lake(str(tmp_path / "a")).read_bytes(max(open_lake(str(tmp_path / "a")).list("runs/crawl"))))
    assert blocked["http"]["requests"] >= 4 and "companies" in blocked


def test_a_failed_filing_keeps_what_it_finished_for_its_retry(fixture_mirror, tmp_path, monkeypatch, capsys):
    """The 8-K's primary document is not there yet (404: recorded missing); its retry asks for the primary
    document and what came after it, not for index.json again."""
    from shell.cli import main

    _with_exhibits(fixture_mirror["root"])
    folder = fixture_mirror["root"] / "www.sec.gov/Archives/edgar/data/1000001" / ACC.replace("-", "")
    primary = next(folder.glob("acme-*.htm.gz"))
    hidden = primary.rename(primary.with_suffix(".hidden"))
    args = ["crawl", "--tickers", "ACME", "--forms", "8-K", "--lake", str(tmp_path / "lake")]
    with MirrorServer(fixture_mirror["root"]) as server:
        _env(monkeypatch, server, fixture_mirror)
        assert main(args) == 1  # a missing filing is a problem
        capsys.readouterr()
        hidden.rename(primary)
        server.clear_log()
        assert main(args) == 0, capsys.readouterr().err
        asked = _archive_asks(server.log)
    assert "index.json" not in asked and primary.name.removesuffix(".gz") in asked
    lake = open_lake(str(tmp_path / "lake"))
    assert [r.status for r in read_records(lake)] == ["ok"]
    assert not [k for k in lake.list("raw") if k.endswith("fetched.json")]


def test_a_run_killed_between_a_filings_record_and_its_progress_record_leaves_no_stray(fixture_mirror, tmp_path,
                                                                                       monkeypatch, capsys):
    """Killed after a filing's ``ok`` record and before its progress record went (``FilingFiles.finish`` never
    ran): the rerun skips the complete filing, asks EDGAR for none of its files, and the progress record goes."""
    from etl.crawl.filing_files import FilingFiles
    from shell.cli import main

    class Killed(BaseException):
        """The kill: nothing after it runs (no handler of the run's catches it)."""

    def killed_here(self):
        raise Killed

    _with_exhibits(fixture_mirror["root"])
    args = ["crawl", "--tickers", "ACME", "--forms", "8-K", "--lake", str(tmp_path / "lake")]
    lake = open_lake(str(tmp_path / "lake"))
    with MirrorServer(fixture_mirror["root"]) as server:
        _env(monkeypatch, server, fixture_mirror)
        with monkeypatch.context() as killed:
            killed.setattr(FilingFiles, "finish", killed_here)
            with pytest.raises(Killed):
                main(args)
        assert [k for k in lake.list("raw") if k.endswith("fetched.json")]  # what the kill left
        server.clear_log()
        assert main(args) == 0, capsys.readouterr().err
        assert _archive_asks(server.log) == []
    assert "0 fetched, 1 already present" in capsys.readouterr().out
    assert not [k for k in lake.list("raw") if k.endswith("fetched.json")]
