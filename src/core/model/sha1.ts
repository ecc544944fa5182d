/**
 * SHA-1 in plain JavaScript, for git's object ids (`blob <size>\0<bytes>`) of a few small files in a
 * process that has no other use for `node:crypto` (loading it costs a CLI process more than hashing a
 * story file here). Not for anything that needs a secure hash; the answers are node:crypto's bytes (a
 * unit test compares them on random inputs).
 */
import { padded } from './sha256';

/** SHA-1 of `bytes`, as 40 lowercase hex digits. */
export function sha1Js(bytes: Uint8Array): string {
  const view = padded(bytes);
  const total = view.byteLength;
  const w = new Uint32Array(80);
  let h0 = 0x67452301, h1 = 0xefcdab89, h2 = 0x98badcfe, h3 = 0x10325476, h4 = 0xc3d2e1f0;
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4;
    for (let i = 0; i < 80; i++) {
      const f = i < 20 ? ((b & c) | (~b & d)) + 0x5a827999 : i < 40 ? (b ^ c ^ d) + 0x6ed9eba1 : i < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc : (b ^ c ^ d) + 0xca62c1d6;
      const t = (((a << 5) | (a >>> 27)) + f + e + w[i]) | 0;
      e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0; h4 = (h4 + e) | 0;
  }
  let hex = '';
  for (const x of [h0, h1, h2, h3, h4]) hex += (x >>> 0).toString(16).padStart(8, '0');
  return hex;
}
