// A write parses its frontmatter's `yaml` document once (model/positions.ts yamlDocument) and
// finds its problems' positions when they are asked for: the state a write answers with must be
// the state a fresh read of the bytes it wrote gives, problems and positions included, whatever
// the edit and whatever the file looks like. Property-style: seeded random files and verbs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createStateCore, type MutationResult, type Scope, type Status, type StateCore } from '../../src/core/index';
import { workspace, rng } from './fileHelpers';


const STEPS = ['discover', 'design', 'build', 'review', 'ship'];
const STATUSES: Status[] = ['created', 'in_progress', 'blocked', 'completed'];

/** A workflow file with a random mix of styles, extra keys, comments and problems. */
function randomFile(r: () => number, i: number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const eol = r() < 0.2 ? '\r\n' : '\n';
  const done = STEPS.slice(0, Math.floor(r() * 3));
  const list = (xs: string[], key: string) => (r() < 0.5 ? [`${key}: [${xs.join(', ')}]`] : xs.length ? [`${key}:`, ...xs.map((x) => `  - ${x}`)] : [`${key}: []`]);
  const lines = ['---'];
  if (r() < 0.5) lines.push(`# workflow ${i}`);
  lines.push(`workflow: ${pick(['demo', "'demo'", '"demo"'])}`);
  lines.push(`status: ${pick(['in_progress', 'pending', "'in_progress'", 'blocked'])}`);
  if (r() < 0.3) lines.push(`blockedReason: "waiting on ${i}"`);
  lines.push(...list(STEPS, 'steps'));
  lines.push(...list(done, 'stepsCompleted'));
  // Sometimes a step that does not exist, or a status Waymark does not know: problems with positions.
  lines.push(`currentStep: ${r() < 0.2 ? 'nowhere' : STEPS[done.length]}`);
  if (r() < 0.5) lines.push(`scope: ${pick(['small', 'medium', 'huge'])}`);
  if (r() < 0.5) lines.push(`owner: "agent-${i}"  # who`);
  if (r() < 0.4) lines.push('tags: [a, b]');
  if (r() < 0.4) lines.push('notes: |', '  kept', '  as is');
  if (r() < 0.3) lines.push(`session: s-${i}`);
  if (r() < 0.3) lines.push(`updatedAt: 2026-01-0${1 + (i % 9)}T00:00:00Z`);
  lines.push('---', '', `# Workflow ${i}`, '', 'Body.', '');
  return lines.join(eol);
}

/** One random change through the core. */
async function randomChange(core: StateCore, file: string, r: () => number, opts: { text?: string }): Promise<MutationResult> {
  const scopes: Scope[] = ['micro', 'small', 'medium', 'large', 'epic'];
  const verbs: Array<() => Promise<MutationResult>> = [
    () => core.setScope(file, scopes[Math.floor(r() * scopes.length)], { ...opts, force: true }),
    () => core.advance(file, { ...opts, force: true }),
    () => core.completeStep(file, STEPS[Math.floor(r() * STEPS.length)], { ...opts, force: true }),
    () => core.setStatus(file, STATUSES[Math.floor(r() * STATUSES.length)], { ...opts, force: true, reason: 'property test' }),
    () => core.block(file, `blocked ${Math.floor(r() * 100)}`, { ...opts, force: true }),
    () => core.unblock(file, { ...opts, force: true }),
    () => core.start(file, { ...opts, force: true }),
  ];
  return verbs[Math.floor(r() * verbs.length)]();
}

/** The state as plain data (JSON reads every problem's position). */
const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;

/** Parses unrelated frontmatter so that no `yaml` document of an earlier text is still at hand. */
async function flushDocuments(core: StateCore, root: string): Promise<void> {
  for (let i = 0; i < 6; i++) await core.parseText(path.join(root, `other-${i}.md`), `---\nworkflow: x${i}\nstatus: nope\nsteps: [a]\ncurrentStep: b\n---\n`);
}

describe('parse once: the state a write answers with is a fresh read of the bytes it wrote', () => {
  test('unsaved text and real writes, random files and verbs (seeded)', async () => {
    const root = workspace({}, { prefix: 'wm-parse-once-' });
    const core = createStateCore({ roots: [root], actor: 'test', memory: false });
    const fresh = createStateCore({ roots: [root], actor: 'test', memory: false });
    let compared = 0;
    try {
      for (let seed = 1; seed <= 60; seed++) {
        const r = rng(seed);
        const file = path.join(root, `wf-${seed}.md`);
        const text = randomFile(r, seed);
        fs.writeFileSync(file, text);
        for (let k = 0; k < 3; k++) {
          const unsaved = r() < 0.3;
          let res: MutationResult;
          try {
            res = await randomChange(core, file, r, unsaved ? { text: fs.readFileSync(file, 'utf8') } : {});
          } catch {
            continue; // a refusal (a transition the rules forbid) changes nothing: nothing to compare
          }
          if (!res.changed || !res.after) continue;
          await flushDocuments(fresh, root);
          const bytes = unsaved ? res.newText! : fs.readFileSync(file, 'utf8');
          if (!unsaved) assert.equal(bytes, res.newText, `seed ${seed}: the bytes written are the answer's text`);
          const again = await fresh.parseText(file, bytes);
          assert.deepEqual(plain(res.after), plain(again.state), `seed ${seed}, change ${k}: the answer's state is a fresh parse of ${JSON.stringify(bytes)}`);
          compared++;
        }
      }
    } finally {
      core.dispose();
      fresh.dispose();
    }
    assert.ok(compared > 60, `compared ${compared} changes`);
  });

  test('a problem position read later is the one read at once', async () => {
    const root = workspace({}, { prefix: 'wm-parse-once-' });
    const core = createStateCore({ roots: [root], actor: 'test', memory: false });
    try {
      const file = path.join(root, 'wf.md');
      const text = '---\nworkflow: demo\nstatus: in_progress\nsteps: [a, b]\nstepsCompleted: []\ncurrentStep: nowhere\n---\n';
      const first = await core.parseText(file, text);
      await flushDocuments(core, root);
      const p = first.state!.problems.find((x) => x.code && x.range.start.line === 5);
      assert.ok(p, `a problem on currentStep's line: ${JSON.stringify(first.state!.problems)}`);
      assert.deepEqual(p.range, { start: { line: 5, character: 13 }, end: { line: 5, character: 20 } }); // `nowhere`
      const copy = { ...p };
      assert.deepEqual(copy.range, p.range);
    } finally {
      core.dispose();
    }
  });
});
