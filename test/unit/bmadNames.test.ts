import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanRoots } from '../../src/core/store/scan';

// Installs name workflow folders `create-prd`, `bmad-create-ux-design` or `architecture`; the
// artifacts' workflowType says `prd`, `ux-design`, `create-architecture`.
test('BMAD workflowType finds its installed folder with or without bmad-/create- prefixes', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bmadnames-'));
  try {
    const install = (folder: string, steps: string[]) => {
      const dir = path.join(root, '_bmad', 'bmm', 'workflows', '2-plan-workflows', folder, 'steps');
      fs.mkdirSync(dir, { recursive: true });
      for (const s of steps) fs.writeFileSync(path.join(dir, `${s}.md`), `# ${s}\n`);
    };
    install('bmad-create-ux-design', ['step-01-init', 'step-01b-continue', 'step-02-discovery', 'step-03-core-experience']);
    install('architecture', ['step-01-init', 'step-02-context']);
    const out = path.join(root, '_bmad-output', 'planning-artifacts');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'ux.md'), "---\nstepsCompleted: [1, 2]\nworkflowType: 'ux-design'\n---\n# UX\n");
    fs.writeFileSync(path.join(out, 'arch.md'), "---\nstepsCompleted: [step-01-init]\nworkflowType: 'create-architecture'\n---\n# Arch\n");
    const res = await scanRoots([root], { index: false });
    const ux = res.workflows.find((w) => w.file.endsWith('ux.md'))!;
    assert.equal(ux.stepsSource, 'bmad');
    assert.deepEqual(ux.steps.map((s) => s.id), ['step-01-init', 'step-02-discovery', 'step-03-core-experience']);
    assert.equal(ux.nextStep, 'step-03-core-experience');
    const arch = res.workflows.find((w) => w.file.endsWith('arch.md'))!;
    assert.equal(arch.stepsSource, 'bmad');
    assert.equal(arch.nextStep, 'step-02-context');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('real BMAD artifacts: workflowStatus is read and written in place; lastStep is checked without an install', async () => {
  const { createStateCore } = await import('../../src/core/index');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-bmadreal-'));
  try {
    const out = path.join(root, '_bmad-output', 'planning-artifacts');
    fs.mkdirSync(out, { recursive: true });
    const arch = path.join(out, 'architecture.md');
    const archText = "---\nstepsCompleted: ['step-01-init', 'step-02-context']\nworkflowStatus: 'complete'  # set by the agent\ncompletedAt: '2026-03-01'\n---\n# Architecture\n";
    fs.writeFileSync(arch, archText);
    const research = path.join(out, 'research.md');
    fs.writeFileSync(research, "---\nstepsCompleted: [1, 2, 3, 4, 5, 6]\nworkflowType: 'research'\nlastStep: 1\n---\n# Research\n");
    const core = createStateCore({ roots: [root] });
    await core.scan();
    const a = core.get(arch)!;
    assert.equal(a.rawStatus, 'complete');
    assert.equal(a.status, 'completed');
    const mismatch = core.get(research)!.problems.find((p) => p.code === 'last-step-mismatch');
    assert.ok(mismatch, 'lastStep 1 vs stepsCompleted up to 6 is reported');
    assert.equal(mismatch!.range.start.line, 3);
    assert.deepEqual(mismatch!.data, { fix: 'setLastStep', value: 6 });
    await core.setStatus(arch, 'archived');
    // Written where the file keeps it, quoting and comment kept; no second `status` key.
    assert.equal(fs.readFileSync(arch, 'utf8'), archText.replace("'complete'", "'archived'"));
    core.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
