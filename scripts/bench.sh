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
STARTUP_WHY="FoundationNetworking (for --url) brings 51 shared libraries against 14; loading them is most of it (notes below)"
RSS_WHY="Foundation, FoundationNetworking, libcurl and ICU mapped at start-up"
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
  "each value crosses an AsyncStream between producer and consumer, ~0.65 µs per next() (docs/ticker.md)"
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
STORE_WHY="each action crosses the store's AsyncStream mailbox (a suspension and a resume) and is reported as a StoreEvent; the loop is a call of a few ns"
store="$("$BIN/StoreThroughput" "$ACTIONS" "$ROUNDS")"
r="$(json "$store" ratio)"
row "Store.run actions/s, $ACTIONS actions, reducer returns .none" "$(json "$store" store_per_s)" \
  "$(json "$store" loop_per_s) (plain loop, StoreThroughput)" "${r}×" "≥ 0.3×" \
  "$(met "$r" ">=" 0.3)" "$STORE_WHY"

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

- **ticker lines/s**: not re-profiled here; see `docs/ticker.md`. Each value crosses an
  `AsyncStream` from the producer to the consumer, 0.65 µs per `next()`, which is most of a
  line's cost next to a loop that formats and writes it directly.
- **Store.run actions/s** (`perf record -g .build/release/StoreThroughput 300000 1`, then
  `perf report --no-children`; valgrind's callgrind crashes on libdispatch's `sigsuspend` here):
  about 40 % of the samples are the runtime instantiating generic metadata
  (`swift_getGenericMetadata`, its hash maps, `swift_getTupleTypeMetadata`), called from
  `AsyncStream<Store.Message>.yield`/`next`, `Array.removeFirst` on the immediate queue and
  `RunLoop.handle`/`apply`: `Store<State, Action>` lives in Core and is not specialised for the
  caller's types, so every generic operation looks its metadata up at run time. Another 8 % is the kernel zeroing pages for the mailbox's
  unbounded buffer, because the inputs task enqueues actions faster than the loop applies them.
  Even fully specialised, an `await` on a mailbox costs hundreds of ns against the plain loop's
  ~2 ns call, so ≥ 0.3× (≤ ~7 ns per action) is out of reach for any store that takes actions
  through an async mailbox; what is fixable is the metadata lookups (`@inlinable`/`@_specialize`
  on the store's hot path, or cross-module optimisation in release builds) and a bounded mailbox.
- **`loadctl --version` start-up and RSS**: `ldd` lists 51 shared libraries for loadctl against
  14 for HelloReference. One file, `Sources/Commands/Backends/HTTPFetcher.swift`, imports
  Foundation and FoundationNetworking (for `--url`), which pulls in libcurl with its TLS,
  Kerberos, LDAP and ICU dependencies; the dynamic loader maps and relocates them all before
  `main`. Static linking of the Swift stdlib roughly halves the wall time but not the ratio
  (HelloReference gets faster too). The fix is to keep FoundationNetworking out of the binary's
  start-up (a URLSession-free HTTP client over sockets, or loading it only for `--url`); it is
  not made here.
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
