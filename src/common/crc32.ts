// CRC-32 (IEEE 802.3, the polynomial zlib and Python's `zlib.crc32` use) of a byte string.
// Node 20's zlib has no crc32 (it came in 22.2), and the catch-up jitter must equal the Python
// reference's `zlib.crc32(name.encode("utf-8"))` so a mixed fleet staggers its backfills the same
// way (docs/durable-state.md "Missed-run catch-up"). Pure.

const TABLE = ((): Uint32Array => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The unsigned CRC-32 of `bytes`, as Python's `zlib.crc32` returns it. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
