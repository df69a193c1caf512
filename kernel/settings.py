"""One configuration surface for every stage: environment variables plus an optional file.

Precedence (highest first): explicit overrides (CLI flags) > environment variables > the config file
named by ``SECPLAT_CONFIG`` (TOML, YAML or JSON) > defaults. Everything is validated up front so a bad
value fails with a one-line message before any work starts.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from domain import rules
from kernel import layout, run_policy
from kernel.models import DEFAULT_EMBEDDING_BACKEND, EmbeddingSpec
from kernel.storage import Lake, open_lake, parse_root

SEC_WWW_URL = "https://www.sec.gov"
SEC_DATA_URL = "https://data.sec.gov"
NO_UNIVERSE = "no universe CSV: set UNIVERSE_CSV to a constituents CSV path or URL"

_IDENTITY_RE = re.compile(r"^\s*\S.*\s+[^@\s]+@[^@\s]+\.[^@\s]+\s*$")


class ConfigError(ValueError):
    """A configuration value is missing or invalid; the message is meant for the operator."""


def _split_csv(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    """Validated platform settings. Environment variable names are the field names in upper case."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, env_ignore_empty=True)

    # --- EDGAR access -------------------------------------------------------------------------
    edgar_identity: str | None = Field(
        None, description='Declared User-Agent, "Name email" (required by SEC for the live site)'
    )
    edgar_www_url: str = Field(SEC_WWW_URL, description="Base URL of the www host (Archives, company_tickers)")
    edgar_data_url: str = Field(SEC_DATA_URL, description="Base URL of the data host (submissions JSON)")
    edgar_mirror: Path | None = Field(
        None, description="Directory in SEC's URL layout; `make run` serves it on 127.0.0.1 and crawls it"
    )
    edgar_rate_limit: float = Field(10.0, gt=0, le=10.0, description="Requests per second, all workers together")
    http_timeout: float = Field(30.0, gt=0, description="Seconds per HTTP request (connect and read)")
    http_max_retries: int = Field(6, ge=0, le=20, description="Retries on 429/5xx/timeouts/resets")
    http_backoff_base: float = Field(0.5, ge=0, description="First backoff in seconds; doubles per retry")
    http_backoff_max: float = Field(60.0, gt=0, description="Upper bound of a single backoff")
    crawl_workers: int = Field(4, ge=1, le=32, description="Download threads (they share one rate limiter)")
    edgar_state_dir: str = Field(
        default_factory=lambda: default_state_dir("edgar"),
        description="Where every crawl of this machine keeps the EDGAR client's state: the request schedule all "
        "processes share and SEC's block while it lasts (per User-Agent and host; point it at storage the "
        "crawling machines share)")

    # --- What to crawl ------------------------------------------------------------------------
    universe_csv: str | None = Field(
        None, description="S&P 500 constituents CSV (path or URL); default: ../shared/universe if present"
    )
    membership_csv: str | None = Field(
        None, description="S&P 500 membership by date (ticker,start_date,end_date): ALL with a crawl window is "
        "every company that was a member in it, each filing kept when its company was a member on its period "
        "end; default: ../shared/data/sp500-membership with the default universe; none: today's list for all "
        "windows")
    universe_tickers: Annotated[list[str] | None, NoDecode] = Field(
        list(run_policy.DEFAULT_TICKERS),
        description="Comma-separated tickers to crawl; ALL for every constituent of the universe CSV",
    )
    forms: Annotated[list[str], NoDecode] = Field(
        list(rules.SUPPORTED_FORMS), description="Forms to crawl, comma-separated (10-K/A: only 10-K amendments)")
    include_amendments: bool = Field(True, description="Keep amendments such as 10-K/A (flagged as such)")
    filed_from: dt.date | None = Field(None, description="First filing date to crawl (inclusive), YYYY-MM-DD")
    history_from: dt.date | None = Field(
        None, description="The corpus's first filing date: a company that joins the S&P 500 (MEMBERSHIP_CSV) during "
        "a nightly's window has its filings from this date crawled by that nightly; unset: only the window's")
    filed_to: dt.date | None = Field(None, description="Last filing date to crawl (inclusive), YYYY-MM-DD")
    exhibit_types: str = Field(
        "EX-99*,EX-13*", description="Documents of each filing to crawl besides the primary one, by SGML type: "
        "comma-separated patterns (EX-99*: press and earnings releases; EX-13*: a 10-K's annual report to "
        "stockholders, where its Items may be incorporated from); none: off")

    # --- Conversion ---------------------------------------------------------------------------
    convert_workers: int = Field(2, ge=1, le=16, description="Documents converted in parallel")
    stage_batches: int = Field(1, ge=1, le=256, description="Batches the nightly DAG maps conversion and "
                               "segmentation over (each a task any worker may run; a company's filings in one)")
    task_retry_delay: int = Field(60, ge=1, le=3600, description="Seconds before an Airflow task's first retry "
                                  "after a transient error (doubling on each later one)")
    convert_timeout: float = Field(180.0, gt=0, description="Seconds wkhtmltopdf may take per document")
    convert_memory_mb: int = Field(4096, ge=256, description="Address-space cap of wkhtmltopdf, MB")
    convert_max_html_mb: float = Field(40.0, gt=0, description="Larger primary documents are quarantined")
    pdf_find_tables: bool = Field(
        False, description="Run PyMuPDF's table finder on PDFs that arrive as PDFs (~0.4 s a page)"
    )

    # --- Structure: items and chunks --------------------------------------------------------------
    embedding_model: str = Field(
        "all-MiniLM-L6-v2", description="Embedding model name or local path (its tokenizer sizes the chunks)"
    )
    chunk_tokens: int = Field(240, ge=16, description="Chunk size in the embedding model's tokens")
    chunk_overlap: int = Field(32, ge=0, description="Tokens shared by neighbouring chunks of an item")
    segment_workers: int = Field(1, ge=1, le=16, description="Documents segmented in parallel (threads)")

    # --- Indexing (Spark) ------------------------------------------------------------------------
    spark_master: str = Field("local[*]", description="Spark master URL (local[*], spark://host:7077, yarn, ...)")
    spark_driver_memory: str = Field("4g", description="Spark driver memory")
    spark_shuffle_partitions: int = Field(4, ge=1, description="spark.sql.shuffle.partitions")
    embedding_batch_size: int = Field(32, ge=1, le=1024, description="Texts per model call")
    embedding_backend: str = Field(
        DEFAULT_EMBEDDING_BACKEND, pattern="^(torch|onnx-int8)$",
        description="onnx-int8 (exported locally, quantized: FinanceBench dev scores equal fp32's, 2.3x faster) "
                    "or torch (fp32)"
    )

    # --- Retrieval --------------------------------------------------------------------------------
    page_ranker: str = Field("learned", pattern="^(rules|learned|learned-all)$",
                             description="How the hierarchical mode orders pages: the release's learned ranker "
                                         "(trained by the train stage after publish) for the kinds of question "
                                         "query/page_order.yaml gives it, the rules for the others and where a "
                                         "release has none; learned-all: the model for every kind; or the "
                                         "hand-set rules (nothing is trained)")
    ranker_train_questions: int = Field(4000, ge=10, description="Most training questions a ranker is trained "
                                        "on (evenly spaced over the corpus's own questions)")

    # --- Optional LLM (OpenAI-compatible endpoint); every stage works without it ------------------
    llm_url: str | None = Field(None, description="Base URL of an OpenAI-compatible API, e.g. http://host/v1")
    llm_model: str | None = Field(None, description="Model name sent to the LLM endpoint")
    llm_api_key: SecretStr | None = Field(None, description="Bearer token for the LLM endpoint (never logged)")
    llm_timeout: float = Field(60.0, gt=0, description="Seconds per LLM request")
    cover_summary_llm: bool = Field(False, description="Add an LLM-written sentence to each cover summary")
    llm_curation: bool = Field(False, description="Let the LLM drop irrelevant passages after curation")

    # --- HTTP API (secplat serve) ----------------------------------------------------------------
    api_keys: SecretStr | None = Field(None, description="Comma-separated API keys for the HTTP API, sent as "
                                       "X-API-Key or Authorization: Bearer (never logged); required unless "
                                       "bound to 127.0.0.1")

    def api_key_list(self) -> list[str]:
        """The configured HTTP API keys (empty: no access control)."""
        raw = self.api_keys.get_secret_value() if self.api_keys else ""
        return [k.strip() for k in raw.split(",") if k.strip()]

    # --- Storage ------------------------------------------------------------------------------
    lake_root: str = Field("lake", description="Lake root: a local path or s3://bucket/prefix")
    s3_endpoint_url: str | None = Field(None, description="S3 endpoint for S3-compatible stores")
    s3_region: str | None = Field(None, description="S3 region")

    # --- Search indexes (publish and query) ---------------------------------------------------------
    elasticsearch_url: str | None = Field(None, description="Elasticsearch URL; unset: the embedded engine")
    elasticsearch_api_key: SecretStr | None = Field(None, description="Elasticsearch API key (never logged)")
    elasticsearch_username: str | None = Field(None, description="Elasticsearch basic-auth user")
    elasticsearch_password: SecretStr | None = Field(None, description="Elasticsearch basic-auth password")
    elasticsearch_ca_certs: str | None = Field(None, description="CA bundle for an Elasticsearch TLS endpoint")
    opensearch_url: str | None = Field(None, description="OpenSearch URL, or several nodes' comma-separated (what "
                                       "infra/opensearch/cluster start prints); set: publish and query there "
                                       "(it wins over ELASTICSEARCH_URL)")
    opensearch_username: str | None = Field(None, description="OpenSearch basic-auth user")
    opensearch_password: SecretStr | None = Field(None, description="OpenSearch basic-auth password")
    opensearch_ca_certs: str | None = Field(None, description="CA bundle for an OpenSearch TLS endpoint")
    search_path: str | None = Field(None, description="Embedded engine directory [default: <LAKE_ROOT>/search]")
    search_prefix: str = Field("secplat", pattern="^[a-z0-9][a-z0-9_]*$", description="Index and alias prefix")
    search_keep_versions: int = Field(2, ge=0, le=50, description="Previous index versions kept for rollback")
    vector_index_min_rows: int = Field(200_000, ge=1, description="Rows from which the embedded engine builds "
                                       "an approximate (IVF-HNSW) vector index instead of exact search")

    @field_validator("universe_tickers", "forms", mode="before")
    @classmethod
    def _csv_lists(cls, value: Any) -> Any:
        return _split_csv(value)

    @field_validator("exhibit_types")
    @classmethod
    def _exhibit_patterns(cls, value: str) -> str:
        rules.exhibit_patterns(value)  # ValueError naming the bad pattern
        return value

    @field_validator("forms")
    @classmethod
    def _known_forms(cls, value: list[str]) -> list[str]:
        return rules.normalize_forms(value)

    @field_validator("universe_tickers")
    @classmethod
    def _tickers(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else rules.normalize_tickers(value)

    @field_validator("opensearch_url")
    @classmethod
    def _http_urls(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return ",".join(cls._http_url(u.strip()) for u in value.split(",") if u.strip()) or None

    @field_validator("edgar_www_url", "edgar_data_url", "llm_url", "elasticsearch_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"not an http(s) URL: {value!r}")
        return value.rstrip("/")

    @field_validator("universe_csv")
    @classmethod
    def _universe_csv(cls, value: str | None) -> str | None:
        if value and not re.match(r"^https?://", value) and not Path(value).expanduser().is_file():
            raise ValueError(f"{value} is not a file (a constituents CSV path or http(s) URL)")
        return value

    @field_validator("membership_csv")
    @classmethod
    def _membership_csv(cls, value: str | None) -> str | None:
        if value and value.lower() != "none" and not Path(value).expanduser().is_file():
            raise ValueError(f"{value} is not a file (a membership CSV: ticker,start_date,end_date; or none)")
        return value

    @field_validator("edgar_identity")
    @classmethod
    def _identity(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not _IDENTITY_RE.match(value):
            raise ValueError('must look like "Name email@example.com" (SEC asks for a name and an e-mail)')
        return value.strip()

    @model_validator(mode="after")
    def _window(self) -> Settings:
        rules.check_window(self.filed_from, self.filed_to)
        if self.cover_summary_llm and not (self.llm_url and self.llm_model):
            raise ValueError("cover_summary_llm needs LLM_URL and LLM_MODEL")
        if self.llm_curation and not (self.llm_url and self.llm_model):
            raise ValueError("llm_curation needs LLM_URL and LLM_MODEL")
        return self

    # --- Derived ------------------------------------------------------------------------------
    @property
    def targets_live_sec(self) -> bool:
        hosts = (urlparse(url).hostname or "" for url in (self.edgar_www_url, self.edgar_data_url))
        return any(h == "sec.gov" or h.endswith(".sec.gov") for h in hosts)

    def user_agent(self, live: bool = True) -> str:
        """The declared User-Agent. Refuses (never prompts) when the live SEC site has no identity
        (``live=False``: the requests go to a mirror the crawl serves itself)."""
        if self.edgar_identity:
            return self.edgar_identity
        if live and self.targets_live_sec:
            raise ConfigError(
                "EDGAR_IDENTITY is not set: SEC requires a declared User-Agent such as "
                '"Jane Doe jane@example.com" for www.sec.gov/data.sec.gov (set it, or point '
                "EDGAR_WWW_URL/EDGAR_DATA_URL or EDGAR_MIRROR at a mirror)"
            )
        return "secplat-dev offline-mirror@localhost.invalid"

    def embedding(self) -> EmbeddingSpec:
        """EMBEDDING_MODEL, EMBEDDING_BACKEND and EMBEDDING_BATCH_SIZE as one value."""
        return EmbeddingSpec(self.embedding_model, self.embedding_backend, self.embedding_batch_size)

    def universe_if_any(self) -> str | None:
        """:meth:`universe_source`, or None where there is none (the query side only takes names from it)."""
        try:
            return self.universe_source()
        except ConfigError:
            return None

    def universe_source(self) -> str:
        """UNIVERSE_CSV, else the shared S&P 500 list beside the checkout (tests and offline runs)."""
        if self.universe_csv:
            return self.universe_csv
        shared = shared_dir()
        path = shared / "universe" / "sp500_constituents.csv" if shared else None
        if path is None or not path.is_file():
            raise ConfigError(NO_UNIVERSE)
        return str(path)

    def membership_source(self) -> str | None:
        """MEMBERSHIP_CSV (``none``: no membership, today's list for every window); unset, the shared
        membership history, but only beside the shared universe (a universe CSV of one's own names its own
        membership file, or has none)."""
        if self.membership_csv:
            return None if self.membership_csv.lower() == "none" else self.membership_csv
        shared = shared_dir()
        path = shared / "data" / "sp500-membership" / "sp500_ticker_start_end.csv" if shared else None
        if self.universe_csv or path is None or not path.is_file():
            return None
        return str(path)

    def open_lake(self) -> Lake:
        """The lake LAKE_ROOT names (local directory or S3 through boto3): the one way stages get it."""
        return open_lake(self.lake_root, self.s3_endpoint_url, self.s3_region)

    def search_root(self) -> str:
        """Where the embedded engine keeps its tables: SEARCH_PATH, or ``search/`` under a local lake."""
        if self.search_path:
            return self.search_path
        kind, location = parse_root(self.lake_root)
        if kind != "local":
            raise ConfigError("the embedded search engine needs a local directory: set SEARCH_PATH "
                              f"(LAKE_ROOT {self.lake_root} is remote), or set ELASTICSEARCH_URL")
        return str(layout.search_dir(Path(location).expanduser().resolve()))

    def redacted(self) -> dict[str, Any]:
        """Settings as a dict that is safe to log."""
        return json.loads(self.model_dump_json())


def _read_config_file(path: Path) -> dict[str, Any]:
    import yaml

    if not path.exists():
        raise ConfigError(f"config file {path} does not exist")
    if path.suffix not in (".toml", ".yaml", ".yml", ".json"):
        raise ConfigError(f"config file {path}: use .toml, .yaml/.yml or .json")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text") from None
    except OSError as exc:  # a directory, no permission
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    try:
        if path.suffix == ".toml":
            data = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text) or {}
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, yaml.YAMLError, ValueError) as exc:
        raise ConfigError(f"config file {path} is not valid: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of settings")
    return {str(k).lower(): v for k, v in data.items()}


def load_settings(config_file: str | os.PathLike | None = None, **overrides: Any) -> Settings:
    """Build validated settings; raise ConfigError with a one-line reason when something is wrong."""
    file_values: dict[str, Any] = {}
    path = config_file or os.environ.get("SECPLAT_CONFIG")
    if path:
        file_values = _read_config_file(Path(path))
    unknown = sorted(set(file_values) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"unknown setting(s) in config file: {', '.join(unknown)}")
    # Init kwargs beat the environment in pydantic-settings, so drop file keys the environment sets.
    env_set = {k.lower() for k, v in os.environ.items() if v != ""}
    values = {k: v for k, v in file_values.items() if k not in env_set}
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ConfigError(f"invalid setting {field.upper()}: {first['msg']}") from None


def settings_help() -> str:
    """Human-readable list of every setting, for `--help` and the README."""
    lines = ["Settings (environment variables; also keys of the SECPLAT_CONFIG file):"]
    for name, field in Settings.model_fields.items():
        default = field.default
        if isinstance(default, list):
            default = ",".join(default)
        lines.append(f"  {name.upper():<22} {field.description or ''} [default: {default}]")
    return "\n".join(lines)


def project_root() -> Path:
    return Path(__file__).resolve().parents[1]


def default_state_dir(name: str) -> str:
    """``$XDG_STATE_HOME/secplat/<name>`` (``~/.local/state/secplat/<name>``): the user's state, never a lake's."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return str(Path(base) / "secplat" / name)


def shared_dir() -> Path | None:
    """The shared data folder (SECPLAT_SHARED, else ../shared beside the checkout), or None if absent."""
    path = Path(os.environ.get("SECPLAT_SHARED") or project_root().parent / "shared")
    return path if path.is_dir() else None
