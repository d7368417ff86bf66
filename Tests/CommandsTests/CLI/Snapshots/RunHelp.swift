// Recorded with `LOADCTL_RECORD=1 swift test`; do not edit by hand.

extension Snapshots {
  static let runHelp = #"""
    OVERVIEW: Send requests at a fixed rate and report what happened.

    Requests that arrive while the service is busy are handled by the policy.

    USAGE: loadctl run [options] <url>

    ARGUMENTS:
      <url>                   The service to load.

    OPTIONS:
      -r, --rate N            Requests per second. (default: 10)
      -l, --latency DURATION  Simulated latency of each request. (default: 300ms)
      --policy POLICY         What to do with a request that arrives while another
                              is running. (values: drop, latest, queue, parallel;
                              default: drop)
      --count N               Stop after this many requests.
      --offset N              Shift every timestamp by this many milliseconds.
      --min NUMBER            The lowest value to accept [inclusive]; it's \
                              "checked" first.
      -H, --header VALUE      An extra request header. (can be repeated)
      -n, --dry-run           Print the plan without sending anything.
      --json                  Print machine-readable output as JSON Lines.
      --no-color              Do not use colors or other terminal escape codes.
      -q, --quiet             Print only errors and the final result.
      -c, --config FILE       Read default settings from this file.
      -h, --help              Show help information.

    EXAMPLES:
      loadctl run --rate 100 --latency 50ms http://localhost:8080
    """#
}
