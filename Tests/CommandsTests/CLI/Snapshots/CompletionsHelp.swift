// Recorded with `LOADCTL_RECORD=1 swift test`; do not edit by hand.

extension Snapshots {
  static let completionsHelp = #"""
    OVERVIEW: Print a shell completion script.

    Write the script where your shell looks for completions, then start a new shell.

    USAGE: loadctl completions [options] <shell>

    ARGUMENTS:
      <shell>                 The shell to complete for. (values: bash, zsh, fish)

    OPTIONS:
      --json                  Print machine-readable output as JSON Lines.
      --no-color              Do not use colors or other terminal escape codes.
      -q, --quiet             Print only errors and the final result.
      -c, --config FILE       Read default settings from this file.
      -h, --help              Show help information.

    EXAMPLES:
      loadctl completions bash > ~/.local/share/bash-completion/completions/loadctl
      loadctl completions zsh > "${fpath[1]}/_loadctl"
      loadctl completions fish > ~/.config/fish/completions/loadctl.fish
    """#
}
