#!/usr/bin/env bash
# Builds the DocC documentation of the LoadctlCore runtime (Sources/Core/LoadctlCore.docc) without
# the swift-docc-plugin: the compiler emits LoadctlCore's symbol graph, then `docc convert` joins
# it with the catalog. Any DocC warning (a broken symbol link, say) fails the build.
#
# Usage: scripts/build-docs.sh [OUTPUT_DIR]   (default .build-docs/LoadctlCore.doccarchive)
# Preview locally: docc preview Sources/Core/LoadctlCore.docc \
#   --additional-symbol-graph-dir .build-docs/symbol-graphs
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# A scratch path of its own: the extra compiler flags would otherwise invalidate the main build.
# Started afresh each time (LoadctlCore alone builds in seconds): the compiler writes symbol
# graphs only when it compiles, and an up-to-date build would leave none.
scratch=.build-docs
symbols="$scratch/symbol-graphs"
output="${1:-$scratch/LoadctlCore.doccarchive}"

rm -rf "$scratch" "$output"
mkdir -p "$symbols"
swift build --target LoadctlCore --scratch-path "$scratch" \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$symbols"
# Only the runtime's own symbols: the graphs of the modules it imports are not documented here.
find "$symbols" -type f ! -name 'LoadctlCore*' -delete
if [[ ! -s "$symbols/LoadctlCore.symbols.json" ]]; then
  echo "error: no symbol graph for LoadctlCore in $symbols" >&2
  exit 1
fi

docc convert Sources/Core/LoadctlCore.docc \
  --additional-symbol-graph-dir "$symbols" \
  --output-path "$output" \
  --fallback-display-name LoadctlCore \
  --fallback-bundle-identifier org.loadctl.LoadctlCore \
  --warnings-as-errors
echo "documentation: $output"
