/**
 * Python's `round(x, n)`: round half to even on the exact binary value of `x` (so 2.675 rounds
 * to 2.67, because the double nearest 2.675 lies below it), then the nearest double to the
 * decimal result. Exact rational arithmetic with BigInt; no string formatting tricks.
 */

/** `round(x)` with no digits: the nearest integer, ties to even. `x` must be finite. */
export function roundToInteger(x: number): number {
  const floor = Math.floor(x);
  const fraction = x - floor; // exact: the fraction of a double is itself a double
  const up = fraction > 0.5 || (fraction === 0.5 && floor % 2 !== 0);
  return (up ? floor + 1 : floor) + 0; // `+ 0` turns -0 into 0, as Python ints have no sign of zero
}

/** `round(x, digits)`; may return ±Infinity when the rounded value is too large (caller decides). */
export function roundToDigits(x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const sign = x < 0 ? -1 : 1;
  const { mantissa, exponent } = decompose(Math.abs(x));
  let rounded: number;
  if (digits >= 0) {
    // |x| · 10^digits is already an integer when x is one, or when 10^digits cancels 2^exponent.
    if (exponent >= 0 || digits >= -exponent) return x;
    const quotient = divideHalfEven(mantissa * 10n ** BigInt(digits), 1n << BigInt(-exponent));
    rounded = Number(`${quotient}e-${digits}`);
  } else {
    const scale = -digits;
    // 10^310 exceeds twice the largest double, so everything rounds to zero from there on.
    if (scale > 310) return sign * 0;
    const numerator = exponent >= 0 ? mantissa << BigInt(exponent) : mantissa;
    const denominator =
      exponent >= 0 ? 10n ** BigInt(scale) : (10n ** BigInt(scale)) << BigInt(-exponent);
    rounded = Number(`${divideHalfEven(numerator, denominator)}e${scale}`);
  }
  return sign * rounded;
}

/** `numerator / denominator` rounded half to even; both non-negative, denominator positive. */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  if (twiceRemainder > denominator) return quotient + 1n;
  if (twiceRemainder === denominator) return quotient + (quotient & 1n);
  return quotient;
}

/** `value = mantissa · 2^exponent` exactly, for a finite positive double. */
function decompose(value: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 }; // subnormal
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}
