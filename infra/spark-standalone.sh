#!/usr/bin/env bash
# A Spark standalone cluster on this machine from the pyspark package's own launcher (spark-class): one master
# and N workers on 127.0.0.1, for `SPARK_MASTER=spark://127.0.0.1:7077 secplat index`.
#   infra/spark-standalone.sh start [workers=2] [cores-per-worker=1] [memory-per-worker=3g]
#   infra/spark-standalone.sh stop
#   infra/spark-standalone.sh status
# State (pids, logs, work dirs) under $SPARK_STANDALONE_DIR (default /tmp/secplat-spark). Ports:
# $SPARK_MASTER_PORT (7077), web UI $SPARK_MASTER_WEBUI_PORT (8080), both bound to 127.0.0.1.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$here/.venv/bin/python}"
state="${SPARK_STANDALONE_DIR:-/tmp/secplat-spark}"
port="${SPARK_MASTER_PORT:-7077}"
ui="${SPARK_MASTER_WEBUI_PORT:-8080}"
master="spark://127.0.0.1:$port"
spark_home="$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
export SPARK_HOME="$spark_home" SPARK_LOCAL_IP=127.0.0.1 SPARK_NO_DAEMONIZE=1

start_one() {  # name, then the spark-class arguments
  local name="$1"; shift
  mkdir -p "$state/logs"
  nohup "$spark_home/bin/spark-class" "$@" >"$state/logs/$name.log" 2>&1 &
  echo $! >"$state/$name.pid"
}

wait_for() {  # a log line that says the process is up, within 60 s
  local log="$1" pattern="$2"
  for _ in $(seq 120); do
    grep -q "$pattern" "$log" 2>/dev/null && return 0
    sleep 0.5
  done
  echo "spark-standalone: not up after 60 s; see $log" >&2
  return 1
}

case "${1:-}" in
  start)
    workers="${2:-2}" cores="${3:-1}" memory="${4:-3g}"
    bash "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$state"
    start_one master org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" --webui-port "$ui"
    wait_for "$state/logs/master.log" "I have been elected leader"
    for n in $(seq "$workers"); do
      mkdir -p "$state/work-$n"
      start_one "worker-$n" org.apache.spark.deploy.worker.Worker "$master" --host 127.0.0.1 \
        --cores "$cores" --memory "$memory" --work-dir "$state/work-$n" --webui-port 0
      wait_for "$state/logs/worker-$n.log" "Successfully registered with master"
    done
    echo "$master ($workers workers x $cores core(s), $memory each; logs in $state/logs)"
    ;;
  stop)
    for pid_file in "$state"/*.pid; do
      [ -e "$pid_file" ] || continue
      pid="$(cat "$pid_file")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$pid_file"
    done
    echo "stopped"
    ;;
  status)
    for pid_file in "$state"/*.pid; do
      [ -e "$pid_file" ] || { echo "not running"; exit 1; }
      name="$(basename "$pid_file" .pid)"
      kill -0 "$(cat "$pid_file")" 2>/dev/null && echo "$name up" || echo "$name down"
    done
    ;;
  *)
    echo "usage: $0 start [workers] [cores] [memory] | stop | status" >&2
    exit 2
    ;;
esac
