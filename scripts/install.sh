#!/usr/bin/env bash
# Builds loadctl for release and installs it with its shell completions and manual page:
#
#   scripts/install.sh [PREFIX]          PREFIX defaults to $PREFIX, else ~/.local
#
#   PREFIX/bin/loadctl
#   PREFIX/share/bash-completion/completions/loadctl
#   PREFIX/share/zsh/site-functions/_loadctl
#   PREFIX/share/fish/vendor_completions.d/loadctl.fish
#   PREFIX/share/man/man1/loadctl.1
#
# The binary links the Swift runtime statically (--static-swift-stdlib): a dynamic build finds
# it through a RUNPATH into the toolchain, so it would stop working when the toolchain moves.
# The completions and the manual page come from the binary just built, so they always match it.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  # The comment at the top of this file is its usage.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if (($# > 1)); then
  echo "usage: scripts/install.sh [PREFIX]   (default: ~/.local)" >&2
  exit 64
fi
prefix="${1:-${PREFIX:-$HOME/.local}}"
# Shared with scripts/bench.sh, which builds the same static binary.
scratch=.build-static

echo "building loadctl (release, static Swift runtime) in $scratch ..."
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product loadctl
built="$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" \
  --show-bin-path)/loadctl"

mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
bin_dir="$prefix/bin"
bash_dir="$prefix/share/bash-completion/completions"
zsh_dir="$prefix/share/zsh/site-functions"
fish_dir="$prefix/share/fish/vendor_completions.d"
man_dir="$prefix/share/man/man1"

install -d "$bin_dir" "$bash_dir" "$zsh_dir" "$fish_dir" "$man_dir"
install -m 755 "$built" "$bin_dir/loadctl"
echo "installed $bin_dir/loadctl"

# Write each generated file next to its destination, then move it into place, so a failed
# run never leaves a half-written script behind.
install_generated() {
  local destination="$1"
  shift
  "$bin_dir/loadctl" "$@" >"$destination.tmp"
  chmod 644 "$destination.tmp"
  mv -f "$destination.tmp" "$destination"
  echo "installed $destination"
}
install_generated "$bash_dir/loadctl" completions bash
install_generated "$zsh_dir/_loadctl" completions zsh
install_generated "$fish_dir/loadctl.fish" completions fish
install_generated "$man_dir/loadctl.1" help --man

echo
echo "$("$bin_dir/loadctl" --version) is installed under $prefix."
case ":$PATH:" in
  *":$bin_dir:"*)
    echo "$bin_dir is on PATH: try 'loadctl --help' and 'man loadctl'."
    ;;
  *)
    echo "$bin_dir is not on PATH; add it in your shell's start-up file:"
    echo "  bash, zsh:  export PATH=\"$bin_dir:\$PATH\"   (~/.bashrc, ~/.zshrc)"
    echo "  fish:       fish_add_path $bin_dir"
    echo "man then finds the page too: it looks beside each bin directory on PATH."
    ;;
esac
echo "zsh reads completions from the directories in \$fpath when compinit runs; in ~/.zshrc:"
echo "  fpath=($zsh_dir \$fpath)"
echo "  autoload -Uz compinit && compinit"
case "$prefix" in
  "$HOME/.local" | /usr/local | /usr) ;;
  *)
    echo "bash-completion before 2.12 and fish do not look under this prefix by themselves;"
    echo "  bash, in ~/.bashrc:                  source $bash_dir/loadctl"
    echo "  fish, in ~/.config/fish/config.fish: set -p fish_complete_path $fish_dir"
    ;;
esac
