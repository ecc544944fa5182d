// The kept BMAD state against a cold read, edit after edit: random sequences of changes of every
// input kind (story status, tasks, title, status line, a story added, removed or renamed, ledger
// values, epics, the BMAD config, QA gates, the install's steps and manifest, torn or corrupt
// cache files); after each, the sprint (patched or built from `.waymark/cache`), the BMAD catalog
// (kept in its cache) and validate's whole answer must be what a run without any cache says.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkWorkspace, createStateCore, type WorkspaceCheck } from '../../src/core/index';
import { loadSprint } from '../../src/core/bmad/sprint';
import { loadBmadCatalogForRoot } from '../../src/core/bmad/artifacts';
import { CATALOG_CACHE_FILE, setSprintCacheMaxEdits, setSprintCacheRacyWindow, sprintCachePath } from '../../src/core/bmad/sprintCache';
import { workspace, writeFiles } from './fileHelpers';

const IMPL = '_bmad-output/implementation-artifacts';
const PLAN = '_bmad-output/planning-artifacts';
const LEDGER = `${IMPL}/sprint-status.yaml`;
const GATES = 'docs/qa/gates';
const WF = '_bmad/bmm/workflows/2-plan/create-prd';
const NOW = new Date();
const STATUSES = ['backlog', 'ready-for-dev', 'in-progress', 'review', 'done', 'Completed', 'blocked', 'drafted'];

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** A seeded generator (mulberry32): the same sequence of edits on every run of a seed. */
function rng(seed: number): { int: (n: number) => number; pick: <T>(xs: readonly T[]) => T } {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { int, pick: (xs) => xs[int(xs.length)] };
}

function storyText(e: number, s: number, status: string, ticked: boolean, title = `Story ${s} of epic ${e}`): string {
  const box = ticked ? 'x' : ' ';
  return `# Story ${e}.${s}: ${title}\n\nStatus: ${status}\n\n## Story\n\nAs a user I want part ${s}.\n\n## Tasks / Subtasks\n\n- [${box}] Task 1: build it\n  - [${box}] Subtask 1.1: test it\n- [${box}] Task 2: ship it\n\n## Dev Notes\n\nNotes.\n`;
}

/** A small BMAD v6 project: install (a workflow with steps, manifest, config), ledger, stories, epics, a gate. */
function project(): string {
  const root = workspace({}, { prefix: 'wm-sprint-incr-' });
  roots.push(root);
  const files: Record<string, string> = {
    '_bmad/bmm/config.yaml': 'project_name: Demo\noutput_folder: "{project-root}/_bmad-output"\nplanning_artifacts: "{project-root}/_bmad-output/planning-artifacts"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
    '_bmad/core/config.yaml': 'user_name: Demo\n',
    '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.0.0\n',
    '_bmad/_config/workflow-manifest.csv': 'name,description,module,path\n"create-prd","PRD","bmm","_bmad/bmm/workflows/2-plan/create-prd/workflow.md"\n',
    [`${WF}/workflow.md`]: "---\nname: create-prd\noutputFile: '{planning_artifacts}/prd.md'\n---\n# PRD workflow\n",
    [`${WF}/steps/step-01-init.md`]: '# Init\n',
    [`${WF}/steps/step-02-discovery.md`]: '# Discovery\n',
    [`${PLAN}/prd.md`]: '---\nstepsCompleted: [1]\nworkflowType: prd\n---\n# PRD\n',
  };
  const ledger = ['generated: 2025-01-01', 'development_status:'];
  const epics = ['# Epics', ''];
  for (let e = 1; e <= 3; e++) {
    ledger.push(`  epic-${e}: in-progress`);
    epics.push(`## Epic ${e}: Area ${e}`, '');
    for (let s = 1; s <= 4; s++) {
      const status = STATUSES[(e * 4 + s) % 5];
      ledger.push(`  ${e}-${s}-story-${s}: ${status}`);
      files[`${IMPL}/${e}-${s}-story-${s}.md`] = storyText(e, s, status, status === 'done');
      epics.push(`### Story ${e}.${s}: Story ${s} of epic ${e}`, '');
    }
    ledger.push(`  epic-${e}-retrospective: optional`);
  }
  files[LEDGER] = `${ledger.join('\n')}\n`;
  files[`${PLAN}/epics.md`] = `${epics.join('\n')}\n`;
  files[`${GATES}/1.2-story-2.yml`] = 'schema: 1\nstory: "1.2"\ngate: PASS\n';
  writeFiles(root, files);
  return root;
}

const createCore = (r: string[]) => createStateCore({ roots: r, memory: false, scanIndex: false });

/** validate's answer with no cache of any kind: no scan index, no kept sprint, catalog or answer. */
async function cold<T>(f: () => Promise<T> | T): Promise<T> {
  const was = process.env.WAYMARK_SCAN_INDEX;
  process.env.WAYMARK_SCAN_INDEX = '0';
  try {
    return await f();
  } finally {
    if (was === undefined) delete process.env.WAYMARK_SCAN_INDEX;
    else process.env.WAYMARK_SCAN_INDEX = was;
  }
}

/** A value with its Maps, Sets, RegExps, prototypes and frozen objects spelled out, for deepEqual. */
function canon(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v === undefined ? '<undefined>' : v;
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [canon(k), canon(x)]) };
  if (v instanceof Set) return { set: [...v].map(canon) };
  if (v instanceof RegExp) return { re: String(v) };
  if (v instanceof Date) return { date: v.getTime() };
  if (Array.isArray(v)) return { frozen: Object.isFrozen(v), items: v.map(canon) };
  const o: Record<string, unknown> = { '<proto>': Object.getPrototypeOf(v) === null ? 'null' : 'object', '<frozen>': Object.isFrozen(v) };
  for (const k of Object.keys(v)) o[k] = canon((v as Record<string, unknown>)[k]);
  return o;
}

function settled(c: WorkspaceCheck): unknown {
  return { files: c.files, workflows: c.workflows, skipped: c.skipped, problems: c.problems.map((p) => (p.code === 'work-stalled' ? { ...p, data: { ...p.data, idleMs: 'idle' } } : p)) };
}

function storyFiles(root: string): string[] {
  return fs.readdirSync(path.join(root, IMPL)).filter((f) => /^\d+-\d+-.*\.md$/.test(f)).sort().map((f) => path.join(root, IMPL, f));
}

type Edit = (root: string, r: ReturnType<typeof rng>) => string;

/** Every kind of input change; each says what it did (the failure message lists the sequence). */
const EDITS: Record<string, Edit> = {
  storyStatus: (root, r) => {
    const f = r.pick(storyFiles(root));
    const to = r.pick(STATUSES);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^Status: .*$/m, `Status: ${to}`));
    return `${path.basename(f)} status ${to}`;
  },
  storyTask: (root, r) => {
    const f = r.pick(storyFiles(root));
    const text = fs.readFileSync(f, 'utf8');
    const boxes = [...text.matchAll(/- \[( |x)\]/g)];
    if (!boxes.length) return 'no task';
    const b = r.pick(boxes);
    fs.writeFileSync(f, text.slice(0, b.index! + 3) + (b[1] === 'x' ? ' ' : 'x') + text.slice(b.index! + 4));
    return `${path.basename(f)} task toggled`;
  },
  storyAppend: (root, r) => {
    const f = r.pick(storyFiles(root));
    fs.appendFileSync(f, `\nA note ${r.int(1000)}.\n`);
    return `${path.basename(f)} appended`;
  },
  storySameSize: (root, r) => {
    // The same size and the mtime put back: only the ctime says it changed.
    const f = r.pick(storyFiles(root));
    const st = fs.statSync(f);
    const text = fs.readFileSync(f, 'utf8');
    const next = text.replace(/- \[( |x)\]/, (m, c: string) => `- [${c === 'x' ? ' ' : 'x'}]`);
    fs.writeFileSync(f, next);
    fs.utimesSync(f, st.atime, st.mtime);
    return `${path.basename(f)} same-size edit, mtime restored`;
  },
  storyTitle: (root, r) => {
    const f = r.pick(storyFiles(root));
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^# .*$/m, (m) => (r.int(3) === 0 ? '' : `${m.replace(/: .*/, '')}: Renamed ${r.int(100)}`)));
    return `${path.basename(f)} title changed`;
  },
  storyStatusLine: (root, r) => {
    const f = r.pick(storyFiles(root));
    const text = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(f, /^Status: /m.test(text) ? text.replace(/^Status: .*\n/m, '') : text.replace(/^(# .*\n)/m, `$1\nStatus: ${r.pick(STATUSES)}\n`));
    return `${path.basename(f)} status line removed or added`;
  },
  storyAdd: (root, r) => {
    const e = 1 + r.int(4);
    const s = 1 + r.int(6);
    const f = path.join(root, IMPL, `${e}-${s}-added-${r.int(3)}.md`);
    fs.writeFileSync(f, storyText(e, s, r.pick(STATUSES), r.int(2) === 0));
    return `${path.basename(f)} added`;
  },
  storyRemove: (root, r) => {
    const f = r.pick(storyFiles(root));
    fs.rmSync(f);
    return `${path.basename(f)} removed`;
  },
  storyRename: (root, r) => {
    const f = r.pick(storyFiles(root));
    const to = path.join(root, IMPL, path.basename(f).replace(/^(\d+-\d+)-.*\.md$/, `$1-renamed-${r.int(50)}.md`));
    fs.renameSync(f, to);
    return `${path.basename(f)} renamed ${path.basename(to)}`;
  },
  storyAtomicSave: (root, r) => {
    // An editor's save: a temp file renamed over the story (the folder's key moves, its entries do not).
    const f = r.pick(storyFiles(root));
    const tmp = `${f}.tmp`;
    fs.writeFileSync(tmp, fs.readFileSync(f, 'utf8').replace(/^Status: .*$/m, `Status: ${r.pick(STATUSES)}`));
    fs.renameSync(tmp, f);
    return `${path.basename(f)} saved by rename`;
  },
  ledgerValue: (root, r) => {
    const f = path.join(root, LEDGER);
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    const i = r.pick(lines.map((l, n) => (/^ {2}\S+: /.test(l) ? n : -1)).filter((n) => n >= 0));
    const key = lines[i].trim().split(':')[0];
    lines[i] = `  ${key}: ${key.startsWith('epic-') ? r.pick(['backlog', 'in-progress', 'done', 'optional']) : r.pick(STATUSES)}`;
    fs.writeFileSync(f, lines.join('\n'));
    return `ledger ${lines[i].trim()}`;
  },
  ledgerStamp: (root, r) => {
    const f = path.join(root, LEDGER);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^(generated|last_updated): .*$/m, r.int(2) ? `last_updated: ${new Date(NOW.getTime() - r.int(20) * 86_400_000).toISOString().slice(0, 10)}` : 'generated: 2025-01-01'));
    return 'ledger stamp changed';
  },
  epicsFile: (root, r) => {
    const f = path.join(root, PLAN, 'epics.md');
    if (r.int(2)) fs.appendFileSync(f, `\n### Story ${1 + r.int(3)}.${5 + r.int(3)}: Planned ${r.int(100)}\n`);
    else fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^## Epic 2: .*$/m, `## Epic 2: Area renamed ${r.int(100)}`));
    return 'epics edited';
  },
  config: (root, r) => {
    const f = path.join(root, '_bmad/bmm/config.yaml');
    const text = fs.readFileSync(f, 'utf8');
    const k = r.int(3);
    if (k === 0) fs.writeFileSync(f, text.replace(/^project_name: .*$/m, `project_name: Demo ${r.int(100)}`));
    else if (k === 1) fs.writeFileSync(f, /stories/.test(text) ? text.replace(/\/stories"/, '/implementation-artifacts"') : text.replace(/(implementation_artifacts: .*\/)implementation-artifacts"/, '$1stories"'));
    else fs.writeFileSync(f, /planning-artifacts/.test(text) ? text.replace('/planning-artifacts"', '/plans"') : text.replace('/plans"', '/planning-artifacts"'));
    return `config edit ${k}`;
  },
  gate: (root, r) => {
    const key = `${1 + r.int(3)}.${1 + r.int(4)}`;
    const f = path.join(root, GATES, `${key}-story-${key.split('.')[1]}.yml`);
    const k = r.int(4);
    if (k === 0) fs.rmSync(f, { force: true });
    else {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      const verdict = r.pick(['PASS', 'FAIL', 'CONCERNS', 'WAIVED']);
      const waiver = verdict === 'WAIVED' ? `waiver:\n  active: true\nexpires: ${new Date(NOW.getTime() + (r.int(2) ? 1 : -1) * 86_400_000).toISOString()}\n` : '';
      fs.writeFileSync(f, `schema: 1\nstory: "${key}"\ngate: ${verdict}\n${waiver}`);
    }
    return `gate ${path.basename(f)} ${k === 0 ? 'removed' : 'written'}`;
  },
  installStep: (root, r) => {
    const dir = path.join(root, WF, 'steps');
    const f = path.join(dir, `step-0${3 + r.int(2)}-extra.md`);
    if (fs.existsSync(f)) fs.rmSync(f);
    else fs.writeFileSync(f, `# Extra ${r.int(10)}\n`);
    return `install step ${path.basename(f)} toggled`;
  },
  installOutput: (root, r) => {
    const f = path.join(root, WF, 'workflow.md');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/outputFile: .*$/m, `outputFile: '{planning_artifacts}/${r.pick(['prd', 'product', 'requirements'])}.md'`));
    return 'install output declaration changed';
  },
  manifest: (root, r) => {
    const f = path.join(root, '_bmad/_config/workflow-manifest.csv');
    const name = r.pick(['create-prd', 'prd', 'bmad-prd', 'requirements']);
    fs.writeFileSync(f, `name,description,module,path\n"${name}","PRD","bmm","_bmad/bmm/workflows/2-plan/create-prd/workflow.md"\n`);
    return `manifest names ${name}`;
  },
  cacheTorn: (root, r) => {
    const f = r.pick([sprintCachePath(root), path.join(root, CATALOG_CACHE_FILE), sprintCachePath(root).replace(/\.bin$/, '-edits.bin')]);
    if (!fs.existsSync(f)) return `no ${path.basename(f)}`;
    const bytes = fs.readFileSync(f);
    const k = r.int(3);
    if (k === 0) fs.writeFileSync(f, bytes.subarray(0, r.int(bytes.length)));
    else if (k === 1) fs.writeFileSync(f, 'not json {');
    // A byte changed inside (a digit of a key, an identity, a parse): no longer what was written.
    else {
      const at = r.int(bytes.length);
      bytes[at] ^= 1 << r.int(8);
      fs.writeFileSync(f, bytes);
    }
    return `${path.basename(f)} ${['torn', 'garbage', 'a byte changed'][k]}`;
  },
};

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function compare(root: string, steps: string[]): Promise<void> {
  const where = `after: ${steps.join(' → ')}`;
  // Every other step validate reads the changed state first (its scan patches or builds the kept sprint).
  const answer = steps.length % 2 ? await checkWorkspace(root, { createCore, racyWindowMs: 0 }) : undefined;
  const kept = loadSprint(root, { now: NOW, cache: true });
  const fresh = loadSprint(root, { now: NOW, cache: false });
  assert.deepEqual(canon(kept), canon(fresh), `sprint differs from a cold read ${where}`);
  // As validate loads it (the configuration's `bmad.dir`, by default `_bmad`): the same cache entry.
  const catalog = await loadBmadCatalogForRoot(root, '_bmad', { cache: true });
  assert.deepEqual(canon(catalog), canon(await loadBmadCatalogForRoot(root, '_bmad')), `catalog differs from a cold read ${where}`);
  const again = answer ?? (await checkWorkspace(root, { createCore, racyWindowMs: 0 }));
  const full = await cold(() => checkWorkspace(root, { createCore }));
  assert.deepEqual(settled(again), settled(full), `validate differs from a run without caches ${where}`);
}

describe('kept BMAD state (sprint patch, catalog, validate answer) against cold reads', () => {
  for (const seed of [1, 2, 3, 4]) {
    test(`seed ${seed}: 45 random edits of every input kind, each answer what a cold run says`, async () => {
      // Inputs change well after they are recorded (sleep below), so the racy window is not needed
      // to tell them apart: with none, a kept entry is used as soon as its key matches.
      setSprintCacheRacyWindow(0);
      // Odd seeds write the whole sprint again after two edited files (the edits file's limit), even ones keep 24.
      setSprintCacheMaxEdits(seed % 2 ? 2 : 24);
      try {
        const root = project();
        const r = rng(seed);
        const kinds = Object.keys(EDITS);
        const steps: string[] = [];
        await compare(root, ['(start)']);
        for (let i = 0; i < 45; i++) {
          // Story edits are most of what happens: half the steps.
          const kind = r.int(2) === 0 ? r.pick(['storyStatus', 'storyTask', 'storyAppend', 'storySameSize', 'storyAtomicSave']) : r.pick(kinds);
          // A file's ctime moves in coarse ticks: a change 10 ms after the last read has a new key.
          sleep(10);
          steps.push(`${kind}: ${EDITS[kind](root, r)}`);
          await compare(root, steps);
        }
      } finally {
        setSprintCacheRacyWindow(2000);
        setSprintCacheMaxEdits(24);
      }
    });
  }

  test('a mixed-form name (`1.5-chart-fixes.md`, no story title) that stops stating a story status is no longer a story, kept or cold', () => {
    // Whether such a file is a story depends on its status being a story status word, so that must
    // be part of what decides between patching the kept sprint and building it.
    setSprintCacheRacyWindow(0);
    try {
      const root = project();
      const f = path.join(root, IMPL, '1.5-chart-fixes.md');
      fs.writeFileSync(f, '# 1.5: Chart fixes\n\n## Status\n\nDone\n\n## Notes\n\nFixed.\n');
      sleep(10);
      const first = loadSprint(root, { now: NOW, cache: true });
      assert.ok(first?.stories.some((s) => s.file === f), 'a story while it states Done');
      sleep(10);
      fs.writeFileSync(f, '# 1.5: Chart fixes\n\n## Status\n\nUnresolved\n\n## Notes\n\nFixed.\n');
      const kept = loadSprint(root, { now: NOW, cache: true });
      const coldSprint = loadSprint(root, { now: NOW, cache: false });
      assert.equal(coldSprint?.stories.some((s) => s.file === f), false, 'cold: not a story with a spec status');
      assert.deepEqual(canon(kept), canon(coldSprint));
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });

  test('an edit of a story file patches the kept sprint (an edits file beside it); a title change or another input builds it', () => {
    setSprintCacheRacyWindow(0);
    try {
      const root = project();
      const cache = sprintCachePath(root);
      // Written in an earlier millisecond than the build's: no input racy.
      sleep(10);
      loadSprint(root, { now: NOW, cache: true });
      sleep(10);
      const f = storyFiles(root)[0];
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^Status: .*$/m, 'Status: review'));
      const cacheIno = fs.statSync(cache).ino;
      const patched = loadSprint(root, { now: NOW, cache: true });
      // A patch writes the small edits file, not the sprint (only a build does).
      assert.equal(fs.statSync(cache).ino, cacheIno, 'patched: the sprint is not written');
      assert.ok(fs.existsSync(cache.replace(/\.bin$/, '-edits.bin')), 'patched: the edits file is written');
      assert.equal(patched?.stories.find((s) => s.file === f)?.fileStatus, 'review');
      assert.deepEqual(canon(patched), canon(loadSprint(root, { now: NOW, cache: false })));
      sleep(10);
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/^# .*$/m, '# Story 1.1: Another title'));
      loadSprint(root, { now: NOW, cache: true });
      assert.notEqual(fs.statSync(cache).ino, cacheIno, 'a title change: built');
      const ino2 = fs.statSync(cache).ino;
      sleep(10);
      fs.appendFileSync(path.join(root, LEDGER), '\n');
      loadSprint(root, { now: NOW, cache: true });
      assert.notEqual(fs.statSync(cache).ino, ino2, 'a ledger change: built');
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });

  test("the catalog kept by a first run holds in the next: the first run's own `.waymark/` in the root changes nothing it read", async () => {
    // A fresh clone has no `.waymark/`: the first run makes it in the project's root after the
    // catalog read that root, so the root's stat key moves; its entries (`.waymark/` aside) do not.
    setSprintCacheRacyWindow(0);
    try {
      const root = project();
      fs.rmSync(path.join(root, '.waymark'), { recursive: true });
      const cache = path.join(root, CATALOG_CACHE_FILE);
      sleep(10);
      const first = await loadBmadCatalogForRoot(root, '_bmad', { cache: true });
      const ino = fs.statSync(cache).ino;
      sleep(10);
      const second = await loadBmadCatalogForRoot(root, '_bmad', { cache: true });
      assert.equal(fs.statSync(cache).ino, ino, 'the second run takes the kept catalog (not built and written again)');
      assert.deepEqual(canon(second), canon(first));
      assert.deepEqual(canon(second), canon(await loadBmadCatalogForRoot(root, '_bmad')));
      // A skills folder made in the root afterwards is still seen.
      sleep(10);
      writeFiles(root, { '.claude/skills/bmad-quick-dev/steps/step-01-plan.md': '# Plan\n', '.claude/skills/bmad-quick-dev/SKILL.md': '# Quick dev\n' });
      const third = await loadBmadCatalogForRoot(root, '_bmad', { cache: true });
      assert.notEqual(fs.statSync(cache).ino, ino, 'a new skills folder: built again');
      assert.ok(third.workflows.some((w) => w.name === 'bmad-quick-dev'));
      assert.deepEqual(canon(third), canon(await loadBmadCatalogForRoot(root, '_bmad')));
    } finally {
      setSprintCacheRacyWindow(2000);
    }
  });
});
