#!/bin/sh
# The compose demos' node entrypoint: wait until every FILE exists and is not empty (the
# certificates the one-shot certgen service writes), then exec the command, which becomes PID 1.
#   wait-then-run.sh FILE... -- COMMAND [ARG...]
# podman-compose ignores depends_on conditions, so a node may start before certgen ran. Gives up
# after WAIT_SECONDS (default 120) with a message naming the missing file.
set -eu
limit=${WAIT_SECONDS:-120}
files=''
while [ "$#" -gt 0 ] && [ "$1" != '--' ]; do
  files="$files $1"
  shift
done
[ "$#" -gt 0 ] || { echo "usage: wait-then-run.sh FILE... -- COMMAND [ARG...]" >&2; exit 2; }
shift
waited=0
for file in $files; do
  until [ -s "$file" ]; do
    if [ "$waited" -ge "$limit" ]; then
      echo "wait-then-run: $file did not appear within ${limit} s (did the certgen service run?)" >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
done
exec "$@"
