/** Redis Cluster's slot count: a key lives in slot CRC16(hash tag) mod 16384. */
export const SLOT_COUNT = 16384;

const TABLE = buildTable();

/** CRC16/XMODEM of the UTF-8 bytes of `text`: the checksum Redis Cluster hashes keys with. */
export function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc = ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  }
  return crc;
}

/**
 * The cluster slot of a key: the hash tag (the text between the first `{` and the next `}`,
 * when not empty) or else the whole key, as Redis computes it.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % SLOT_COUNT;
  }
  return crc16(key) % SLOT_COUNT;
}

function buildTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
}
