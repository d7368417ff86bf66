#!/usr/bin/env bash
# Benchmark of `loadctl ticker`. Prints figures; it is not a timed test and exits 0 whatever the
# numbers are (non-zero only when a build or a command fails).
#
#  1. Throughput, random prices: `loadctl ticker --interval 0 --count N --json --seed 1
#     > /dev/null` in lines per second, against Benchmarks/TickerReference, a plain loop writing
#     the same lines (same generator and formatting, no stream, no tasks), and against the same
#     loop formatting each tick with JSONEncoder. Goal: >= 0.5x the plain loop.
#  2. Throughput, a file: `loadctl ticker --from FILE --json > /dev/null` for a file of N prices,
#     against `TickerReference --from FILE`, the plain loop reading the same file. Goal: >= 0.5x.
#  3. Memory: peak RSS of N ticks vs 10,000 ticks. Goal: <= 1.1x.
#  4. Latency into a pipe at --interval 1s: when each line reaches a reader.
#
# Uses hyperfine when installed (apt-get install -y hyperfine), else a loop over
# /usr/bin/time; /usr/bin/time -v for peak RSS. Release builds: loadctl from the root package,
# the references from Benchmarks/Package.swift.
#
# Usage: scripts/bench-ticker.sh            full run (about a minute)
#        scripts/bench-ticker.sh --quick    100,000 lines, 3 runs, no pipe check
# Environment: COUNT (ticks, default 1000000), RUNS (default 5), SKIP_BUILD=1 to reuse the
# builds, LOADCTL_BIN_DIR=DIR to run DIR/loadctl instead of the release build, BENCH_RESULT=FILE
# to also write the figures as KEY=VALUE lines to FILE (for scripts/bench.sh).
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=false
if [[ "${1:-}" == "--quick" ]]; then quick=true; fi
COUNT=${COUNT:-$($quick && echo 100000 || echo 1000000)}
RUNS=${RUNS:-$($quick && echo 3 || echo 5)}
SEED=1
LINES=$((COUNT + 3)) # start, the ticks, producer_stopped, end

if [[ ! -x /usr/bin/time ]]; then
  echo "error: /usr/bin/time is missing (apt-get install -y time)" >&2
  exit 2
fi

if [[ "${SKIP_BUILD:-}" != 1 ]]; then
  echo "== building (release)"
  swift build -c release --product loadctl 2>&1 | tail -n 1
  swift build -c release --package-path Benchmarks --product TickerReference 2>&1 | tail -n 1
fi
LOADCTL="${LOADCTL_BIN_DIR:-$(swift build -c release --show-bin-path)}/loadctl"
REFERENCE="$(swift build -c release --package-path Benchmarks --show-bin-path)/TickerReference"

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$(swift --version 2>&1 | head -n 1)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Prints "best median" wall-clock seconds of a shell command over $RUNS runs.
seconds() {
  local command=$1
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --style none --warmup 1 --runs "$RUNS" --export-json "$work/h.json" "$command" \
      >/dev/null 2>&1
    python3 - "$work/h.json" <<'PY'
import json, statistics, sys
times = json.load(open(sys.argv[1]))["results"][0]["times"]
print(f"{min(times):.4f} {statistics.median(times):.4f}")
PY
  else
    local times=()
    for _ in $(seq "$RUNS"); do
      times+=("$({ /usr/bin/time -f %e bash -c "$command" >/dev/null; } 2>&1 | tail -n 1)")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[1], a[int((NR + 1) / 2)] }'
  fi
}

# Prints lines per second for a time in seconds.
rate() { awk -v lines="$LINES" -v s="$1" 'BEGIN { printf "%.0f", lines / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo
echo "== 1. random prices: $LINES lines to /dev/null, $RUNS runs (lines/s from the median; best run in brackets)"
read -r ticker_best ticker_median <<<"$(seconds "$LOADCTL ticker --interval 0 --count $COUNT --json --seed $SEED > /dev/null")"
read -r reference_best reference_median <<<"$(seconds "$REFERENCE $COUNT $SEED > /dev/null")"
read -r encoder_best encoder_median <<<"$(seconds "$REFERENCE $COUNT $SEED --encoder > /dev/null")"
ticker_rate=$(rate "$ticker_median")
reference_rate=$(rate "$reference_median")
encoder_rate=$(rate "$encoder_median")
printf '  %-44s %9s lines/s  (%s s) [%s lines/s]\n' \
  "loadctl ticker" "$ticker_rate" "$ticker_median" "$(rate "$ticker_best")" \
  "plain loop, hand-formatted (TickerReference)" "$reference_rate" "$reference_median" \
  "$(rate "$reference_best")" \
  "plain loop, JSONEncoder (--encoder)" "$encoder_rate" "$encoder_median" "$(rate "$encoder_best")"
echo "  ratio to the hand-formatted loop: $(ratio "$ticker_rate" "$reference_rate")x" \
  "(best runs: $(ratio "$(rate "$ticker_best")" "$(rate "$reference_best")")x)   goal: >= 0.5x"
echo "  ratio to the JSONEncoder loop:    $(ratio "$ticker_rate" "$encoder_rate")x"

echo
echo "== 2. a file of $COUNT prices: $LINES lines to /dev/null, $RUNS runs"
prices="$work/prices.txt"
python3 - "$COUNT" "$prices" <<'PY'
import sys
count, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as out:
    out.writelines(f"{(9000 + (i * 7919) % 2001) / 100}\n" for i in range(count))
PY
read -r from_best from_median <<<"$(seconds "$LOADCTL ticker --from $prices --json > /dev/null")"
read -r from_reference_best from_reference_median <<<"$(seconds "$REFERENCE --from $prices > /dev/null")"
from_rate=$(rate "$from_median")
from_reference_rate=$(rate "$from_reference_median")
printf '  %-44s %9s lines/s  (%s s) [%s lines/s]\n' \
  "loadctl ticker --from FILE" "$from_rate" "$from_median" "$(rate "$from_best")" \
  "plain loop reading the file (--from)" "$from_reference_rate" "$from_reference_median" \
  "$(rate "$from_reference_best")"
echo "  ratio: $(ratio "$from_rate" "$from_reference_rate")x   goal: >= 0.5x"

# Peak RSS in KiB of `loadctl ticker` for a tick count: the median of 3 runs.
peak_rss() {
  for _ in 1 2 3; do
    /usr/bin/time -v "$LOADCTL" ticker --interval 0 --count "$1" --json --seed "$SEED" \
      2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
  done | sort -n | sed -n 2p
}

echo
echo "== 3. peak RSS (median of 3)"
small=$(peak_rss 10000)
large=$(peak_rss "$COUNT")
echo "  10,000 ticks: $small KiB; $COUNT ticks: $large KiB;" \
  "ratio $(ratio "$large" "$small")x   goal: <= 1.1x"

if [[ -n "${BENCH_RESULT:-}" ]]; then
  printf '%s\n' "count=$COUNT" "ticker_rate=$ticker_rate" "reference_rate=$reference_rate" \
    "encoder_rate=$encoder_rate" "from_rate=$from_rate" \
    "from_reference_rate=$from_reference_rate" "rss_small_kib=$small" \
    "rss_large_kib=$large" >"$BENCH_RESULT"
fi

if ! $quick; then
  echo
  echo "== 4. into a pipe at --interval 1s: seconds after start when each line reaches the reader"
  "$LOADCTL" ticker --count 3 --seed "$SEED" | python3 -c '
import sys, time
start = time.monotonic()
for line in sys.stdin:
    print(f"  {time.monotonic() - start:6.3f}  {line.rstrip()}")
'
fi
