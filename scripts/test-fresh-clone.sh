#!/usr/bin/env bash
# Clones the current commit into a temporary directory, as a newcomer would, and runs README's test
# command (`swift test`) there RUNS times in a row beside BUSY busy CPU loops. The first run builds
# from nothing. Stops at the first failing run and keeps its log; prints one line per run with its
# time, and a summary at the end.
#
#   scripts/test-fresh-clone.sh [RUNS] [BUSY]   # default: 20 runs on a quiet machine (0 loops)
#   scripts/test-fresh-clone.sh 10 2            # 10 runs beside two busy loops
#
# It tests HEAD, not the working tree: commit first. KEEP_TMP=1 keeps the clone.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi

runs="${1:-20}"
busy="${2:-0}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/loadctl-fresh.XXXXXX")"
loops=()
cleanup() {
  if ((${#loops[@]} > 0)); then kill "${loops[@]}" 2>/dev/null || true; fi
  if [[ "${KEEP_TMP:-}" == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

git -c safe.directory="$repo" clone -q "$repo" "$tmp/loadctl"
echo "fresh clone of $(git -C "$tmp/loadctl" rev-parse --short HEAD) in $tmp/loadctl;" \
  "$runs runs beside $busy busy loops"
for ((i = 0; i < busy; i++)); do
  (while :; do :; done) &
  loops+=($!)
done

cd "$tmp/loadctl"
for ((run = 1; run <= runs; run++)); do
  log="$tmp/run-$run.log"
  start=$SECONDS
  if swift test >"$log" 2>&1; then
    echo "run $run of $runs passed in $((SECONDS - start)) s: $(tail -n 1 "$log")"
  else
    grep -E '✘' "$log" | head -n 40 || true
    kept="${TMPDIR:-/tmp}/loadctl-fresh-failure-$run.log"
    cp "$log" "$kept"
    echo "run $run of $runs FAILED after $((SECONDS - start)) s beside $busy busy loops;" \
      "the log is $kept" >&2
    exit 1
  fi
done
echo "$runs of $runs runs passed beside $busy busy loops"
