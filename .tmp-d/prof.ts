import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createMemoryService } from '../src/core/memory/memoryService';
import { appendJournal } from '../src/core/memory/journal';
import { MemoryFiles } from '../src/core/memory/memoryFiles';
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
(async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-prof-'));
  const files = new MemoryFiles(path.join(base, 'hot.md'), path.join(base, 'cold.md'), base);
  let xs: number[] = [];
  for (let i = 0; i < 100; i++) { const t = performance.now(); await files.updateHot((h) => void h.working.push('x ' + i)); xs.push(performance.now() - t); }
  console.log('hot', med(xs));
  xs = [];
  for (let i = 0; i < 100; i++) { const t = performance.now(); await files.appendCold([{ section: 'Learned context', line: 'y ' + i }]); xs.push(performance.now() - t); }
  console.log('cold', med(xs));
  xs = [];
  for (let i = 0; i < 100; i++) { const t = performance.now(); appendJournal(path.join(base, 'j.jsonl'), [{ v: 1, op: 'memory', rec: { id: 'a' + i, type: 'learning', text: 'x', createdAt: new Date().toISOString(), tier: 1, source: {} } }]); xs.push(performance.now() - t); }
  console.log('journal', med(xs));
  const m = createMemoryService({ root: base, holdMs: 60000 });
  await m.flush();
  xs = [];
  for (let i = 0; i < 100; i++) { const t = performance.now(); await m.record({ type: 'learning', category: 'error', text: 'r' + i, workflow: 'a.md', step: 's' + (i % 4) }); xs.push(performance.now() - t); }
  console.log('record', med(xs));
  await m.dispose();
  fs.rmSync(base, { recursive: true, force: true });
})();
