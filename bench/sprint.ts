// A generated BMAD project of 50 epics and 1,000 stories (ledger, story files with tasks, epics
// document): the whole sprint read and checked for drift in process, and one story status
// change (story file + ledger, locks, hash check, atomic writes, history). Each figure sits next
// to its floor in the same run: reading the same files without parsing; writing the same two
// files atomically without any checks.
// Prints `sprint.validate_median_ms` (goal < 200) and `sprint.set_status_median_ms` (goal < 20).
// Options: --epics N (default 50), --stories N per epic (default 20), --runs N (default 15).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSprint, setStoryStatus, writeFileAtomic, appendHistory } from '../src/core/index';
import { arg, median, time, timeAsync } from './lib';

const EPICS = arg('epics', 50);
const PER = arg('stories', 20);
const RUNS = arg('runs', 15);

function generate(root: string): string[] {
  fs.mkdirSync(path.join(root, '_bmad/bmm'), { recursive: true });
  fs.writeFileSync(path.join(root, '_bmad/bmm/config.yaml'), 'project_name: Bench\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n');
  const impl = path.join(root, '_bmad-output/implementation-artifacts');
  const plan = path.join(root, '_bmad-output/planning-artifacts');
  fs.mkdirSync(impl, { recursive: true });
  fs.mkdirSync(plan, { recursive: true });
  const ledger = ['# generated: 01-05-2026 09:00', '# STATUS DEFINITIONS: backlog, ready-for-dev, in-progress, review, done', '', 'generated: 01-05-2026 09:00', 'last_updated: 01-06-2026 10:00', 'project: Bench', 'tracking_system: file-system', '', 'development_status:'];
  const epics = ['# Bench - Epic Breakdown', ''];
  const files: string[] = [];
  for (let e = 1; e <= EPICS; e++) {
    const epicStatus = e < EPICS / 2 ? 'done' : e === Math.ceil(EPICS / 2) ? 'in-progress' : 'backlog';
    ledger.push(`  epic-${e}: ${epicStatus}`);
    epics.push(`## Epic ${e}: Area ${e}`, '');
    for (let s = 1; s <= PER; s++) {
      const key = `${e}-${s}-story-number-${s}-of-epic-${e}`;
      const status = epicStatus === 'done' ? 'done' : epicStatus === 'in-progress' ? (s === 1 ? 'in-progress' : s === 2 ? 'review' : 'ready-for-dev') : 'backlog';
      ledger.push(`  ${key}: ${status}`);
      epics.push(`### Story ${e}.${s}: Story number ${s} of epic ${e}`, '', 'As a user, I want it, so that it helps.', '');
      if (status === 'backlog') continue;
      const tick = status === 'done' ? 'x' : ' ';
      const file = path.join(impl, `${key}.md`);
      fs.writeFileSync(file, [`# Story ${e}.${s}: Story number ${s} of epic ${e}`, '', `Status: ${status}`, '', '## Story', '', 'As a user, I want it, so that it helps.', '', '## Acceptance Criteria', '', '1. It works.', '', '## Tasks / Subtasks', '', `- [${tick}] Task 1 (AC: #1)`, `  - [${tick}] Subtask 1.1`, `- [${tick}] Task 2`, `  - [${tick}] Subtask 2.1`, `- [${tick}] Task 3`, '', '## Dev Notes', '', 'Notes. '.repeat(30), '', '## Dev Agent Record', '', '### File List', '', '## Change Log', ''].join('\n'));
      files.push(file);
    }
    ledger.push(`  epic-${e}-retrospective: ${epicStatus === 'done' ? 'done' : 'optional'}`, '');
  }
  fs.writeFileSync(path.join(impl, 'sprint-status.yaml'), ledger.join('\n'));
  fs.writeFileSync(path.join(plan, 'epics.md'), epics.join('\n'));
  files.push(path.join(impl, 'sprint-status.yaml'), path.join(plan, 'epics.md'));
  return files;
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-sprint-'));
  try {
    const files = generate(root);
    const first = loadSprint(root)!;
    console.log(`sprint.stories ${first.stories.length}`);
    console.log(`sprint.files ${files.length}`);
    console.log(`sprint.problems ${first.problems.length}`);
    const validate: number[] = [];
    const floorRead: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floorRead.push(time(() => {
        for (const f of files) fs.readFileSync(f, 'utf8');
      }));
      validate.push(time(() => loadSprint(root)));
    }
    console.log(`sprint.validate_median_ms ${median(validate).toFixed(1)}   (goal < 200)`);
    console.log(`sprint.floor_read_files_median_ms ${median(floorRead).toFixed(1)}   (the same files read, nothing parsed)`);
    // One story status change at a time, back and forth on the stories of the in-progress epic.
    const mid = Math.ceil(EPICS / 2);
    const keys = Array.from({ length: PER - 2 }, (_, i) => `${mid}-${i + 3}-story-number-${i + 3}-of-epic-${mid}`);
    const change: number[] = [];
    for (let i = 0; i < Math.max(RUNS * 2, 30); i++) {
      const key = keys[i % keys.length];
      const to = Math.floor(i / keys.length) % 2 === 0 ? 'in-progress' : 'review';
      change.push(await timeAsync(() => setStoryStatus(root, key, to, { actor: 'bench' })));
    }
    console.log(`sprint.set_status_median_ms ${median(change).toFixed(1)}   (goal < 20)`);
    const ledgerFile = path.join(root, '_bmad-output/implementation-artifacts/sprint-status.yaml');
    const story = path.join(root, `_bmad-output/implementation-artifacts/${keys[0]}.md`);
    const floorWrite: number[] = [];
    for (let i = 0; i < 30; i++) {
      const a = fs.readFileSync(story, 'utf8');
      const b = fs.readFileSync(ledgerFile, 'utf8');
      floorWrite.push(time(() => {
        writeFileAtomic(story, a);
        writeFileAtomic(ledgerFile, b);
        appendHistory(root, { time: new Date().toISOString(), operation: 'bench-floor', file: story });
      }));
    }
    console.log(`sprint.floor_two_atomic_writes_and_history_median_ms ${median(floorWrite).toFixed(1)}   (the same two writes and history line, no checks)`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
