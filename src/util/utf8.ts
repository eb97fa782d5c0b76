/** True when `text` takes more than `limit` bytes in UTF-8 (at most 3 per UTF-16 unit: most texts are decided without counting). */
export function overUtf8Bytes(text: string, limit: number): boolean {
  return text.length * 3 > limit && Buffer.byteLength(text, 'utf8') > limit;
}
