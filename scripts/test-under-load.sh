#!/usr/bin/env bash
# Runs the whole suite (`swift test`) RUNS times in a row beside BUSY busy CPU loops, and stops at
# the first failing run with its failures and log. The loops end with the script.
#
#   scripts/test-under-load.sh [RUNS] [BUSY]     # default: 10 runs beside 2 busy loops
#
# The suite must hold on a loaded machine: end-to-end tests wait for what they act on, never for
# an amount of time, and this is how that is checked.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi

runs="${1:-10}"
busy="${2:-2}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

swift build --build-tests
loops=()
stop_loops() {
  if ((${#loops[@]} > 0)); then kill "${loops[@]}" 2>/dev/null || true; fi
}
trap stop_loops EXIT
for ((i = 0; i < busy; i++)); do
  (while :; do :; done) &
  loops+=($!)
done

for ((run = 1; run <= runs; run++)); do
  log="$(mktemp)"
  if swift test --skip-build >"$log" 2>&1; then
    echo "run $run of $runs, beside $busy busy loops: $(tail -n 1 "$log")"
    rm -f "$log"
  else
    grep -E '✘' "$log" | head -n 40 || true
    echo "run $run of $runs failed beside $busy busy loops; the log is $log" >&2
    exit 1
  fi
done
