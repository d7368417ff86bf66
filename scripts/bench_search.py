#!/usr/bin/env python3
"""Reads `loadctl search --json` lines on stdin and prints the search figures as one JSON line.

requests_started: how many `request_started` events the run printed.
cancel_ms: for each `request_cancelled`, the time since the `query_changed` transition just
before it (the new query that cancelled the request), from the events' `elapsed_ms`; the median,
the maximum and how many there were.

Usage: loadctl search --json ... | bench_search.py
"""
import json
import statistics
import sys

started = 0
last_query_at = None
cancel_times = []
for line in sys.stdin:
    event = json.loads(line)
    kind = event.get("event")
    if kind == "request_started":
        started += 1
    elif kind == "transition" and event.get("action") == "query_changed":
        last_query_at = event["elapsed_ms"]
    elif kind == "request_cancelled" and last_query_at is not None:
        cancel_times.append(event["elapsed_ms"] - last_query_at)

result = {"requests_started": started, "cancelled": len(cancel_times)}
if cancel_times:
    result["cancel_median_ms"] = round(statistics.median(cancel_times), 3)
    result["cancel_max_ms"] = round(max(cancel_times), 3)
print(json.dumps(result))
