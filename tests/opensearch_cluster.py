"""OpenSearch nodes for tests, started by the project's own launcher (``infra/opensearch/cluster``): one JVM
per node on 127.0.0.1, data in a temporary folder, stopped (SIGTERM) when the test is done, or by the
launcher's watcher when this test process ends without stopping them (killed from outside). Tests that kill a
node kill its JVM (``kill -9``), as a machine dies."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import ports

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "infra" / "opensearch" / "cluster"


def free_ports(nodes: int) -> int:
    """A first HTTP port whose ``nodes`` HTTP ports and transport ports (+100) are all free."""
    return ports.free_ports(tuple(range(nodes)) + tuple(100 + i for i in range(nodes)))


@dataclass
class Cluster:
    data: Path
    port: int
    nodes: int

    knn: bool = True
    owner: int | None = None  # the process whose end stops the nodes (default: this one)

    @property
    def url(self) -> str:
        """Every node's URL, comma-separated (what ``cluster start`` prints and OPENSEARCH_URL takes)."""
        return ",".join(f"http://127.0.0.1:{self.port + i}" for i in range(self.nodes))

    def env(self) -> dict:
        return {**os.environ, "OPENSEARCH_NODES": str(self.nodes), "OPENSEARCH_PORT": str(self.port),
                "OPENSEARCH_DATA": str(self.data), "OPENSEARCH_HEAP": os.environ.get("OPENSEARCH_HEAP", "512m"),
                "OPENSEARCH_KNN": "1" if self.knn else "0", "OPENSEARCH_OWNER": str(self.owner or os.getpid())}

    def run(self, verb: str, timeout: float = 900) -> subprocess.CompletedProcess:
        return subprocess.run([str(CLUSTER), verb], env=self.env(), capture_output=True, text=True, timeout=timeout)

    def start(self) -> Cluster:
        done = self.run("start")
        if done.returncode != 0:
            self.stop()  # the nodes that did start
            raise RuntimeError(f"infra/opensearch/cluster start failed: {done.stderr.strip()[-2000:]}")
        assert done.stdout.strip().splitlines()[-1] == self.url, done.stdout
        return self

    def stop(self) -> None:
        self.run("stop", timeout=120)

    def pid(self, node: int) -> int | None:
        path = self.data / f"node-{node}.pid"
        return int(path.read_text()) if path.is_file() else None

    def alive(self, node: int) -> bool:
        """Whether the node's JVM still runs."""
        pid = self.pid(node)
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill(self, node: int) -> None:
        """``kill -9`` of one node's JVM."""
        pid = self.pid(node)
        if pid:
            os.kill(pid, signal.SIGKILL)
            for _ in range(100):
                if not self.alive(node):
                    break
                time.sleep(0.1)


def start_cluster(data: Path, nodes: int = 1, knn: bool = True, owner: int | None = None) -> Cluster:
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.skip("java and mvn are needed to start OpenSearch nodes (make install puts them in place)")
    return Cluster(data, free_ports(nodes), nodes, knn, owner).start()
