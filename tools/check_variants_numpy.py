#!/usr/bin/python3
"""Checks `qkv-lesson variant` against numpy on random seeds: the drawn numbers' answers recomputed independently.

For each case it draws a variant seed in 0..2^53-1 with numpy's Generator, runs

    build/native/qkv-lesson variant --seed N

and, from the state it prints (the cells as text, as a `state=` link holds them), recomputes with numpy

    Q = X @ W_Q (likewise K, V), S[0] = q0 @ K[0].T

and compares the registry the tool printed for that state: the first token's question names x0 and the
token's word, and its answers are q0, k0, v0; the best-key answer is the argmax of S[0] (no tie, and k0 or
k1); the output shapes, the empty-axis shapes and the parameter count follow d_model and d_head; the
preview's answer follows numpy's softmax of S[0] with and without the division by sqrt(d_head). It also
checks the draw's rules (X whole numbers in [-3, 3], the weights halves in [-2, 2], one batch item, 2 or 3
tokens with distinct words) and that the first seed prints the same variant twice. Exits 1 on any mismatch.

Run with Debian's interpreter, which has numpy (not the pyenv python3 on PATH):

    /usr/bin/python3 tools/check_variants_numpy.py --cases 100 --seed 7
"""

import json
import subprocess
import sys

import numpy_check

try:
    import numpy as np
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("check_variants_numpy.py needs numpy: run it with /usr/bin/python3 (Debian's python3-numpy)")

MAX_SEED = 2**53 - 1  # cpp/learner/variant.hpp: kMaxVariantSeed
MINUS = "\u2212"


def run_tool(cli, seed):
    done = subprocess.run([str(cli), "variant", "--seed", str(seed)], capture_output=True, text=True, timeout=60,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"exit status {done.returncode}: {done.stdout.strip()} {done.stderr.strip()}")
    return done.stdout


def tensor(state_tensor):
    values = np.array([float(cell) for cell in state_tensor["cells"]], dtype=np.float64)
    return values.reshape(state_tensor["shape"])


def number_text(value):
    """The page's notation for an exact number: shortest decimal, U+2212 minus ("−1.5", "6")."""
    value = float(value)
    text = str(int(value)) if value.is_integer() else repr(value)
    return text.replace("-", MINUS)


def vector_text(values):
    return "[" + ", ".join(number_text(v) for v in values) + "]"


def softmax(row):
    shifted = np.exp(row - row.max())
    return shifted / shifted.sum()


def check_rules(label, state, names, problems):
    x, weights = tensor(state["input"]), [tensor(state[k]) for k in ("query_weight", "key_weight", "value_weight")]
    b, t, d = x.shape
    if b != 1 or t not in (2, 3) or d not in (2, 3) or weights[0].shape[1] != 2:
        problems.append(f"{label}: sizes B={b}, T={t}, d_model={d}, d_head={weights[0].shape[1]}")
    if not (np.all(x == np.round(x)) and np.all(np.abs(x) <= 3)):
        problems.append(f"{label}: X is not whole numbers in [-3, 3]: {x.ravel().tolist()}")
    for w in weights:
        if not (np.all(2 * w == np.round(2 * w)) and np.all(np.abs(w) <= 2)):
            problems.append(f"{label}: a weight is not halves in [-2, 2]: {w.ravel().tolist()}")
    if len(names) != t or len(set(names)) != t:
        problems.append(f"{label}: token words {names} for {t} tokens")


def check_case(cli, seed, index):
    label = f"case {index} (seed {seed})"
    try:
        out = json.loads(run_tool(cli, seed))
    except (RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
        return [f"{label}: {error}"]
    problems = []
    state, names = out["state"], out["token_names"]
    if out.get("seed") != seed:
        problems.append(f"{label}: printed seed {out.get('seed')}")
    check_rules(label, state, names, problems)
    x = tensor(state["input"])
    wq, wk, wv = (tensor(state[k]) for k in ("query_weight", "key_weight", "value_weight"))
    q, k, v = x @ wq, x @ wk, x @ wv
    _, t, d = x.shape
    h = wq.shape[1]
    row = q[0, 0] @ k[0].T
    exercises = {e["id"]: e for e in out["exercises"]}

    def expect(what, actual, wanted):
        if actual != wanted:
            problems.append(f"{label}: {what}: {actual!r}, numpy says {wanted!r}")

    for exercise in out["exercises"]:
        if "not_graded" in exercise:
            problems.append(f"{label}: {exercise['id']} not graded: {exercise['not_graded']}")
    first = exercises["ch26-first-token"]
    expect("first-token answer", first["answer"], [vector_text(q[0, 0]), vector_text(k[0, 0]), vector_text(v[0, 0])])
    for named in (vector_text(x[0, 0]), f"\u201c{names[0]}\u201d"):
        if named not in first["question"]:
            problems.append(f"{label}: the first-token question does not name {named}: {first['question']}")

    if len(set(row.tolist())) != t:
        problems.append(f"{label}: a tie in token 0's scores {row.tolist()}")
    best = int(np.argmax(row))
    expect("best-key answer", exercises["ch26-best-key"]["answer"], [f"token-{best}"] if best <= 1 else ["(none)"])
    for j in range(t):
        if f"= {number_text(row[j])}" not in exercises["ch26-best-key"]["explanation"]:
            problems.append(f"{label}: the best-key explanation does not state q0.k{j} = {number_text(row[j])}")

    expect("output-shapes answer", exercises["ch26-output-shapes"]["answer"], [f"[4, 7, {h}]"])
    expect("output-shapes question", exercises["ch26-output-shapes"]["question"],
           f"X has shape [4, 7, {d}] and the head width is {h}. What shape does each of Q, K and V have?")
    expect("parameter-count answer", exercises["ch26-parameter-count"]["answer"], [str(3 * d * h)])
    expect("empty-axes answer", exercises["ch26-empty-axes"]["answer"], [f"[0, {t}, {h}]", f"[2, 0, {h}]"])

    scaled, unscaled = softmax(row / np.sqrt(h)).max(), softmax(row).max()
    preview = "flattens" if scaled < unscaled else "sharpens" if scaled > unscaled else "nothing"
    expect("preview-weights answer", exercises["ch26-preview-weights"]["answer"], [preview])
    return problems


def main():
    parser = numpy_check.argument_parser(__doc__, cases_help="number of random variant seeds (default 200)", seed=0,
                                         seed_help="numpy Generator seed that draws them (default 0)",
                                         cli_help="path of the qkv-lesson tool (default build/native/qkv-lesson)")
    args = numpy_check.parse_args(parser, "{cli} not found: build it first (cmake --build build/native)",
                                  usage_error=False)
    rng = np.random.default_rng(args.seed)
    seeds = [int(s) for s in rng.integers(0, MAX_SEED, size=args.cases, endpoint=True)]
    problems = []
    try:
        if run_tool(args.cli, seeds[0]) != run_tool(args.cli, seeds[0]):
            problems.append(f"seed {seeds[0]} printed two different variants")
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        problems.append(f"seed {seeds[0]}: {error}")
    for index, seed in enumerate(seeds):
        problems.extend(check_case(args.cli, seed, index))
    numpy_check.print_lines("MISMATCH", problems, limit=20)
    print(f"numpy {np.__version__}, {args.cases} variant seeds drawn with seed {args.seed}")
    if problems:
        print(f"FAILED: {len(problems)} mismatches")
        return 1
    print("OK: every answer, question and rule agrees with numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
