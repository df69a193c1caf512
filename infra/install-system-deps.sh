#!/usr/bin/env bash
# System packages the pipeline needs (Debian): Java 17 for Spark and the OpenSearch nodes, Maven to assemble
# those nodes from Maven Central (infra/opensearch), wkhtmltopdf for HTML -> PDF; PostgreSQL and
# Redis for the multi-process Airflow deployment (infra/airflow-celery.sh); Chromium and its driver for the
# tests of the pages people open (API docs, Airflow UI), run headless.
# Installs only what is missing; needs root (or sudo) only when something is missing.
set -euo pipefail
missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)  # builds the OpenSearch node (infra/opensearch)
command -v wkhtmltopdf >/dev/null 2>&1 || missing+=(wkhtmltopdf)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing system packages: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
