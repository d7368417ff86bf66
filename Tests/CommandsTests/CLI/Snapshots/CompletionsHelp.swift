// Recorded with `LOADCTL_RECORD=1 swift test`; do not edit by hand.

extension Snapshots {
  static let completionsHelp = #"""
    OVERVIEW: Print a shell completion script.

    Write the script where your shell looks for completions, then start a new shell.
    zsh reads it from a directory in $fpath when compinit runs, so add the directory
    to fpath before compinit in ~/.zshrc.

    USAGE: loadctl completions [options] <shell>

    ARGUMENTS:
      <shell>                 The shell to complete for. (values: bash, zsh, fish)

    OPTIONS:
      -h, --help              Show help information.

    EXAMPLES:
      loadctl completions bash > ~/.local/share/bash-completion/completions/loadctl
      loadctl completions zsh > "${fpath[1]}/_loadctl"
      loadctl completions fish > ~/.config/fish/completions/loadctl.fish
    """#
}
