"""What the numpy cross-checks (tools/check_*_numpy.py) share: where the tool is, their command line and
listing what they found.

Not a check itself: scripts/test.sh runs every tools/check_*_numpy.py, which this name does not match.
"""

import argparse
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_CLI = REPO / "build" / "native" / "qkv-lesson"


def argument_parser(doc, *, cases_help, seed, seed_help, cli_help):
    """--cases (default 200), --seed and --cli (default build/native/qkv-lesson); described by doc's first line."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--cases", type=int, default=200, help=cases_help)
    parser.add_argument("--seed", type=int, default=seed, help=seed_help)
    parser.add_argument("--cli", type=pathlib.Path, default=DEFAULT_CLI, help=cli_help)
    return parser


def parse_args(parser, missing_cli, *, usage_error):
    """The parsed command line, with at least one case and a --cli that exists. missing_cli ({cli} for the path)
    says otherwise: as a usage error (usage line, exit status 2) where usage_error, else alone (exit status 1)."""
    args = parser.parse_args()
    if args.cases < 1:
        parser.error("--cases must be at least 1")
    if not args.cli.is_file():
        message = missing_cli.format(cli=args.cli)
        if usage_error:
            parser.error(message)
        sys.exit(message)
    return args


def print_lines(label, lines, limit=None):
    """Each line after label, the first limit of them where a limit is given, then how many were left out."""
    for line in lines[:limit]:
        print(label, line)
    if limit is not None and len(lines) > limit:
        print(f"... and {len(lines) - limit} more")
