// The warm project view in process, at 10,000 workflows (the core part of the extension's first
// tree and of an external edit reaching its views; the real VS Code figures come from the
// extension bench): the first scan and view, a view when nothing changed (answered from memory),
// and one file written by another process → re-read → view recomputed. Floors in the same run:
// listing and reading the same files (first view), one read of the edited file (the edit).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { WarmProjectView, createStateCore } from '../src/core/index';
import { arg, featureFile, line, median, time, timeAsync, timeRounds } from './lib';

const N = arg('files', 10_000);

function generate(root: string): void {
  fs.mkdirSync(path.join(root, '.waymark'), { recursive: true });
  for (let d = 0; d < Math.ceil(N / 100); d++) {
    const dir = path.join(root, 'work', `area-${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = d * 100; i < Math.min(N, (d + 1) * 100); i++) {
      const dep = i % 3 === 0 && i > 0 ? [`dependsOn: [work/area-${Math.floor((i - 1) / 100)}/wf-${i - 1}.workflow.md]`] : [];
      fs.writeFileSync(path.join(dir, `wf-${i}.workflow.md`), featureFile(i, 'warm view', { beforeOwner: dep }));
    }
  }
}

async function main(): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bench-warm-')));
  try {
    generate(root);
    const floorRead = time(() => {
      for (const d of fs.readdirSync(path.join(root, 'work'))) for (const f of fs.readdirSync(path.join(root, 'work', d))) fs.readFileSync(path.join(root, 'work', d, f));
    });
    const core = createStateCore({ roots: [root], actor: 'bench' });
    const warm = new WarmProjectView(core);
    try {
      let scan!: Awaited<ReturnType<typeof core.scan>>;
      const first = await timeAsync(async () => {
        scan = await core.scan();
        await warm.view(scan);
      });
      line(`warm.n${N}.first_scan_and_view_ms`, first, 1);
      line(`warm.n${N}.floor_list_and_read_ms`, floorRead, 1);
      const again = await timeRounds(50, () => warm.view({ roots: scan.roots, workflows: core.list() }));
      line(`warm.n${N}.view_unchanged_p50_ms`, median(again), 3);
      const file = path.join(root, 'work', 'area-3', 'wf-317.workflow.md');
      const text = fs.readFileSync(file, 'utf8');
      const edits: number[] = [];
      const reads: number[] = [];
      for (let i = 0; i < 20; i++) {
        // Written by another process, as an agent or git would.
        const next = text.replace(/status: \w+/, i % 2 ? 'status: in_progress' : 'status: blocked\nblockedReason: bench');
        spawnSync(process.execPath, ['-e', 'require("fs").writeFileSync(process.argv[1], process.argv[2])', file, next]);
        const t = performance.now();
        await core.reload(file);
        const v = await warm.view({ roots: scan.roots, workflows: core.list() });
        edits.push(performance.now() - t);
        if (!v.frontier.entries.size) throw new Error('empty view');
        reads.push(time(() => fs.readFileSync(file)));
      }
      line(`warm.n${N}.external_edit_reload_and_view_p50_ms`, median(edits), 2);
      line(`warm.n${N}.floor_read_edited_file_p50_ms`, median(reads), 3);
    } finally {
      await core.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
