// The floor for whole-process scan figures: a plain Node script that lists, reads and SHA-256-hashes
// the same files `waymark validate` would (Markdown files outside node_modules, .git, .waymark and
// the _bmad install folder). Nothing is parsed. Usage: node bench/floor.mjs ROOT; prints the count.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';

const root = resolve(process.argv[2] ?? '.');
const skipped = new Set(['node_modules', '.git', '.waymark']);
let files = 0;
function walk(dir, top) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (skipped.has(e.name) || (top && e.name === '_bmad')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, false);
    else if (e.isFile() && e.name.endsWith('.md')) {
      createHash('sha256').update(readFileSync(p)).digest('hex');
      files++;
    }
  }
}
walk(root, true);
console.log(files);
