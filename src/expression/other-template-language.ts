/**
 * §5.2 rule 3: a literal that looks like another templating language (`{{`, `}}`, an f-string,
 * `await`, or a call such as `fn(… $…)`) was probably meant as an expression. Linear scan, so a
 * huge literal cannot make the check quadratic the way a backtracking regex could.
 */
export function looksLikeOtherTemplateLanguage(text: string): boolean {
  if (text.includes('{{') || text.includes('}}')) return true;
  if (/(?<![\w])f['"]/.test(text) || /\bawait\b/.test(text)) return true;
  return hasCallWithDollarArgument(text);
}

function isWordChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f
  );
}

/** `name(` followed by a `$` before the next `)`. */
function hasCallWithDollarArgument(text: string): boolean {
  let wordHasLetter = false;
  let wordLength = 0;
  let inCall = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inCall) {
      if (code === 0x24) return true;
      if (code === 0x29) inCall = false;
    }
    if (code === 0x28 && wordLength > 0 && wordHasLetter) inCall = true;
    if (isWordChar(code)) {
      wordLength++;
      wordHasLetter ||= !(code >= 0x30 && code <= 0x39);
    } else {
      wordLength = 0;
      wordHasLetter = false;
    }
  }
  return false;
}
