import { editDistance } from '../../expression/edit-distance.js';

/** `else_next`, `elseNext` and `ELSE-NEXT` are one name written three ways. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/**
 * The candidate `name` was most likely meant to be, or undefined. Same spelling modulo case
 * and `_`/`-` wins outright; otherwise the nearest within two edits (one for names of four
 * characters or fewer, where two edits reach almost anything). Ties keep candidate order.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = folded(name);
  const limit = wanted.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const other = folded(candidate);
    // Lengths further apart than the limit cannot be within it: skip the quadratic part.
    if (other !== wanted && Math.abs(other.length - wanted.length) > limit) continue;
    const distance = other === wanted ? 0 : editDistance(wanted, other);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
