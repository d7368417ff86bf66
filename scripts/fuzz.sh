#!/usr/bin/env bash
# Builds one libFuzzer target and runs it for a while.
#
# Usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#        scripts/fuzz.sh TARGET build          (build only; prints the binary's path)
#        scripts/fuzz.sh list                  (the targets)
#
# TARGET is a folder under Fuzz/ (ArgumentParser, Duration, InputLine, ProfileJSON). Its
# main.swift defines LLVMFuzzerTestOneInput; this script compiles it with swiftc together with
# exactly the source files it tests (listed below, not a SwiftPM target: SwiftPM cannot link
# libFuzzer's own main), with -sanitize=fuzzer,address. Code that imports Core gets a small
# Core module built first from the Core files the target needs.
#
# The run reads the checked-in seeds in Fuzz/TARGET/corpus/ and writes what it discovers to
# .build-fuzz/TARGET/corpus/ (kept between runs, never committed). A crash leaves its input in
# .build-fuzz/TARGET/artifacts/ and makes the script fail; replay it with
#   "$(scripts/fuzz.sh TARGET build)" .build-fuzz/TARGET/artifacts/crash-…
# Extra arguments go to libFuzzer, e.g. -jobs=2 or -max_len=8192. FUZZ_OPT=-Onone builds
# without optimisation (CI's smoke run: a third of the build time, fewer runs per second).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGETS=(ArgumentParser Duration InputLine ProfileJSON)

usage() {
  sed -n '4,6p' "${BASH_SOURCE[0]}" | sed 's/^# //' >&2
  exit 64
}

# The files each target compiles, besides Fuzz/TARGET/main.swift, named by file name (found
# wherever they live under Sources/, so moving a file needs no edit here). CORE_FILES become a
# module named LoadctlCore (the sources `import LoadctlCore`); COMMANDS_FILES are compiled with
# the entry point.
select_files() {
  CORE_FILES=()
  COMMANDS_FILES=()
  case "$1" in
    ArgumentParser)
      # The real command table pairs every subcommand's spec with its runner, so it needs all of
      # Commands and Core; globbing keeps a newly registered flow covered with no edit here.
      mapfile -t CORE_FILES < <(find Sources/Core -path Sources/Core/Testing -prune -o -name '*.swift' -print | LC_ALL=C sort)
      mapfile -t COMMANDS_FILES < <(find Sources/Commands -name '*.swift' | LC_ALL=C sort)
      ;;
    Duration)
      locate COMMANDS_FILES Sources/Commands DurationParser
      ;;
    InputLine)
      # LineSplitter lives beside LineSource, which needs its channel, the RawLines it returns
      # (with FileLines), Core's ReadyIterator that RawLines' iterator conforms to, and Core's
      # reader thread.
      locate CORE_FILES Sources/Core Locked ReaderThread ReadyIterator
      locate COMMANDS_FILES Sources/Commands DurationParser InputLine String+Spaces LineChannel \
        LineSource RawLines FileLines
      ;;
    ProfileJSON)
      locate CORE_FILES Sources/Core LoadState
      locate COMMANDS_FILES Sources/Commands JSONParser JSONValue ControlCharacters Profile
      ;;
    *)
      echo "unknown fuzz target '$1' (one of: ${TARGETS[*]})" >&2
      exit 64
      ;;
  esac
}

# locate ARRAY DIR NAME...: appends DIR's NAME.swift files (found at any depth) to ARRAY.
locate() {
  local -n into=$1
  local dir=$2 name path
  shift 2
  for name in "$@"; do
    path="$(find "$dir" -name "$name.swift" -print -quit)"
    if [[ -z "$path" ]]; then
      echo "fuzz.sh: no $name.swift under $dir" >&2
      exit 1
    fi
    into+=("$path")
  done
}

# lld: gold warns about every ASan report symbol when linking Foundation.
SWIFTC_FLAGS=(
  -swift-version 6 -package-name loadctl -parse-as-library "${FUZZ_OPT:--O}" -g -j2
  "-sanitize=fuzzer,address" -use-ld=lld
)

# Builds Fuzz/$1 into .build-fuzz/$1/fuzz-$1 (always, it takes seconds) and prints the path.
build() {
  local target=$1 dir=".build-fuzz/$1"
  select_files "$target"
  mkdir -p "$dir/module"
  local link=()
  if ((${#CORE_FILES[@]} > 0)); then
    swiftc "${SWIFTC_FLAGS[@]}" -module-name LoadctlCore -emit-module \
      -emit-module-path "$dir/module/LoadctlCore.swiftmodule" -emit-library -static \
      -o "$dir/module/libLoadctlCore.a" "${CORE_FILES[@]}" >&2
    link=(-I "$dir/module" -L "$dir/module" -lLoadctlCore)
  fi
  swiftc "${SWIFTC_FLAGS[@]}" -module-name "Fuzz$target" "${link[@]}" \
    -o "$dir/fuzz-$target" "${COMMANDS_FILES[@]}" "Fuzz/$target/main.swift" >&2
  echo "$dir/fuzz-$target"
}

(($# >= 1)) || usage
if [[ $1 == list ]]; then
  printf '%s\n' "${TARGETS[@]}"
  exit 0
fi
(($# >= 2)) || usage
target=$1
seconds=$2
shift 2

binary="$(build "$target")"
if [[ $seconds == build ]]; then
  echo "$binary"
  exit 0
fi
[[ $seconds =~ ^[0-9]+$ ]] || usage

work=".build-fuzz/$target"
mkdir -p "$work/corpus" "$work/artifacts"
# -timeout: any single input slower than 10 s is a hang worth reporting.
# -rss_limit_mb: ASan's shadow memory plus a large corpus stays well under this.
# Fuzz/lsan.supp: leaks of one-time global initialisers are not the input's.
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
exec "$binary" "$work/corpus" "Fuzz/$target/corpus" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@"
