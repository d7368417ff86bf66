#!/usr/bin/env bash
# Builds and tests Examples/CounterFlow, a package that depends on loadctl by git URL and version
# (`.package(url:from: "0.1.0")`), the way any other package pins the runtime. A versioned
# dependency is refused when the root manifest has unsafe flags, or breaks when a module name
# clashes; this step catches both before a release does.
#
# It checks HEAD, not the working tree: the library and the example both come from a temporary
# clone of the current commit, tagged 0.1.0 (all other tags removed), which the example's
# manifest reads from LOADCTL_URL. Commit first to check uncommitted changes.
#
# Usage: scripts/check-consumer.sh   (from anywhere; KEEP_TMP=1 keeps the temporary directory)
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/loadctl-consumer.XXXXXX")"
cleanup() {
  if [[ "${KEEP_TMP:-}" == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# safe.directory: CI may run as a user other than the checkout's owner.
git -c safe.directory="$repo" clone -q "$repo" "$tmp/loadctl"
git -C "$tmp/loadctl" tag -l | xargs -r git -C "$tmp/loadctl" tag -d >/dev/null
git -C "$tmp/loadctl" tag 0.1.0
echo "loadctl $(git -C "$tmp/loadctl" rev-parse --short HEAD) tagged 0.1.0 in $tmp/loadctl"

# The example as committed, so nothing (Package.resolved, .build) lands in the working tree. Its
# own scratch and cache paths keep it apart from the root package's build and from other runs.
example="$tmp/loadctl/Examples/CounterFlow"
flags=(--package-path "$example" --scratch-path "$tmp/build" --cache-path "$tmp/cache")
export LOADCTL_URL="$tmp/loadctl"
swift build "${flags[@]}"
swift test "${flags[@]}"
"$(swift build "${flags[@]}" --show-bin-path)/counter-flow"
