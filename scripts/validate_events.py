#!/usr/bin/env python3
"""Validate JSON Lines (loadctl --json output) against a JSON Schema (Draft 2020-12).

Usage: validate_events.py SCHEMA_FILE [FILE|-]

Reads FILE, or standard input when FILE is '-' or missing. Every line must be a JSON value
that the schema accepts. Prints 'line N: <error>' for each invalid line and exits 1; otherwise
prints 'ok: N lines' and exits 0. Input with no lines at all is an error (exit 1): an empty run
validating as 'ok' would hide a loadctl that printed nothing. Exits 2 when the schema cannot be
read or is not a valid Draft 2020-12 schema, or when the jsonschema package is missing.

Example:
  loadctl ticker --json --count 3 | scripts/validate_events.py docs/schema/ticker.schema.json
"""

import argparse
import json
import sys


def load_validator(schema_path):
    try:
        from jsonschema import Draft202012Validator, FormatChecker
        from jsonschema.exceptions import SchemaError
    except ImportError:
        print("error: the jsonschema package is missing (pip install jsonschema)",
              file=sys.stderr)
        sys.exit(2)
    try:
        with open(schema_path, encoding="utf-8") as handle:
            schema = json.load(handle)
    except (OSError, ValueError) as error:
        print(f"error: cannot read schema {schema_path}: {error}", file=sys.stderr)
        sys.exit(2)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        print(f"error: {schema_path} is not a valid Draft 2020-12 schema: {error.message}",
              file=sys.stderr)
        sys.exit(2)
    # FORMAT_CHECKER is newer than Debian's jsonschema; FormatChecker() works everywhere.
    checker = getattr(Draft202012Validator, "FORMAT_CHECKER", None) or FormatChecker()
    return Draft202012Validator(schema, format_checker=checker)


def describe(error):
    """One line: where in the instance the error is, then what is wrong."""
    location = "/".join(str(part) for part in error.absolute_path)
    return f"{'/' + location if location else '(root)'}: {error.message}"


def check_line(validator, text):
    """Returns None when the line is valid, else a one-line description of what is wrong."""
    if not text.strip():
        return "empty line"
    try:
        instance = json.loads(text)
    except ValueError as error:
        return f"invalid JSON: {error}"
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return describe(errors[0]) + more


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("schema", help="the JSON Schema file")
    parser.add_argument("input", nargs="?", default="-", help="JSON Lines file, or - for stdin")
    args = parser.parse_args(argv)
    validator = load_validator(args.schema)

    if args.input == "-":
        lines = sys.stdin.read().splitlines()
    else:
        try:
            with open(args.input, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError as error:
            print(f"error: cannot read {args.input}: {error}", file=sys.stderr)
            return 2

    if not lines:
        print("error: no lines to validate")
        return 1
    invalid = 0
    for number, text in enumerate(lines, start=1):
        problem = check_line(validator, text)
        if problem is not None:
            invalid += 1
            print(f"line {number}: {problem}")
    if invalid:
        return 1
    print(f"ok: {len(lines)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
