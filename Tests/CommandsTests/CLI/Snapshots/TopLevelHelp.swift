// Recorded with `LOADCTL_RECORD=1 swift test`; do not edit by hand.

extension Snapshots {
  static let topLevelHelp = #"""
    OVERVIEW: Drive load against a service and watch how it copes, one subcommand
    per experiment.

    USAGE: loadctl <subcommand> [options]

    OPTIONS:
      --json                  Print machine-readable output as JSON Lines.
      --no-color              Do not use colors or other terminal escape codes.
      -q, --quiet             Print only errors and the final result.
      -c, --config FILE       Read default settings from this file.
      --version               Show the version (with --json, as a JSON object).
      -h, --help              Show help information.
      --                      End the options: what follows is an argument, even
                              when it starts with '-'.

    SUBCOMMANDS:
      run                     Send requests at a fixed rate and report what
                              happened.
      tick                    Replay recorded ticks from a file.
      help                    Show help for a subcommand.
      completions             Print a shell completion script.

      See 'loadctl help <subcommand>' for detailed help.

    EXIT STATUS:
      0                       Success.
      1                       The experiment ran and failed its checks.
      64                      The command line was wrong.
    """#
}
