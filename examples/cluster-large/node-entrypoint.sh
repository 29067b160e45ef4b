#!/bin/sh
# The ten-node compose demo's entrypoint (docker-compose-cluster-large.yml): writes this node's
# configuration from environment variables, waits for its certificate, then execs the daemon
# (PID 1 of the container). Every node gets the same CLUSTER_HOSTS and drops itself from it by
# NODE_NAME, so the compose file needs no per-node peer lists.
#   NODE_NAME       this node, one of the CLUSTER_HOSTS names (required)
#   CLUSTER_HOSTS   every node as name:port, comma-separated (required)
#   DISTRIBUTION    spread (default) or single-leader
#   INTERVAL        gossip interval in seconds (default 10)
#   CERTS_DIR       ca.pem, NAME.pem, NAME.key (default /certs)
#   JOBS_FILE       the shared job set (default /config/jobs.yaml)
#   CONFIG_OUT      where the configuration is written (default /tmp/yacron2/node.yaml)
#   GENERATE_ONLY=1 write the configuration, print its path and exit (the tests use it)
#   WAIT_SECONDS    how long to wait for the certificate (default 120)
set -eu
die() { echo "node-entrypoint: $*" >&2; exit 2; }
node=${NODE_NAME:-}
hosts=${CLUSTER_HOSTS:-}
distribution=${DISTRIBUTION:-spread}
interval=${INTERVAL:-10}
certs=${CERTS_DIR:-/certs}
jobs=${JOBS_FILE:-/config/jobs.yaml}
out=${CONFIG_OUT:-/tmp/yacron2/node.yaml}
[ -n "$node" ] || die "NODE_NAME is not set"
[ -n "$hosts" ] || die "CLUSTER_HOSTS is not set (every node as name:port, comma-separated)"
case "$node" in *[!a-z0-9-]*) die "NODE_NAME '$node' may hold only a-z, 0-9 and -" ;; esac
case "$distribution" in spread | single-leader) ;; *) die "DISTRIBUTION must be spread or single-leader, got '$distribution'" ;; esac
case "$interval" in '' | *[!0-9]*) die "INTERVAL must be a whole number of seconds, got '$interval'" ;; esac

peers=''
port=''
for entry in $(echo "$hosts" | tr ',' ' '); do
  name=${entry%:*}
  [ "$name" != "$entry" ] || die "CLUSTER_HOSTS entry '$entry' is not name:port"
  if [ "$name" = "$node" ]; then
    port=${entry##*:}
  else
    peers="$peers    - host: '$entry'
"
  fi
done
[ -n "$port" ] || die "NODE_NAME '$node' is not in CLUSTER_HOSTS ($hosts)"

mkdir -p "$(dirname "$out")"
cat > "$out.partial" <<CONFIG
# Written by node-entrypoint.sh for $node from NODE_NAME, CLUSTER_HOSTS and DISTRIBUTION.
include:
  - $jobs
web:
  listen:
    - http://0.0.0.0:8080
cluster:
  listen: '0.0.0.0:$port'
  nodeName: $node
  tls:
    ca: $certs/ca.pem
    cert: $certs/$node.pem
    key: $certs/$node.key
  peers:
$peers  interval: $interval
  electLeader: true
  distribution: $distribution
CONFIG
mv "$out.partial" "$out"
if [ "${GENERATE_ONLY:-}" = 1 ]; then
  echo "$out"
  exit 0
fi

limit=${WAIT_SECONDS:-120}
waited=0
until [ -s "$certs/$node.pem" ]; do
  [ "$waited" -lt "$limit" ] || die "$certs/$node.pem did not appear within $limit s (did the certgen service run?)"
  sleep 1
  waited=$((waited + 1))
done
exec yacron2 --shutdown-grace 5 -c "$out"
