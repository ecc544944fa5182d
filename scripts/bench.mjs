// `npm run bench`: runs every bundled benchmark in dist-bench/ one after another.
// Each prints `name value` lines; extra arguments are passed through (e.g. --files 2000).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const extra = process.argv.slice(2);
const benches = readdirSync('dist-bench').filter((f) => f.endsWith('.js')).sort();
let failed = 0;
for (const b of benches) {
  console.log(`\n=== bench ${b}`);
  const r = spawnSync(process.execPath, ['--expose-gc', join('dist-bench', b), ...extra], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`bench ${b} failed (exit ${r.status})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
