#!/usr/bin/python3
"""Checks `qkv-lesson evidence` against numpy on random requests: an independent test of the C++ core.

For each case it draws B, T in 0..4 and d_model, d_head in 1..6 (empty batch and token axes included;
the chapter fixture's own shape combination is skipped so these are never the tests' requests), fills
X, W_Q, W_K, W_V and the three upstreams with standard normal values, runs

    build/native/qkv-lesson evidence --input -

with the request on standard input, and compares against numpy:

    Q = X @ W_Q (likewise K, V)
    L = sum(Q * U_Q) + sum(K * U_K) + sum(V * U_V)
    dX = U_Q @ W_Q.T + U_K @ W_K.T + U_V @ W_V.T
    dW_Q = X_(BT).T @ U_Q_(BT)            (X and U reshaped to [B*T, width])

Every value must satisfy |a - b| <= 1e-12 * max(1, |b|) (a from C++, b from numpy). The tool must also
report its gradcheck as passed over every coordinate up to 32 per tensor (the library's
kGradcheckSamplesPerTensor; evenly spread beyond it), the chapter's names and
3*d*h parameters. Prints the maximum relative difference per quantity and exits 1 on any mismatch.

Run with Debian's interpreter, which has numpy (not the pyenv python3 on PATH):

    /usr/bin/python3 tools/check_evidence_numpy.py --cases 200 --seed 7
"""

import json
import math
import subprocess
import sys

import numpy_check

try:
    import numpy as np
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("check_evidence_numpy.py needs numpy: run it with /usr/bin/python3 (Debian's python3-numpy)")

RELATIVE_TOLERANCE = 1e-12
SAMPLES_PER_TENSOR = 32  # cpp/lesson/projection_evidence.hpp: kGradcheckSamplesPerTensor
FIXTURE_SHAPES = (1, 2, 3, 2)  # B, T, d_model, d_head of fixtures/chapter26.json
PREFIX = "decoder.block.0.attention"
BRANCHES = ("query", "key", "value")


def tensor_json(array):
    # Python's float repr round-trips exactly, so the tool reads the very values numpy uses.
    return {"shape": list(array.shape), "values": [float(v) for v in array.ravel()]}


def from_json(tensor, what):
    shape = tuple(tensor["shape"])
    values = np.array(tensor["values"], dtype=np.float64)
    if values.size != math.prod(shape):
        raise ValueError(f"{what}: shape {list(shape)} but {values.size} values")
    return values.reshape(shape)


def relative_difference(actual, expected):
    """max |a - b| / max(1, |b|) over all entries (0 for empty arrays); shapes must agree."""
    if actual.shape != expected.shape:
        return math.inf
    if actual.size == 0:
        return 0.0
    return float(np.max(np.abs(actual - expected) / np.maximum(1.0, np.abs(expected))))


def draw_case(rng):
    while True:
        b, t = (int(v) for v in rng.integers(0, 5, size=2))
        d, h = (int(v) for v in rng.integers(1, 7, size=2))
        if (b, t, d, h) != FIXTURE_SHAPES:
            break
    x = rng.standard_normal((b, t, d))
    weights = {name: rng.standard_normal((d, h)) for name in BRANCHES}
    upstreams = {name: rng.standard_normal((b, t, h)) for name in BRANCHES}
    return x, weights, upstreams


def numpy_evidence(x, weights, upstreams):
    d = x.shape[2]
    expected = {}
    loss = 0.0
    input_gradient = np.zeros_like(x)
    for name in BRANCHES:
        w, u = weights[name], upstreams[name]
        h = w.shape[1]
        out = x @ w
        expected[name] = out
        loss += float(np.sum(out * u))
        input_gradient = input_gradient + u @ w.T
        expected[name + "_weight_gradient"] = x.reshape(-1, d).T @ u.reshape(-1, h)
    expected["input_gradient"] = input_gradient
    expected["loss"] = np.array(loss)
    return expected


def run_tool(cli, request):
    done = subprocess.run([str(cli), "evidence", "--input", "-"], input=json.dumps(request).encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"exit status {done.returncode}: "
                           f"{done.stdout.decode()!r} {done.stderr.decode()!r}")
    return json.loads(done.stdout)


def check_case(cli, rng, index, worst, counts):
    x, weights, upstreams = draw_case(rng)
    b, t, d = x.shape
    h = weights["query"].shape[1]
    label = f"case {index} B={b} T={t} d={d} h={h}"
    if b * t == 0:
        counts["empty"] += 1
    request = {"input": tensor_json(x)}
    request.update({name + "_weight": tensor_json(weights[name]) for name in BRANCHES})
    request["upstream"] = {name: tensor_json(upstreams[name]) for name in BRANCHES}

    problems = []
    try:
        out = run_tool(cli, request)
    except (RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
        return [f"{label}: {error}"]

    expected = numpy_evidence(x, weights, upstreams)
    for name, wanted in expected.items():
        try:
            actual = np.array(out["loss"]) if name == "loss" else from_json(out[name], name)
        except (KeyError, ValueError) as error:
            problems.append(f"{label}: {name}: {error!r}")
            continue
        difference = relative_difference(actual, wanted)
        worst[name] = max(worst.get(name, 0.0), difference)
        if not difference <= RELATIVE_TOLERANCE:
            problems.append(f"{label}: {name} differs from numpy by {difference:.3e} (relative)")

    names = [f"{PREFIX}.{name}.weight" for name in BRANCHES]
    if out.get("parameter_names") != names:
        problems.append(f"{label}: parameter_names {out.get('parameter_names')}")
    if out.get("parameter_count") != 3 * d * h:
        problems.append(f"{label}: parameter_count {out.get('parameter_count')}, expected {3 * d * h}")
    check = out.get("gradcheck", {})
    if check.get("passed") is not True:
        problems.append(f"{label}: gradcheck did not pass: {check}")
    coordinates = min(b * t * d, SAMPLES_PER_TENSOR) + 3 * min(d * h, SAMPLES_PER_TENSOR)
    if check.get("checks") != coordinates:
        problems.append(f"{label}: gradcheck made {check.get('checks')} checks, expected {coordinates}")
    max_error = float(check.get("max_error", math.inf))
    worst["gradcheck max_error"] = max(worst.get("gradcheck max_error", 0.0), max_error)
    return problems


def main():
    parser = numpy_check.argument_parser(__doc__, cases_help="number of random requests (default 200)", seed=0,
                                         seed_help="numpy Generator seed (default 0)",
                                         cli_help="path of the qkv-lesson tool (default build/native/qkv-lesson)")
    args = numpy_check.parse_args(parser, "{cli} not found: build it first (cmake --build build/native)",
                                  usage_error=False)

    rng = np.random.default_rng(args.seed)
    worst = {}
    problems = []
    counts = {"empty": 0}
    for index in range(args.cases):
        problems.extend(check_case(args.cli, rng, index, worst, counts))
    numpy_check.print_lines("MISMATCH", problems, limit=20)

    print(f"numpy {np.__version__}, {args.cases} random requests ({counts['empty']} with an empty axis), "
          f"seed {args.seed}, tolerance {RELATIVE_TOLERANCE:g} relative")
    for name in sorted(worst):
        kind = "error" if name.startswith("gradcheck") else "relative difference"
        print(f"  max {kind} {name}: {worst[name]:.3e}")
    overall = max((v for k, v in worst.items() if not k.startswith("gradcheck")), default=0.0)
    print(f"max relative difference: {overall:.3e}")
    if problems:
        print(f"FAILED: {len(problems)} mismatches")
        return 1
    print("OK: every value within tolerance, every gradcheck passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
