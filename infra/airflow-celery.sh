#!/usr/bin/env bash
# A multi-process Airflow deployment on this machine: PostgreSQL (metadata DB) and Redis (Celery broker)
# from Debian's packages, Airflow's api-server, scheduler, dag-processor and N Celery workers, all on
# 127.0.0.1. The same services as infra/docker-compose.yml, without containers.
#   infra/airflow-celery.sh start [workers=2]    prints the environment a client needs (airflow CLI, tests)
#   infra/airflow-celery.sh stop [--purge]      --purge also deletes the metadata database
#   infra/airflow-celery.sh env                  the environment only
# State (databases, logs, pids) under $AIRFLOW_CELERY_DIR (default /tmp/secplat-airflow-celery); ports from
# $PG_PORT (15432), $REDIS_PORT (16379), $API_PORT (18081). The caller's environment (LAKE_ROOT,
# EDGAR_MIRROR, ...) reaches every Airflow process.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${VENV_BIN:-$here/.venv/bin}"
state="${AIRFLOW_CELERY_DIR:-/tmp/secplat-airflow-celery}"
pg_port="${PG_PORT:-15432}" redis_port="${REDIS_PORT:-16379}" api_port="${API_PORT:-18081}"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
# PostgreSQL runs as its own user, which must reach its data directory: not under a private (0700) folder
pg_dir="${PG_DATA_DIR:-/tmp/secplat-pg-$pg_port}"

airflow_env() {
  cat <<EOF
export AIRFLOW_HOME=$state/airflow
export AIRFLOW__CORE__DAGS_FOLDER=$here/dags
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__CORE__EXECUTOR=CeleryExecutor
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=postgresql+psycopg2://airflow:airflow@127.0.0.1:$pg_port/airflow
export AIRFLOW__CELERY__BROKER_URL=redis://127.0.0.1:$redis_port/0
export AIRFLOW__CELERY__RESULT_BACKEND=db+postgresql+psycopg2://airflow:airflow@127.0.0.1:$pg_port/airflow
export AIRFLOW__CELERY__WORKER_CONCURRENCY=1
export AIRFLOW__API__HOST=127.0.0.1
export AIRFLOW__API__PORT=$api_port
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL=http://127.0.0.1:$api_port/execution/
export AIRFLOW__API_AUTH__JWT_SECRET=${AIRFLOW_JWT_SECRET:-secplat-local-deployment-$(hostname)-jwt-secret-0123456789}
export AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC=2
export AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT=${TASK_HEARTBEAT_TIMEOUT:-60}
export AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL=5
export PYTHONPATH=$here
EOF
}

pg() { runuser -u postgres -- "$@"; }  # PostgreSQL refuses to run as root

start_pg() {
  [ -n "$pg_bin" ] || { echo "airflow-celery: PostgreSQL server not installed (infra/install-system-deps.sh)" >&2; exit 1; }
  mkdir -p "$pg_dir"
  chown postgres "$pg_dir"
  chmod 700 "$pg_dir"
  if [ ! -s "$pg_dir/PG_VERSION" ]; then
    pg "$pg_bin/initdb" -D "$pg_dir" -A trust -U postgres >"$state/logs/initdb.log"
  fi
  pg "$pg_bin/pg_ctl" -D "$pg_dir" -l "$pg_dir/postgres.log" -w -t 60 \
    -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1" start >/dev/null
  pg "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -tAc "select 1 from pg_roles where rolname='airflow'" | grep -q 1 \
    || pg "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "create role airflow login password 'airflow'"
  pg "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -tAc "select 1 from pg_database where datname='airflow'" | grep -q 1 \
    || pg "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "create database airflow owner airflow"
}

start_one() {  # name, command...: in its own process group (stop kills the group), pid recorded
  local name="$1"; shift
  setsid "$@" >"$state/logs/$name.log" 2>&1 < /dev/null &
  echo $! >"$state/$name.pid"
}

wait_port() {  # port, name: listening within 120 s
  for _ in $(seq 240); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.5
  done
  echo "airflow-celery: $2 not listening on $1 after 120 s; see $state/logs" >&2
  return 1
}

case "${1:-}" in
  start)
    workers="${2:-2}"
    bash "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$state/logs" "$state/airflow"
    start_pg
    redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
      --pidfile "$state/redis.pid" --logfile "$state/logs/redis.log" --dir "$state"
    wait_port "$redis_port" redis
    eval "$(airflow_env)"
    "$bin/airflow" db migrate >"$state/logs/migrate.log" 2>&1 || { tail -20 "$state/logs/migrate.log" >&2; exit 1; }
    start_one api-server "$bin/airflow" api-server
    start_one scheduler "$bin/airflow" scheduler
    start_one dag-processor "$bin/airflow" dag-processor
    for n in $(seq "$workers"); do
      start_one "worker-$n" "$bin/airflow" celery worker --celery-hostname "worker$n@%h" --concurrency 1 \
        --skip-serve-logs
    done
    wait_port "$api_port" api-server
    airflow_env
    ;;
  stop)
    for pid_file in "$state"/*.pid; do
      [ -e "$pid_file" ] || continue
      pid="$(cat "$pid_file")"
      if [ "$(basename "$pid_file")" = redis.pid ]; then kill "$pid" 2>/dev/null || true; else kill -- "-$pid" 2>/dev/null || true; fi
      for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
      rm -f "$pid_file"
    done
    if [ -n "$pg_bin" ] && [ -s "$pg_dir/postmaster.pid" ]; then
      pg "$pg_bin/pg_ctl" -D "$pg_dir" -m fast -w stop >/dev/null 2>&1 || true
    fi
    [ "${2:-}" = "--purge" ] && rm -rf "$pg_dir"
    echo "stopped"
    ;;
  env)
    airflow_env
    ;;
  *)
    echo "usage: $0 start [workers] | stop | env" >&2
    exit 2
    ;;
esac
