"""The lake: one small object-store interface over a local directory or an S3 bucket.

Every write is atomic. Locally the bytes go to a temp file under ``<root>/.tmp`` (same filesystem),
are fsynced and then renamed into place; on S3 a single PUT is atomic by itself. Readers therefore see
either the old object or the whole new one, and a writer killed with SIGKILL leaves only a temp file
that the next stage run sweeps away (temp names carry host and PID, so a live writer's temp is never swept;
a PID reused since the temp was written is not taken for its writer).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol
from urllib.parse import urlparse


class StorageError(RuntimeError):
    """The lake cannot be read or written; the message names the location and the cause."""


class Lake(Protocol):
    root: str

    def write_bytes(self, key: str, data: bytes) -> None: ...
    def read_bytes(self, key: str) -> bytes: ...
    def exists(self, key: str) -> bool: ...
    def list(self, prefix: str = "") -> Iterator[str]: ...
    def delete(self, key: str) -> None: ...
    def uri(self, key: str = "") -> str: ...
    def check_writable(self) -> None: ...
    def sweep_temp(self) -> int: ...


def _clean_key(key: str) -> str:
    key = key.strip("/")
    if not key or any(part in ("", ".", "..") for part in key.split("/")):
        raise StorageError(f"invalid lake key {key!r}")
    return key


def umask() -> int:
    """The process umask, read without changing it where Linux shows it (``/proc/self/status``), else set
    and restored at once. Every file and directory the project creates takes its mode from it, as the tables
    do: a server running as another user reads what a publisher wrote whenever the umask lets it."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a plain ``open(..., "w")`` would give (0644 under the usual umask 022)."""
    return 0o666 & ~umask()


def dir_mode() -> int:
    """The mode a plain ``mkdir`` would give (0755 under the usual umask 022)."""
    return 0o777 & ~umask()


def pid_alive(pid: int, since: float | None = None) -> bool:
    """Whether a process of this host runs (another user's counts as running). With ``since`` (seconds since
    the epoch: when the process was known to run, a temp file's mtime), a process under that PID started after
    it is another that reused the PID (32768 PIDs wrap within minutes on a busy box), so the one asked is dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    started = process_started(pid)
    return since is None or started is None or started <= since + 1.0  # /proc's boot time is whole seconds


def process_started(pid: int) -> float | None:
    """When a process started (seconds since the epoch), from /proc; None where /proc cannot say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime; the name before ")" may hold spaces
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")


class LocalLake:
    """A lake in a local directory."""

    TMP = ".tmp"

    def __init__(self, root: str | os.PathLike):
        self.path = Path(root).expanduser().resolve()
        self.root = str(self.path)

    def _p(self, key: str) -> Path:
        return self.path / _clean_key(key)

    def uri(self, key: str = "") -> str:
        return str(self.path / key) if key else self.root

    def local_path(self, key: str) -> Path:
        return self._p(key)

    def write_bytes(self, key: str, data: bytes) -> None:
        target = self._p(key)
        tmp_dir = self.path / self.TMP
        tmp = tmp_dir / f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex}"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp_dir.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise StorageError(f"cannot write {target}: {exc.strerror or exc}") from exc

    def read_bytes(self, key: str) -> bytes:
        try:
            return self._p(key).read_bytes()
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise StorageError(f"cannot read {self._p(key)}: {exc.strerror or exc}") from exc

    def exists(self, key: str) -> bool:
        return self._p(key).is_file()

    def list(self, prefix: str = "") -> Iterator[str]:
        base = self.path / prefix.strip("/") if prefix.strip("/") else self.path
        if not base.exists():
            return
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != self.TMP)
            for name in sorted(filenames):
                yield str(Path(dirpath, name).relative_to(self.path))

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._p(key).unlink()

    def check_writable(self) -> None:
        check_writable(self)

    def sweep_temp(self) -> int:
        """Remove temp files left by dead writers on this host; returns how many."""
        tmp_dir = self.path / self.TMP
        if not tmp_dir.is_dir():
            return 0
        host = socket.gethostname()
        removed = 0
        for entry in tmp_dir.iterdir():
            parts = entry.name.rsplit("-", 2)
            if len(parts) != 3 or parts[0] != host or not parts[1].isdigit():
                continue
            with contextlib.suppress(OSError):
                if not pid_alive(int(parts[1]), since=entry.stat().st_mtime):
                    entry.unlink()
                    removed += 1
        return removed


class S3Lake:
    """A lake under ``s3://bucket/prefix`` through boto3 (AWS or any S3-compatible endpoint)."""

    def __init__(self, uri: str, endpoint_url: str | None = None, region: str | None = None):
        import boto3
        from botocore.config import Config

        parsed = urlparse(uri)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise StorageError(f"not an s3:// URI: {uri!r}")
        self.bucket = parsed.netloc
        self.prefix = parsed.path.strip("/")
        self.root = uri.rstrip("/")
        self.endpoint_url, self.region = endpoint_url, region  # to open the same lake elsewhere (executors)
        self.client = boto3.client(
            "s3",
            endpoint_url=endpoint_url,
            region_name=region or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
            config=Config(
                s3={"addressing_style": "path"},
                retries={"max_attempts": 5, "mode": "standard"},
                max_pool_connections=32,
            ),
        )

    def _k(self, key: str) -> str:
        key = _clean_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def uri(self, key: str = "") -> str:
        return f"s3://{self.bucket}/{self._k(key)}" if key else self.root

    def _error(self, action: str, key: str, exc: Exception) -> StorageError:
        return StorageError(f"cannot {action} {self.uri(key) if key else self.root}: {exc}")

    def write_bytes(self, key: str, data: bytes) -> None:
        try:
            self.client.put_object(Bucket=self.bucket, Key=self._k(key), Body=data)
        except Exception as exc:  # botocore raises many unrelated types
            raise self._error("write", key, exc) from exc

    def read_bytes(self, key: str) -> bytes:
        from botocore.exceptions import ClientError

        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._k(key))["Body"].read()
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                raise FileNotFoundError(errno.ENOENT, "no such object", self.uri(key)) from None
            raise self._error("read", key, exc) from exc

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=self._k(key))
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return False
            raise self._error("stat", key, exc) from exc

    def list(self, prefix: str = "") -> Iterator[str]:
        full = self._k(prefix) if prefix.strip("/") else self.prefix
        if full:
            full += "/"
        paginator = self.client.get_paginator("list_objects_v2")
        strip = len(self.prefix) + 1 if self.prefix else 0
        try:
            for page in paginator.paginate(Bucket=self.bucket, Prefix=full):
                for obj in page.get("Contents", []):
                    yield obj["Key"][strip:]
        except Exception as exc:
            raise self._error("list", prefix, exc) from exc

    def delete(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self._k(key))
        except Exception as exc:
            raise self._error("delete", key, exc) from exc

    def check_writable(self) -> None:
        check_writable(self)

    def sweep_temp(self) -> int:
        return 0  # PUTs are atomic: S3 never holds a partial object.


def check_writable(lake: Lake) -> None:
    """Write and delete a probe object, so a lake that cannot take writes fails before any work."""
    probe = f".tmp/probe-{uuid.uuid4().hex}"
    try:
        lake.write_bytes(probe, b"ok")
        lake.delete(probe)
    except StorageError as exc:
        raise StorageError(f"lake {lake.root} is not writable: {exc}") from None


def parse_root(root: str) -> tuple[str, str]:
    """``("s3", "s3://bucket/prefix")`` or ``("local", "/path")`` for a lake root: a local path (relative,
    absolute or ``file://``) or an ``s3://`` URI. The one place a lake root's spelling is read."""
    if root.startswith("s3://"):
        return "s3", root.rstrip("/")
    if root.startswith("file://"):
        return "local", urlparse(root).path or "/"
    if "://" in root:
        raise StorageError(f"unsupported lake root {root!r}: use a local path, file:///path or s3://bucket/prefix")
    return "local", root


def open_lake(root: str, endpoint_url: str | None = None, region: str | None = None) -> Lake:
    """A lake for a local path or an ``s3://bucket/prefix`` URI (settings open it: ``Settings.open_lake``)."""
    kind, location = parse_root(root)
    if kind == "s3":
        return S3Lake(location, endpoint_url=endpoint_url, region=region)
    return LocalLake(location)


def read_json(lake: Lake, key: str, default):
    """A JSON state file of the lake, or ``default`` when it does not exist yet."""
    try:
        return json.loads(lake.read_bytes(key))
    except FileNotFoundError:
        return default


def write_parquet(lake: Lake, key: str, table) -> None:
    """Write an Arrow table as one Parquet object, atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    lake.write_bytes(key, sink.getvalue().to_pybytes())


class UnreadableParquet(StorageError, ValueError):
    """A lake object is not a whole Parquet file (truncated, overwritten by something else). A ValueError
    too, as Arrow's own error was: a stage that quarantines a document with bad input still does."""

    def __init__(self, uri: str, reason: str):
        super().__init__(f"{uri} is not a readable Parquet file ({reason})")
        self.uri = uri


def read_parquet(lake: Lake, key: str):
    """One Parquet object as a table; UnreadableParquet names the object when it is truncated or corrupt."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = lake.read_bytes(key)
    try:
        # Single-threaded: these objects are small, and Arrow's thread pool can abort the interpreter at exit
        # ("terminate called without an active exception", apache/arrow#34314).
        return pq.read_table(pa.BufferReader(data), use_threads=False)
    except (pa.ArrowInvalid, OSError) as exc:
        raise UnreadableParquet(lake.uri(key), " ".join(str(exc).split())[:200]) from None


def read_parquet_footer(lake: Lake, key: str):
    """The Parquet footer only (row count, key-value metadata), without decoding the columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = lake.read_bytes(key)
    try:
        return pq.read_metadata(pa.BufferReader(data))
    except (pa.ArrowInvalid, OSError) as exc:
        raise UnreadableParquet(lake.uri(key), " ".join(str(exc).split())[:200]) from None


def _with_schema(table, schema):
    import pyarrow as pa

    for field in schema:
        if field.name in table.column_names:
            continue
        if field.nullable:
            table = table.append_column(field, pa.nulls(table.num_rows, field.type))
        elif pa.types.is_list(field.type):  # a list with a default: empty
            table = table.append_column(field, pa.array([[]] * table.num_rows, field.type))
    return table.select(schema.names).cast(schema)


def dataset_partitions(lake: Lake, key: str) -> dict[str, list[str]]:
    """Files of a Spark-partitioned dataset per partition value (``<key>/<column>=<value>/part-*.parquet``)."""
    parts: dict[str, list[str]] = {}
    for k in sorted(lake.list(key.rstrip("/") + "/")):
        rel = k[len(key.rstrip("/")) + 1:]
        directory, _, name = rel.rpartition("/")
        if not name.endswith(".parquet") or "=" not in directory:
            continue
        parts.setdefault(directory.split("=", 1)[1], []).append(k)
    return parts


def read_partition(lake: Lake, keys: list[str], schema=None):
    """One partition's files as one table (columns in ``schema``'s order when given; a column a file written
    before the schema gained it does not hold is read as nulls, or empty lists, so an older lake publishes)."""
    import pyarrow as pa

    tables = [read_parquet(lake, k) for k in keys]
    if schema is not None:
        tables = [_with_schema(t, schema) for t in tables]
    return pa.concat_tables(tables) if tables else (schema.empty_table() if schema is not None else pa.table({}))
