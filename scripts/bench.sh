#!/usr/bin/env bash
# loadctl's figures against this machine's limits (issue 10). Every figure is a ratio to a
# reference measured side by side in the same run: these machines are shared and noisy, so
# absolute times mean little. Prints a table and writes BENCHMARKS.md (or $BENCH_OUT).
#
# Reuses scripts/bench-ticker.sh and scripts/bench-timer.sh; the references are the executable
# targets under Benchmarks/ and the drivers scripts/bench_cancel.py and scripts/bench_search.py.
# Needs hyperfine, /usr/bin/time (package `time`), python3. Release builds; when a build with
# --static-swift-stdlib links (it needs libcurl's development files), start-up is measured for
# it too.
#
# Usage: scripts/bench.sh            the full suite (a few minutes on a busy 2-core machine)
#        scripts/bench.sh --quick    every figure tiny: proves the suite runs (CI), numbers mean
#                                    nothing
# Environment: BENCH_OUT=FILE writes the report there instead of BENCHMARKS.md.
# Exit status: 0 whatever the numbers are; non-zero when a build or a command fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=false
if [[ "${1:-}" == "--quick" ]]; then quick=true; fi
OUT="${BENCH_OUT:-BENCHMARKS.md}"
command_line="scripts/bench.sh${1:+ $1}"
for tool in hyperfine python3 /usr/bin/time; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is missing (apt-get install -y hyperfine time python3)" >&2
    exit 2
  fi
done

if $quick; then
  STARTUP_RUNS=3 CANCEL_RUNS=2 ACTIONS=20000 ROUNDS=1 TICKER_COUNT=20000 TICKER_RUNS=2
  TIMER_RUNS=1 TIMER_TICKS=20 KEYSTROKE=50ms
else
  STARTUP_RUNS=30 CANCEL_RUNS=10 ACTIONS=1000000 ROUNDS=3 TICKER_COUNT=1000000 TICKER_RUNS=5
  TIMER_RUNS=3 TIMER_TICKS=1000 KEYSTROKE=50ms
fi

echo "== building (release)" >&2
swift build -c release 2>&1 | tail -n 1 >&2
BIN="$(swift build -c release --show-bin-path)"
STATIC_BIN=""
if ! $quick; then
  if swift build -c release --static-swift-stdlib --scratch-path .build-static \
    --product loadctl >/dev/null 2>&1 &&
    swift build -c release --static-swift-stdlib --scratch-path .build-static \
      --product HelloReference >/dev/null 2>&1; then
    STATIC_BIN="$(swift build -c release --scratch-path .build-static --show-bin-path)"
  else
    echo "  (no --static-swift-stdlib build: it did not link; libcurl4-openssl-dev missing?)" >&2
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ROWS=()   # figure|loadctl|reference|ratio|goal|met|why
# Adds a row; the ratio and met columns are computed by the caller.
row() { ROWS+=("$(printf '%s|' "$@")"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# met VALUE OP LIMIT: "met" or "missed".
met() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
  ok = (op == "<=") ? v <= l : (op == ">=") ? v >= l : (op == "<") ? v < l : v == l
  print ok ? "met" : "missed" }'; }
json() {
  python3 -c 'import json, sys
value = json.loads(sys.argv[1])[sys.argv[2]]
print(value if isinstance(value, str) else json.dumps(value))' "$1" "$2"
}

# MARK: start-up

# Median wall seconds of two commands measured together by hyperfine; prints "first second".
side_by_side() {
  hyperfine -N --style none --warmup 3 --runs "$STARTUP_RUNS" --export-json "$work/h.json" \
    "$1" "$2" >/dev/null 2>&1
  python3 -c 'import json, sys
print(" ".join("%.6f" % x["median"] for x in json.load(open(sys.argv[1]))["results"]))' \
    "$work/h.json"
}
# Median peak RSS (KiB) of a command over 3 runs.
peak_rss() {
  for _ in 1 2 3; do
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
  done | sort -n | sed -n 2p
}
startup() {
  local label=$1 dir=$2 ours theirs
  echo "== start-up ($label)" >&2
  read -r ours theirs <<<"$(side_by_side "$dir/loadctl --version" "$dir/HelloReference")"
  local r
  r="$(ratio "$ours" "$theirs")"
  row "\`loadctl --version\` wall time ($label)" "$(awk -v s="$ours" 'BEGIN { printf "%.2f ms", s * 1000 }')" \
    "$(awk -v s="$theirs" 'BEGIN { printf "%.2f ms", s * 1000 }') (HelloReference)" "${r}×" "≤ 2×" \
    "$(met "$r" "<=" 2)" "$STARTUP_WHY"
  ours="$(peak_rss "$dir/loadctl" --version)"
  theirs="$(peak_rss "$dir/HelloReference")"
  r="$(ratio "$ours" "$theirs")"
  row "\`loadctl --version\` peak RSS ($label)" "$ours KiB" "$theirs KiB (HelloReference)" "${r}×" \
    "≤ 2×" "$(met "$r" "<=" 2)" "$RSS_WHY"
}
STARTUP_WHY="16 shared libraries against 14 (Dispatch, Synchronization) and a larger binary to map (notes below)"
RSS_WHY="a larger binary and two more shared libraries mapped (notes below)"
startup "dynamic stdlib" "$BIN"
if [[ -n "$STATIC_BIN" ]]; then startup "static stdlib" "$STATIC_BIN"; fi

# MARK: Ctrl-C

echo "== Ctrl-C → process gone" >&2
cancel() { timeout 300 python3 scripts/bench_cancel.py "$CANCEL_RUNS" "$@"; }
reference="$(cancel ready "$BIN/CancelReference")"
reference_ms="$(json "$reference" median_ms)"
CANCEL_WHY="after the signal loadctl runs the flow's onCancel transition, prints it and the end event, and tears down the store's task group"
for flow in profile ticker; do
  if [[ $flow == profile ]]; then
    ours="$(cancel '"state":"loading"' "$BIN/loadctl" profile --latency 30s --json)"
  else
    ours="$(cancel '"event":"tick"' "$BIN/loadctl" ticker --interval 100ms --json)"
  fi
  ours_ms="$(json "$ours" median_ms)"
  r="$(ratio "$ours_ms" "$reference_ms")"
  signaled="$(json "$ours" signaled)"
  row "Ctrl-C → gone, $flow (died by SIGINT: $signaled, $(json "$ours" tail_lines) lines after it)" \
    "$ours_ms ms" "$reference_ms ms (CancelReference)" "${r}×" "≤ 3×" "$(met "$r" "<=" 3)" \
    "$CANCEL_WHY"
done

# MARK: ticker and timer (the flows' own scripts)

echo "== ticker (scripts/bench-ticker.sh)" >&2
COUNT=$TICKER_COUNT RUNS=$TICKER_RUNS BENCH_RESULT="$work/ticker" \
  scripts/bench-ticker.sh --quick >"$work/ticker.log" 2>&1 || { cat "$work/ticker.log" >&2; exit 1; }
# shellcheck disable=SC1091
source "$work/ticker"
r="$(ratio "$ticker_rate" "$reference_rate")"
row "ticker --interval 0 --count $count --json lines/s" "$ticker_rate" \
  "$reference_rate (TickerReference)" "${r}×" "≥ 0.5×" "$(met "$r" ">=" 0.5)" \
  "AsyncStream's next()/yield, unspecialised for Double, ~0.8 µs per value (notes below)"
r="$(ratio "$rss_large_kib" "$rss_small_kib")"
row "ticker peak RSS, $count vs 10,000 ticks" "$rss_large_kib KiB" "$rss_small_kib KiB" "${r}×" \
  "≤ 1.1×" "$(met "$r" "<=" 1.1)" "—"

echo "== timer (scripts/bench-timer.sh)" >&2
SKIP_BUILD=1 TICKS=$TIMER_TICKS BENCH_RESULT="$work/timer" \
  scripts/bench-timer.sh "$TIMER_RUNS" >"$work/timer.log" 2>&1 || { cat "$work/timer.log" >&2; exit 1; }
# shellcheck disable=SC1091
source "$work/timer"
row "timer --interval 10ms --ticks $ticks final lateness" "$loadctl_ms ms" "$naive_ms ms (NaiveTimer)" \
  "—" "≤ 1 ms" "$(met "$loadctl_ms" "<=" 1)" "—"

# MARK: store throughput

echo "== store throughput" >&2
STORE_WHY="~11 ns per action against the loop's ~2 ns: destroying each StoreEvent through its generic value witness, the reducer closure at generic abstraction (notes below)"
store="$("$BIN/StoreThroughput" "$ACTIONS" "$ROUNDS")"
r="$(json "$store" ratio)"
row "Store.run actions/s, $ACTIONS actions, reducer returns .none" "$(json "$store" store_per_s)" \
  "$(json "$store" loop_per_s) (plain loop, StoreThroughput)" "${r}×" "≥ 0.3×" \
  "$(met "$r" ">=" 0.3)" "$STORE_WHY"
mailbox="$(json "$store" mailbox_per_s)"
r="$(ratio "$mailbox" "$(json "$store" loop_per_s)")"
row "Store.run actions/s with an effect in flight (inputs through the mailbox)" "$mailbox" \
  "$(json "$store" loop_per_s) (plain loop, StoreThroughput)" "${r}×" "—" "—" "—"

# MARK: search and virtual time

echo "== search" >&2
typed="$("$BIN/loadctl" search --json --type withTaskCancellation --keystroke "$KEYSTROKE" \
  --clock virtual | python3 scripts/bench_search.py)"
started="$(json "$typed" requests_started)"
row "search: typing 20 keys at $KEYSTROKE (virtual), requests" "$started" "—" "—" "1 request" \
  "$(met "$started" "==" 1)" "—"
racing="$("$BIN/loadctl" search --json --type withTaskCancellation --debounce 0 \
  --keystroke "$KEYSTROKE" --latency 200ms | python3 scripts/bench_search.py)"
median_ms="$(json "$racing" cancel_median_ms)"
row "search: new query → request_cancelled, median of $(json "$racing" cancelled) (max $(json "$racing" cancel_max_ms) ms)" \
  "$median_ms ms" "—" "—" "≤ 5 ms" "$(met "$median_ms" "<=" 5)" "—"

echo "== virtual time" >&2
seconds="$( { /usr/bin/time -f %e "$BIN/loadctl" timer --interval 1s --duration 1h --clock virtual \
  >/dev/null; } 2>&1 | tail -n 1)"
row "timer --interval 1s --duration 1h --clock virtual, wall time" "$seconds s" "—" "—" "< 1 s" \
  "$(met "$seconds" "<" 1)" "—"

# MARK: report

# What the profiles show for the figures that miss; measured once, by hand (see each line).
notes() {
  cat <<'NOTES'

## Where the time goes, for the figures that miss

- **ticker lines/s** (`perf record -g .build/release/loadctl ticker --interval 0 --count 300000
  --json --seed 1 > /dev/null`; details in `docs/ticker.md`): was 0.35×. The producer and the
  consumer took turns instead of running on both cores (the producer waited for each batch of
  1024 to be shown), and each line went through a field array, `Double.description` and a
  `Task.isCancelled` per value. Now the reader takes a finished batch from the stream (still one
  `AsyncStream<Double>.next()` per price) and shows it while the producer makes the next one,
  tick fields are written straight into the output buffer, and cancellation is one handler
  around the loop. What is left is mostly `AsyncStream` itself: `yield` plus `next()`, not
  specialised for `Double`, cost ~0.8 µs per value measured alone, more than the reference's
  whole line; the event line costs ~0.25 µs.
- **Store.run actions/s** (`perf record -g .build/release/StoreThroughput 1000000 3`, then
  `perf report --no-children`; valgrind's callgrind crashes on libdispatch's `sigsuspend` here).
  The store's hot path is `@inlinable` (specialised for each flow's types) and, while no effect is
  in flight, the run pulls its inputs itself (nothing else can send an action then), so an
  action costs a reducer call, a `StoreEvent` and an observer call, with no task hop: ~11 ns
  against the loop's ~2 ns (0.0014× → ~0.2×). What remains (profile of the direct path alone):
  ~31 % destroying the `StoreEvent` after the observer returns — after specialisation the SIL
  still holds a `release_value` of the whole event, which goes through the enum's generic
  value-witness destroy (`$s4Core10StoreEventOwxx`) although no part of
  `.transition(…, effect: nil)` needs cleanup; ~23 % the reducer closure, which gets the action
  through memory because `Store` keeps it at generic abstraction (mostly one load stall);
  ~12 % the outlined destroy of the returned `.none` `Effect`; ~20 % the loop itself.
  Tried without gain: building the event in a temporary slot (2× slower), `switch consume` on
  the event (rejected by the Swift 6.3 compiler), a separate inlined report helper. Reaching
  ≤ 7 ns looks like it needs a lighter internal report (action and new state only) or a
  compiler that folds the destroy; not made. With an effect in flight, inputs go through a
  pump task in lockstep with the loop (the second store row).
- **`loadctl --version` start-up and RSS**: fixed. `--url` used `URLSession`, whose
  FoundationNetworking brought libcurl, its TLS, Kerberos, LDAP and ICU: 51 shared libraries,
  5.9× the hello world's wall time and 3.3× its RSS. loadctl now has its own HTTP/1.1 client over
  sockets (`Sources/Commands/Backends/HTTP/`) and no Foundation at all (16 libraries against 14),
  and `--version`, help and usage errors are answered synchronously in `main`, before any thread,
  signal handler or hop to the concurrency runtime (the async `main` used to start dispatch's
  worker threads just to print a version). Measured with `perf stat -r 300`: 2.91 ms against
  2.39 ms (1.22×), 392 page faults against 312.
NOTES
}

model="$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
{
  echo "# Benchmarks"
  echo
  echo "Generated by \`$command_line\` on $(date -u '+%Y-%m-%d %H:%M UTC'): $(nproc) cores," \
    "$(uname -m), ${model:-unknown CPU}, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
    "(the machine is shared), $(swift --version 2>&1 | head -n 1)."
  echo "Release builds. Each ratio is loadctl against its reference measured in the same run."
  if $quick; then echo; echo "**--quick run: tiny counts, the numbers mean nothing.**"; fi
  echo
  echo "| figure | loadctl | reference | ratio | goal | met | why, where missed |"
  echo "|---|---|---|---|---|---|---|"
  for line in "${ROWS[@]}"; do
    IFS='|' read -r figure ours theirs r goal verdict why <<<"$line"
    if [[ $verdict == met ]]; then why=""; fi
    echo "| $figure | $ours | $theirs | $r | $goal | $verdict | $why |"
  done
  notes
} >"$OUT"
cat "$OUT"
