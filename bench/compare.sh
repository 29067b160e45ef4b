#!/usr/bin/env bash
# Compare the benchmarks of a previous revision with this checkout, on this machine, in one run
# (the house rule: numbers from different machines or different days are not comparable).
#
#   bench/compare.sh [REV] [SELECTOR ...]      REV defaults to HEAD~1; selectors as for run.ts
#
# REV is checked out into a temporary `git worktree` (this checkout's node_modules symlinked in,
# nothing installed), built, and benchmarked if it has a bench; then this working tree (with any
# uncommitted changes) is built and benchmarked. Both JSON outputs are printed, then a table
# joined by metric name. The worktree is removed on exit.
set -euo pipefail

rev="${1:-HEAD~1}"
if [[ $# -gt 0 ]]; then shift; fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sha="$(git -C "$repo" rev-parse --verify --quiet "${rev}^{commit}")" || {
  echo "compare.sh: '${rev}' is not a commit" >&2
  exit 2
}
tmp="$(mktemp -d "${TMPDIR:-/tmp}/yacron2-compare-XXXXXX")"
worktree="$tmp/previous"

cleanup() {
  git -C "$repo" worktree remove --force "$worktree" >/dev/null 2>&1 || true
  git -C "$repo" worktree prune >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Runs `npm run bench` in $1, keeping only the JSON lines (npm and tsc print banners).
run_bench() {
  (cd "$1" && npm run --silent bench -- "${@:2}") | grep '^{' || true
}

# True when the package.json in $1 has a "bench" script and bench/run.ts exists.
has_bench() {
  [[ -f "$1/bench/run.ts" ]] &&
    node -e 'process.exit(require(process.argv[1]).scripts?.bench ? 0 : 1)' "$1/package.json"
}

echo "== previous: ${rev} ($(git -C "$repo" log -1 --format='%h %s' "$sha"))" >&2
git -C "$repo" worktree add --detach --quiet "$worktree" "$sha"
ln -s "$repo/node_modules" "$worktree/node_modules"
previous_note=""
if ! (cd "$worktree" && npm run --silent build >&2); then
  previous_note="${rev} does not build"
elif ! has_bench "$worktree"; then
  previous_note="${rev} builds but has no bench (no bench/run.ts or no \"bench\" script); nothing to compare against"
else
  run_bench "$worktree" "$@" >"$tmp/previous.jsonl"
fi

dirty=""
if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]]; then
  dirty=" + uncommitted changes"
fi
echo "== current: working tree at $(git -C "$repo" log -1 --format='%h %s' HEAD)${dirty}" >&2
# Groups that can measure both builds interleaved in one run (launch) read this.
if [[ -z "$previous_note" ]]; then export YACRON2_BENCH_PREVIOUS_ROOT="$worktree"; fi
run_bench "$repo" "$@" >"$tmp/current.jsonl"

echo "## previous (${rev} = ${sha:0:12})"
if [[ -n "$previous_note" ]]; then
  echo "$previous_note"
  : >"$tmp/previous.jsonl"
else
  cat "$tmp/previous.jsonl"
fi
echo "## current (working tree${dirty})"
cat "$tmp/current.jsonl"

echo "## comparison"
node - "$tmp/previous.jsonl" "$tmp/current.jsonl" <<'EOF'
const { readFileSync } = require('node:fs');
const read = (file) =>
  new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .map((metric) => [metric.name, metric]),
  );
const previous = read(process.argv[2]);
const current = read(process.argv[3]);
const names = [...new Set([...current.keys(), ...previous.keys()])];
const show = (metric) => (metric?.value == null ? '-' : String(metric.value));
const rows = [['metric', 'unit', 'previous', 'current', 'change', 'target', 'met (current)']];
for (const name of names) {
  // A group that measured the previous build itself (interleaved) carries its value.
  const before =
    previous.get(name) ?? (current.get(name)?.previous != null ? { value: current.get(name).previous } : undefined);
  const after = current.get(name);
  const change =
    typeof before?.value === 'number' && typeof after?.value === 'number' && before.value !== 0
      ? `${(((after.value - before.value) / before.value) * 100).toFixed(1)}%`
      : '-';
  const target = after?.target === undefined ? '-' : `${after.targetOp} ${after.target}`;
  const met = after?.targetMet === undefined ? '-' : String(after.targetMet);
  rows.push([name, (after ?? before).unit, show(before), show(after), change, target, met]);
}
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '));
EOF
