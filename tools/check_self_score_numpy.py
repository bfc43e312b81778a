#!/usr/bin/python3
"""Checks `qkv-lesson randn` and `qkv-lesson self-score` against numpy on random settings.

The C++ tests compare against the frozen fixtures in fixtures/numpy/. This script asks numpy afresh on
settings the fixtures never use: --cases settings (seed in [0, 2^32 - 1], 1 to 12 tokens, width 1 to
16), drawn from Python's own generator seeded with --seed. Run it with Debian's interpreter, whose numpy
the fixtures came from, after building the native tool:

    /usr/bin/python3 tools/check_self_score_numpy.py --cases 200 --seed 1

For each setting (seed s, n tokens, width d):
  * `randn --seed s --rows n+2d --cols d` must print, bit for bit, np.random.seed(s); randn(n+2d, d),
    which is X, Wq and Wk stacked (the self-score inputs are one stream: randn(n, d), randn(d, d),
    randn(d, d)).
  * `self-score --seed s --tokens n --dim d` must give numpy's norms and score matrices within 1e-12 of
    each matrix's largest |entry| (numpy's BLAS adds in another order), and exactly numpy's argmax and
    diagonal rows.

glibc picks one of two log() builds at run time, with or without fused multiply-add; they differ in
the last bit for about one input in 10^4, and so does numpy's randn (see fixtures/numpy/generate.py).
This script also asks numpy with glibc's FMA build switched off. A randn mismatch that is exactly
numpy's other-build answer is counted apart as "explained by FMA log()"; any other mismatch fails.
Exits 0 only when nothing failed.
"""

import json
import math
import os
import random
import struct
import subprocess
import sys

import numpy as np

import numpy_check

NO_FMA_ENV = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-FMA,-FMA4"}
MAX_SEED = 2**32 - 1
MAX_TOKENS = 12
MAX_DIM = 16
# Same tolerance as tests/cpp/self_score_test.cpp: relative to the largest |entry| of each matrix.
RELATIVE_TOLERANCE = 1e-12
# The settings the fixtures (and so the C++ and node tests) already cover; never drawn here.
FIXTURE_SETTINGS = {(1, 5, 8), (0, 4, 3), (7, 6, 16)}


def hex_of(value):
    return struct.pack(">d", float(value)).hex()


def pick_settings(cases, seed):
    rng = random.Random(seed)
    settings = []
    while len(settings) < cases:
        setting = (rng.randint(0, MAX_SEED), rng.randint(1, MAX_TOKENS), rng.randint(1, MAX_DIM))
        if setting not in FIXTURE_SETTINGS:
            settings.append(setting)
    return settings


def numpy_answers(settings):
    """numpy's randn bits and self-score results for each (seed, n, d), with this process's libm."""
    answers = []
    for seed, n, d in settings:
        np.random.seed(seed)
        stacked = np.random.randn(n + 2 * d, d)
        np.random.seed(seed)
        x = np.random.randn(n, d)
        wq = np.random.randn(d, d)
        wk = np.random.randn(d, d)
        q, k = x @ wq, x @ wk
        answers.append({
            "randn": [hex_of(v) for v in np.ravel(stacked)],
            "norms": np.linalg.norm(x, axis=1).tolist(),
            "projected_norms": np.linalg.norm(q, axis=1).tolist(),
            "none": (x @ x.T).tolist(),
            "separate": (q @ k.T).tolist(),
            "tied": (q @ q.T).tolist(),
        })
    return answers


def log_build():
    """Which glibc log() build this process uses, by the fixtures' probe input."""
    probe = json.loads((numpy_check.REPO / "fixtures" / "numpy" / "randn.json").read_text())["log_probe"]
    x = struct.unpack(">d", bytes.fromhex(probe["x"]))[0]
    got = hex_of(math.log(x))
    return {probe["log_fma"]: "FMA", probe["log_without_fma"]: "no FMA"}.get(got, "unknown")


def numpy_answers_other_build(settings):
    """numpy's answers with glibc's FMA log() switched off, from a child process."""
    child = subprocess.run([sys.executable, __file__, "--numpy-child"], input=json.dumps(settings),
                           env={**os.environ, **NO_FMA_ENV}, check=True, capture_output=True, text=True)
    return json.loads(child.stdout)


def run_cli(cli, *arguments, env=None):
    done = subprocess.run([str(cli), *map(str, arguments)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"qkv-lesson {' '.join(map(str, arguments))} exited {done.returncode}: "
                           f"{done.stdout.strip()} {done.stderr.strip()}")
    return done.stdout


def printed_randn(text, rows, cols):
    """The %.17g numbers the tool printed, as hex bit patterns, after checking the layout."""
    lines = text.split("\n")
    if lines[-1] != "" or len(lines) != rows + 1:
        raise ValueError(f"expected {rows} newline-terminated lines")
    out = []
    for line in lines[:-1]:
        items = line.split(" ")
        if len(items) != cols:
            raise ValueError(f"expected {cols} numbers separated by single spaces, got {line!r}")
        for item in items:
            value = float(item)
            if item != "%.17g" % value:
                raise ValueError(f"{item!r} is not %.17g")
            out.append(hex_of(value))
    return out


def relative_difference(got, want):
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    if got.shape != want.shape:
        return math.inf
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    worst = float(np.max(np.abs(got - want))) if want.size else 0.0
    return 0.0 if worst == 0.0 else (worst / scale if scale > 0.0 else math.inf)


def argmax_rows(scores):
    return [int(np.argmax(row)) for row in scores]


def check(cli, settings, answers, other_answers, env=None):
    """Returns (failures, explained by FMA log, max relative difference, draws compared)."""
    failures = []
    explained = []
    max_relative = 0.0
    draws = 0
    for (seed, n, d), want, other in zip(settings, answers, other_answers):
        where = f"seed {seed}, tokens {n}, dim {d}"
        try:
            got = printed_randn(run_cli(cli, "randn", "--seed", seed, "--rows", n + 2 * d, "--cols", d, env=env),
                                n + 2 * d, d)
        except (RuntimeError, ValueError) as error:
            failures.append(f"{where}: randn: {error}")
            continue
        draws += len(got)
        for i, (g, w, o) in enumerate(zip(got, want["randn"], other["randn"])):
            if g == w:
                continue
            if g == o and o != w:
                explained.append(f"{where}: draw {i}: tool {g}, numpy {w}, numpy with the other log() {o}")
            else:
                failures.append(f"{where}: randn draw {i}: tool {g}, numpy {w}")

        try:
            result = json.loads(run_cli(cli, "self-score", "--seed", seed, "--tokens", n, "--dim", d, env=env))
        except (RuntimeError, ValueError) as error:
            failures.append(f"{where}: self-score: {error}")
            continue
        if (result.get("seed"), result.get("tokens"), result.get("dim")) != (seed, n, d):
            failures.append(f"{where}: self-score echoed {result.get('seed')}, {result.get('tokens')}, "
                            f"{result.get('dim')}")
        # Every list of numbers is printed as {values, text, rounded} (the API's SelfScoreView through its field
        # list); the scores row-major, n x n.
        for name in ("norms", "projected_norms"):
            difference = relative_difference(result[name]["values"], want[name])
            max_relative = max(max_relative, difference)
            if not difference <= RELATIVE_TOLERANCE:
                failures.append(f"{where}: {name} differ by {difference:.3g} relative")
        for name in ("none", "separate", "tied"):
            summary = result[name]
            difference = relative_difference(np.reshape(summary["scores"]["values"], (n, n)), want[name])
            max_relative = max(max_relative, difference)
            if not difference <= RELATIVE_TOLERANCE:
                failures.append(f"{where}: {name} scores differ by {difference:.3g} relative")
            argmax = argmax_rows(want[name])
            diagonal = [i for i, j in enumerate(argmax) if i == j]
            if summary["argmax"] != argmax:
                failures.append(f"{where}: {name} argmax {summary['argmax']}, numpy {argmax}")
            if summary["diagonal_rows"] != diagonal:
                failures.append(f"{where}: {name} diagonal rows {summary['diagonal_rows']}, numpy {diagonal}")
    return failures, explained, max_relative, draws


def main():
    if sys.argv[1:] == ["--numpy-child"]:
        json.dump(numpy_answers([tuple(s) for s in json.load(sys.stdin)]), sys.stdout)
        return 0
    parser = numpy_check.argument_parser(__doc__, cases_help="how many random settings (default 200)", seed=1,
                                         seed_help="seeds this script's choice of settings",
                                         cli_help="the native qkv-lesson tool")
    parser.add_argument("--tool-without-fma", action="store_true",
                        help="run the tool with glibc's FMA log() switched off (exercises the FMA accounting)")
    args = numpy_check.parse_args(parser, "{cli} not found: build the native tool first", usage_error=True)

    settings = pick_settings(args.cases, args.seed)
    answers = numpy_answers(settings)
    other_answers = numpy_answers_other_build(settings)
    env = {**os.environ, **NO_FMA_ENV} if args.tool_without_fma else None
    failures, explained, max_relative, draws = check(args.cli, settings, answers, other_answers, env)
    numpy_disagrees = sum(a != b for want, other in zip(answers, other_answers)
                          for a, b in zip(want["randn"], other["randn"]))

    numpy_check.print_lines("MISMATCH", failures)
    numpy_check.print_lines("FMA-LOG", explained)
    tool_build = "switched off for the tool" if args.tool_without_fma else "same for the tool"
    print(f"numpy {np.__version__}, glibc log() build in use: {log_build()} ({tool_build}); "
          f"settings from --seed {args.seed}; numpy's two log() builds disagree on {numpy_disagrees} draws here")
    print(f"cases {len(settings)}, randn draws {draws}, max relative difference {max_relative:.3g} "
          f"(tolerance {RELATIVE_TOLERANCE:g}), mismatches {len(failures)}, "
          f"randn last-bit differences explained by glibc's FMA vs non-FMA log() {len(explained)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
