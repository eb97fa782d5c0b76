/**
 * Splits a command line into argv the way Python's `shlex.split` does (POSIX mode): words by
 * whitespace, single quotes literal, double quotes with `\` escaping `\ " $ \``, a bare `\`
 * escaping the next character. No shell ever sees the text: there is no expansion, piping or
 * redirection, so `a | b` is three words. Throws on an unterminated quote or trailing `\`.
 */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated single quote');
      word += text.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      for (i++; ; i++) {
        if (i >= text.length) throw new Error('unterminated double quote');
        const c = text[i]!;
        if (c === '"') break;
        if (c === '\\' && i + 1 < text.length && '\\"$`\n'.includes(text[i + 1]!)) {
          i++;
          if (text[i] !== '\n') word += text[i];
        } else word += c;
      }
    } else if (ch === '\\') {
      if (i + 1 >= text.length) throw new Error('no character after the final backslash');
      i++;
      if (text[i] !== '\n') word += text[i];
    } else word += ch;
  }
  if (inWord) words.push(word);
  return words;
}
