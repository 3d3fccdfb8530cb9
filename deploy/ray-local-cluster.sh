#!/usr/bin/env bash
# A real two-node Ray cluster on this machine, for the cluster demos and their tests:
#   deploy/ray-local-cluster.sh up | down | status | nodes | kill-b
# Node "a" is the head (GCS, Ray Client server); node "b" is a worker node with its own raylet,
# CPUs and object store. Each node offers a custom resource naming it (raydeck-node-a / -b), and
# node b offers raydeck-chaos: the one node the node-failure demo may kill. A supervisor loop
# brings node b back after it dies, as KubeRay replaces a worker pod.
# Point RayDeck's demos worker at it with RAY_ADDRESS=ray://127.0.0.1:$RAY_CLIENT_PORT (the
# KubeRay form), or 127.0.0.1:$RAY_HEAD_PORT for a plain driver.
set -euo pipefail
cd "$(dirname "$0")/.."
RAY=${RAY:-.venv/bin/ray}
DIR=${RAY_CLUSTER_DIR:-$PWD/var/ray-cluster}
HEAD_PORT=${RAY_HEAD_PORT:-6390}
CLIENT_PORT=${RAY_CLIENT_PORT:-6391}
NODE_CPUS=${RAY_NODE_CPUS:-1}
STORE_BYTES=${RAY_NODE_STORE_BYTES:-$((400 * 1024 * 1024))}
# Every process of this cluster names this folder on its command line, which is how `down`
# stops this cluster alone (`ray stop` would stop every Ray on the machine).
TMP=${RAY_CLUSTER_TMP:-/tmp/raydeck-ray-$HEAD_PORT}
# A dead node is noticed in ~2 s instead of ~30 s (GCS health checks), on every process.
export RAY_health_check_period_ms=${RAY_health_check_period_ms:-500}
export RAY_health_check_failure_threshold=${RAY_health_check_failure_threshold:-4}
export RAY_USAGE_STATS_ENABLED=0
# Token authentication with this cluster's own token (whoever reaches a Ray head can run code
# on it). A driver needs the same two variables: `up` prints them.
export RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH="$DIR/auth_token"
unset RAY_AUTH_TOKEN

node_b() {
  "$RAY" start --address="127.0.0.1:$HEAD_PORT" --num-cpus="$NODE_CPUS" \
    --resources='{"raydeck-node-b": 1, "raydeck-chaos": 1}' --object-store-memory="$STORE_BYTES" \
    --temp-dir="$TMP" --block >>"$DIR/node-b.log" 2>&1
}

alive_nodes() {
  .venv/bin/python - "$HEAD_PORT" <<'PY' 2>/dev/null || echo 0
import sys, ray
ray.init(address=f"127.0.0.1:{sys.argv[1]}", log_to_driver=False, configure_logging=False)
print(sum(1 for n in ray.nodes() if n["Alive"]))
PY
}

case "${1:-}" in
up)
  mkdir -p "$DIR"
  rm -f "$DIR/stopping"
  [ -s "$RAY_AUTH_TOKEN_PATH" ] || (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$RAY_AUTH_TOKEN_PATH")
  if [ -f "$DIR/supervisor.pid" ] && kill -0 "$(cat "$DIR/supervisor.pid")" 2>/dev/null; then
    echo "already up: $0 status"; exit 0
  fi
  "$RAY" start --head --port="$HEAD_PORT" --ray-client-server-port="$CLIENT_PORT" \
    --num-cpus="$NODE_CPUS" --resources='{"raydeck-node-a": 1}' \
    --object-store-memory="$STORE_BYTES" --include-dashboard=false \
    --temp-dir="$TMP" --disable-usage-stats >"$DIR/head.log" 2>&1
  # Node b under a supervisor: a new node (new id) starts a few seconds after the old one died.
  (
    trap 'exit 0' TERM
    while [ ! -f "$DIR/stopping" ]; do node_b || true; sleep 2; done
  ) >/dev/null 2>&1 &
  echo $! >"$DIR/supervisor.pid"
  for _ in $(seq 120); do
    nodes=$(alive_nodes)
    [ "${nodes:-0}" -ge 2 ] && break
    sleep 0.5
  done
  [ "${nodes:-0}" -ge 2 ] || { echo "node b did not join: see $DIR/node-b.log"; exit 1; }
  echo "Ray cluster up, 2 nodes. Point the demos worker at it with:"
  echo "  RAY_ADDRESS=ray://127.0.0.1:$CLIENT_PORT RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH=$RAY_AUTH_TOKEN_PATH"
  ;;
down)
  touch "$DIR/stopping" 2>/dev/null || true
  if [ -f "$DIR/supervisor.pid" ]; then
    kill "$(cat "$DIR/supervisor.pid")" 2>/dev/null || true
    rm -f "$DIR/supervisor.pid"
  fi
  pkill -TERM -f -- "$TMP" 2>/dev/null || true
  for _ in $(seq 20); do pgrep -f -- "$TMP" >/dev/null || break; sleep 0.25; done
  pkill -KILL -f -- "$TMP" 2>/dev/null || true
  echo "Ray cluster down"
  ;;
status)
  "$RAY" status --address="127.0.0.1:$HEAD_PORT"
  ;;
nodes)  # how many nodes are alive
  alive_nodes
  ;;
kill-b)  # SIGKILL node b's raylet, as a lost machine would die; the supervisor starts a new one
  pkill -KILL -f -- "static_resource_list=raydeck-node-b.*$TMP" && echo "node b killed"
  ;;
*)
  echo "usage: $0 up|down|status|nodes|kill-b" >&2; exit 2
  ;;
esac
