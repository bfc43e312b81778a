// The benchmarks' statistics, in one place so that every table means the same by "median".

// The middle sample, or the mean of the two middle samples for an even count.
export function median(xs) {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Nearest rank: the smallest sample with at least q of the samples at or below it (for p95).
export function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
