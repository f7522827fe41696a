/** Small statistics helpers of the benchmarks. */

/** The median (the mean of the middle two for an even count); 0 for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return 0;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * A percentile by the nearest rank; 0 for no values.
 *
 * @param values - The samples (sorted here, in place).
 * @param q - The fraction, such as 0.99.
 * @returns The sample at that rank.
 */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) {
    return 0;
  }
  values.sort((a, b) => a - b);
  const rank = Math.min(values.length, Math.max(1, Math.ceil(q * values.length)));
  return values[rank - 1] as number;
}
