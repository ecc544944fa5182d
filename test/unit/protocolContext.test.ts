import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resume } from '../../src/core/protocol/resume';

test('a long-lived process sees a changed workflow definition on the next resume', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-ctx-'));
  try {
    fs.mkdirSync(path.join(root, '.waymark', 'workflows'), { recursive: true });
    const def = path.join(root, '.waymark', 'workflows', 'feat.yaml');
    fs.writeFileSync(def, 'steps: [a, b]\n');
    const file = path.join(root, 'w.md');
    fs.writeFileSync(file, '---\nworkflow: feat\nstatus: in_progress\nstepsCompleted: [a]\n---\nbody\n');
    assert.equal((await resume(root, file)).step, 'b');
    // A step inserted before b: the cached context must not hide it.
    fs.writeFileSync(def, 'steps: [a, review, b]\n# longer now\n');
    assert.equal((await resume(root, file)).step, 'review');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
