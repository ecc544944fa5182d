import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodingRefusal, ENCODING_SNIFF_BYTES } from '../../src/core/store/safeRead';

// A Buffer within the sniff window is searched as it is, a longer one only up to the window:
// the same verdict either way, and for a plain Uint8Array.
test('encodingRefusal: a NUL byte decides within the first 8 KiB only, whatever the buffer', () => {
  const at = (size: number, nul?: number) => {
    const b = Buffer.alloc(size, 0x61);
    if (nul !== undefined) b[nul] = 0;
    return b;
  };
  const cases: [Buffer, 'binary' | undefined][] = [
    [at(0), undefined],
    [at(1, 0), 'binary'],
    [at(100), undefined],
    [at(100, 99), 'binary'],
    [at(ENCODING_SNIFF_BYTES, ENCODING_SNIFF_BYTES - 1), 'binary'],
    [at(ENCODING_SNIFF_BYTES), undefined],
    [at(ENCODING_SNIFF_BYTES + 1, ENCODING_SNIFF_BYTES), undefined],
    [at(ENCODING_SNIFF_BYTES + 1, ENCODING_SNIFF_BYTES - 1), 'binary'],
    [at(3 * ENCODING_SNIFF_BYTES, 2 * ENCODING_SNIFF_BYTES), undefined],
  ];
  for (const [buf, want] of cases) {
    const label = `${buf.length} bytes, NUL at ${buf.indexOf(0)}`;
    assert.equal(encodingRefusal(buf)?.reason, want, label);
    // A view into a larger buffer (as the read-ahead thread's slabs are) and a plain Uint8Array.
    const slab = Buffer.alloc(buf.length + 16, 0);
    buf.copy(slab, 8);
    assert.equal(encodingRefusal(slab.subarray(8, 8 + buf.length))?.reason, want, `${label}, a view`);
    assert.equal(encodingRefusal(new Uint8Array(buf))?.reason, want, `${label}, a Uint8Array`);
  }
  assert.equal(encodingRefusal(Buffer.from([0xff, 0xfe, 0x2d, 0]))?.reason, 'utf16');
});
