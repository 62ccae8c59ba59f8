import { createRandom } from './synthetic-face-vectors.ts';
import type { Embedded } from './scale-metrics.ts';

// Synthetic distractor faces drawn from a model's real descriptor distribution: a Gaussian with the mean
// and full covariance of real descriptors (celeba-dev), sampled through a Cholesky factor and
// L2-normalised like real descriptors. Each sample stands for a stranger to every query.

function cholesky(matrix: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = matrix[i * n + j]!;
      for (let k = 0; k < j; k++) sum -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = i === j ? Math.sqrt(Math.max(sum, 1e-12)) : sum / l[j * n + j]!;
    }
  }
  return l;
}

export function fittedDistractors(
  items: Embedded[],
  dimensions: number,
  count: number,
  seed = 7,
): Float32Array {
  const real = items.flatMap((i) => (i.descriptor ? [i.descriptor] : []));
  const n = dimensions;
  const mean = new Float64Array(n);
  for (const v of real) for (let k = 0; k < n; k++) mean[k] = mean[k]! + v[k]! / real.length;
  const covariance = new Float64Array(n * n);
  const centred = new Float64Array(n);
  for (const v of real) {
    for (let k = 0; k < n; k++) centred[k] = v[k]! - mean[k]!;
    for (let i = 0; i < n; i++) {
      const ci = centred[i]!;
      for (let j = 0; j <= i; j++) covariance[i * n + j] = covariance[i * n + j]! + ci * centred[j]!;
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const c = covariance[i * n + j]! / (real.length - 1);
      covariance[i * n + j] = c;
      covariance[j * n + i] = c;
    }
    covariance[i * n + i] = covariance[i * n + i]! + 1e-6; // keeps the factorisation stable
  }
  const l = cholesky(covariance, n);
  const random = createRandom(seed);
  const gaussian = () =>
    Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  const out = new Float32Array(count * n);
  const z = new Float64Array(n);
  for (let s = 0; s < count; s++) {
    for (let k = 0; k < n; k++) z[k] = gaussian();
    let norm = 0;
    const o = s * n;
    for (let i = 0; i < n; i++) {
      let x = mean[i]!;
      for (let k = 0; k <= i; k++) x += l[i * n + k]! * z[k]!;
      out[o + i] = x;
      norm += x * x;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < n; i++) out[o + i] = out[o + i]! * scale;
  }
  return out;
}
