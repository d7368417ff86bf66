#!/usr/bin/env bash
# How late is the last tick of a long timer run?
#
# Builds release, then runs `loadctl timer --interval 10ms --ticks 1000` (Core's drift-free
# ClockTimer, sleeping until start + n × interval) and Benchmarks/NaiveTimer (a loop of
# `Task.sleep(for: 10ms)`) RUNS times each, alternating, and prints the final tick's lateness of
# every run and the medians. The goal for loadctl is ≤ 1 ms; the naive loop drifts by hundreds.
#
# Usage: scripts/bench-timer.sh [RUNS]          (default 5)
# Environment: INTERVAL_MS (default 10), TICKS (default 1000), SKIP_BUILD=1 to reuse the build,
# LOADCTL_BIN_DIR=DIR to run DIR/loadctl instead of the release build, BENCH_RESULT=FILE to also write the medians as KEY=VALUE lines to FILE (for scripts/bench.sh).
# Exit status: 0, or 1 when the loadctl median misses the 1 ms goal and BENCH_STRICT=1.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS="${1:-5}"
INTERVAL_MS="${INTERVAL_MS:-10}"
TICKS="${TICKS:-1000}"
GOAL_MS=1

if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  swift build -c release --product loadctl >&2
  swift build -c release --package-path Benchmarks --product NaiveTimer >&2
fi
BIN="${LOADCTL_BIN_DIR:-$(swift build -c release --show-bin-path)}"
REF_BIN="$(swift build -c release --package-path Benchmarks --show-bin-path)"

# Reads one JSON object per line on stdin and prints its final_lateness_ms.
lateness() {
  python3 -c 'import json, sys
for line in sys.stdin:
    event = json.loads(line)
    if "final_lateness_ms" in event:
        print(event["final_lateness_ms"])'
}

median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "final tick lateness over $TICKS ticks of ${INTERVAL_MS}ms (ms), $RUNS runs, release build"
printf '%-5s %14s %14s\n' run "loadctl timer" "naive sleep"
loadctl_values=()
naive_values=()
for ((run = 1; run <= RUNS; run++)); do
  ours="$("$BIN/loadctl" timer --json --interval "${INTERVAL_MS}ms" --ticks "$TICKS" | tail -n 1 | lateness)"
  naive="$("$REF_BIN/NaiveTimer" "$INTERVAL_MS" "$TICKS" | lateness)"
  loadctl_values+=("$ours")
  naive_values+=("$naive")
  printf '%-5s %14s %14s\n' "$run" "$ours" "$naive"
done
ours_median="$(printf '%s\n' "${loadctl_values[@]}" | median)"
naive_median="$(printf '%s\n' "${naive_values[@]}" | median)"
printf '%-5s %14s %14s\n' median "$ours_median" "$naive_median"
if [[ -n "${BENCH_RESULT:-}" ]]; then
  printf '%s\n' "ticks=$TICKS" "interval_ms=$INTERVAL_MS" "loadctl_ms=$ours_median" \
    "naive_ms=$naive_median" >"$BENCH_RESULT"
fi

if awk -v m="$ours_median" -v g="$GOAL_MS" 'BEGIN { exit !(m <= g) }'; then
  echo "goal: loadctl's final tick ≤ ${GOAL_MS} ms late — met"
else
  echo "goal: loadctl's final tick ≤ ${GOAL_MS} ms late — missed"
  if [[ "${BENCH_STRICT:-}" == 1 ]]; then exit 1; fi
fi
