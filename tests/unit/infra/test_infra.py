"""What can be checked of the deployment files without a Docker engine: the compose file parses, every
platform setting it passes is a real setting, published ports are bound to 127.0.0.1, and no secret is
written in it."""

from __future__ import annotations

import re

import yaml

from kernel.settings import Settings
from tests.conftest import ROOT

COMPOSE = ROOT / "infra" / "docker-compose.yml"


def test_compose_services_settings_and_ports():
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    assert {"postgres", "redis", "airflow-apiserver", "airflow-scheduler", "airflow-dag-processor", "airflow-worker", "spark-master",
            "spark-worker", "elasticsearch", "minio"} <= set(services)
    platform_keys = set()
    for name, service in services.items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} on every interface"
        env = service.get("environment") or {}
        for key, value in (env.items() if isinstance(env, dict) else []):
            if not key.startswith(("AIRFLOW", "AWS_", "POSTGRES_", "MINIO_", "ES_", "SPARK_WORKER", "ELASTIC_",
                                   "discovery.", "xpack.")):
                platform_keys.add(key)
            if re.search(r"PASSWORD|SECRET|KEY", key) and "KEY_ID" not in key and value is not None:
                assert str(value).startswith("${") or "/" in str(value), f"{name}: {key} is not from the env file"
    known = {k.upper() for k in Settings.model_fields}
    assert platform_keys and platform_keys <= known, platform_keys - known
    example = (ROOT / "infra" / "secplat.env.example").read_text()
    for var in set(re.findall(r"\$\{(\w+)\}", COMPOSE.read_text())):
        assert f"{var}=" in example, f"{var} is used by the compose file but missing from secplat.env.example"
