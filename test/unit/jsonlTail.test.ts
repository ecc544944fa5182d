import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findFromEnd, tornTail } from '../../src/core/store/jsonlTail';

function withFile<T>(text: string, fn: (fd: number, size: number) => T): T {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-tail-')), 'log.jsonl');
  fs.writeFileSync(file, text);
  const fd = fs.openSync(file, 'r');
  try {
    return fn(fd, fs.fstatSync(fd).size);
  } finally {
    fs.closeSync(fd);
  }
}

describe('the end of a JSONL log', () => {
  test('a clean or empty file has no torn tail', () => {
    assert.equal(withFile('', tornTail), undefined);
    assert.equal(withFile('{"seq":1}\n{"seq":2}\n', tornTail), undefined);
  });

  test('a torn last line is found however long it is (longer than the read window)', () => {
    const torn = '{"seq":3,"text":"' + 'x'.repeat(200_000);
    const t = withFile(`{"seq":1}\n{"seq":2}\n${torn}`, tornTail)!;
    assert.equal(t.cut, '{"seq":1}\n{"seq":2}\n'.length);
    assert.equal(t.torn.toString(), torn);
    const whole = withFile('no newline at all', tornTail)!;
    assert.equal(whole.cut, 0);
  });

  test('findFromEnd offers whole lines last first, widening past a line longer than the window', () => {
    const big = JSON.stringify({ seq: 2, text: 'y'.repeat(300_000) });
    const text = `{"seq":1}\n${big}\n\n{"bad json\n`;
    const found = withFile(text, (fd, size) =>
      findFromEnd(fd, size, (line) => {
        try {
          const v = JSON.parse(line) as { seq: number };

          return v.seq;
        } catch {
          return undefined;
        }
      }),
    );
    assert.equal(found, 2, 'the long whole line is found, the damaged one passed over');
    assert.equal(withFile('{"seq":1}\n', (fd, size) => findFromEnd(fd, size, () => undefined)), undefined);
  });

  test('findFromEnd offers every whole line once per window, trimmed, multi-byte text intact across window edges', () => {
    // Lines of 1-, 2-, 3- and 4-byte characters, blank lines and CRLF, long enough that windows start mid-character.
    const lines = Array.from({ length: 400 }, (_, i) => (i % 7 === 3 ? '' : `{"n":${i},"t":"${['a', 'é', '€', '😀'][i % 4].repeat(5 + (i % 13))}"}${i % 5 === 0 ? '\r' : ''}`));
    const text = lines.join('\n') + '\n';
    const offered = withFile(text, (fd, size) => {
      const seen: string[] = [];
      findFromEnd(fd, size, (line) => void seen.push(line));
      return seen;
    });
    // Every window offers its whole lines last first; the last (from 0) offers all of them, first included.
    const all = lines.map((l) => l.trim()).filter(Boolean).reverse();
    assert.deepEqual(offered.slice(-all.length), all);
    for (const l of offered) assert.ok(all.includes(l), `offered a line that is not whole: ${l}`);
  });
});
