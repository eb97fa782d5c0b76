// The one table bench/worker.mjs ends with (markdown): each row ours, the peer from the same
// run, the ratio, the target and whether it is met. A row whose figures could not be measured
// says so instead of passing or failing.

/** `x` with `digits` decimals and thousands separators, or '?' when it was not measured. */
export function num(x, digits = 0) {
  return Number.isFinite(x)
    ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '?';
}

/** ours / theirs, or null when either is missing. */
export function quotient(ours, theirs) {
  return Number.isFinite(ours) && Number.isFinite(theirs) && theirs > 0 ? ours / theirs : null;
}

/** Every figure present: the condition's value; else null (not measured). */
export function check(figures, condition) {
  return figures.every((f) => Number.isFinite(f)) ? Boolean(condition()) : null;
}

export class SummaryTable {
  #rows = [];
  #notes = [];

  /** `pass`: true / false, null when a figure is missing, undefined when the row has no target. */
  add({ row, ours, peer = '—', ratio = '—', target = '—', pass }) {
    this.#rows.push({ row, ours, peer, ratio, target, pass });
  }

  note(text) {
    this.#notes.push(text);
  }

  get failed() {
    return this.#rows.filter((r) => r.pass === false).length;
  }

  markdown() {
    const verdict = (pass) =>
      pass === undefined ? '—' : pass === null ? 'not measured' : pass ? 'pass' : 'FAIL';
    const cells = (values) =>
      `| ${values.map((v) => String(v).replace(/\|/g, '\\|')).join(' | ')} |`;
    const lines = [
      cells(['row', 'ours', 'peer (same run)', 'ratio', 'target', 'pass/fail']),
      '|---|---|---|---|---|---|',
      ...this.#rows.map((r) => cells([r.row, r.ours, r.peer, r.ratio, r.target, verdict(r.pass)])),
    ];
    if (this.#notes.length) lines.push('', ...this.#notes.map((n) => `- ${n}`));
    return lines.join('\n');
  }
}
