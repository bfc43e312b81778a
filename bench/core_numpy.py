"""bench:core's reference: the Q/K/V layer's forward and backward in numpy (float64, matmuls on the BLAS
numpy is linked to; run with OPENBLAS_NUM_THREADS=1 for one thread), as `qkv-lesson bench` does it:
  Q = X·W_Q, K = X·W_K, V = X·W_V,  L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V,
  dW = Xᵀ·U (summed over the batch: X and U seen as [B·T, D] and [B·T, H]),  dX = Σ U·Wᵀ.
Usage: core_numpy.py B T D H REPEAT  ->  one line of JSON: median_seconds, gflops (18·B·T·D·H / median),
peak_bytes (tracemalloc's peak over one forward + backward: numpy reports its array buffers to it), blas (the
BLAS library mapped into this process), numpy (its version).
"""
import json
import statistics
import sys
import time
import tracemalloc

import numpy as np


def forward_backward(x, weights, upstreams):
    b, t, d = x.shape
    rows = x.reshape(b * t, d)
    outputs = [rows @ w for w in weights]
    loss = sum(float(np.sum(o * u.reshape(b * t, -1))) for o, u in zip(outputs, upstreams))
    grads_w = [rows.T @ u.reshape(b * t, -1) for u in upstreams]
    grad_x = upstreams[0].reshape(b * t, -1) @ weights[0].T
    for w, u in zip(weights[1:], upstreams[1:]):
        grad_x += u.reshape(b * t, -1) @ w.T
    return loss, grads_w, grad_x.reshape(b, t, d)


def blas_library():
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in path.rsplit("/", 1)[-1]:
                paths.add(path)
    return sorted(paths)[0] if paths else "unknown"


def main():
    b, t, d, h, repeat = (int(a) for a in sys.argv[1:6])
    rng = np.random.default_rng(26)
    limit = np.sqrt(6.0 / (d + h))
    weights = [rng.uniform(-limit, limit, (d, h)) for _ in range(3)]
    x = rng.uniform(-1, 1, (b, t, d))
    upstreams = [rng.uniform(-1, 1, (b, t, h)) for _ in range(3)]
    forward_backward(x, weights, upstreams)  # warm-up: BLAS buffers, page faults
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        forward_backward(x, weights, upstreams)
        seconds.append(time.perf_counter() - start)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    forward_backward(x, weights, upstreams)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    # What the layer's tensors hold besides the temporaries: X, 3 W and 3 U exist before the call.
    resident = 8 * (b * t * d + 3 * d * h + 3 * b * t * h)
    median = statistics.median(seconds)
    print(json.dumps({"median_seconds": median, "gflops": 18 * b * t * d * h / median / 1e9,
                      "peak_bytes": peak + resident, "blas": blas_library(), "numpy": np.__version__}))


if __name__ == "__main__":
    main()
