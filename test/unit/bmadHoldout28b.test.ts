// Session 28's held-out round (issue 20), investigator b: what real projects nobody had looked at
// showed. Each test failed before its rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProject } from './fileHelpers';
import { cli, offered, type Problem } from './holdoutHelpers';

const V6 = {
  '_bmad/_config/manifest.yaml': 'installation:\n  version: 6.0.0\n',
  '_bmad/bmm/config.yaml': 'output_folder: "{project-root}/_bmad-output"\nimplementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"\n',
};

// An agent-skill catalogue (a team's own `.ai/skills/*.md`, outside BMAD) writes `workflow:` as a
// list of instructions beside `inputs:`/`outputs:`: the common word, not a workflow id.
test("a document whose `workflow:` is a list or a mapping, with no other state key, is no workflow: no error, not offered as work", () => {
  inProject({
    ...V6,
    '.ai/skills/release.md': '---\nid: release\nname: Cut a release\nwhen_to_use:\n  - When a version is due\nworkflow:\n  - Bump the version\n  - Tag the commit\n  - Publish the notes\ninputs:\n  - Version number\noutputs:\n  - A published release\n---\n\n# Release\n\nSteps to cut one.\n',
    '.ai/skills/lint.md': '---\nid: lint\nworkflow:\n  mode: interactive\n  checks: all\n---\n\n# Lint\n',
  }, (root) => {
    const v = cli(root, 'validate');
    const problems = (JSON.parse(v.stdout) as { problems: Problem[] }).problems;
    assert.deepEqual(problems.filter((p) => p.severity === 'error'), [], v.stdout);
    assert.equal(v.status, 0, v.stdout);
    assert.deepEqual(offered(root).filter((i) => /\.ai\//.test(i.file ?? '')), []);
  });
  // A state key beside it keeps it a workflow file whose id must be fixed (the error stays).
  inProject({
    '.ai/skills/half.md': '---\nworkflow:\n  - a\n  - b\nstatus: in-progress\n---\n\n# Half\n',
  }, (root) => {
    const v = cli(root, 'validate');
    const problems = (JSON.parse(v.stdout) as { problems: Problem[] }).problems;
    assert.ok(problems.some((p) => p.severity === 'error' && p.file.endsWith('half.md')), v.stdout);
  });
});

// A hand-off note in the output folder names the workflow that should pick it up, with a remark
// (`workflow: bmad-quick-dev (fresh context)`); no install, release or step record identifies it.
test('`next` never offers a BMAD document no workflow is identified for', () => {
  inProject({
    ...V6,
    '_bmad-output/implementation-artifacts/handoff-search-box.md': '---\ntitle: Hand-off — search box\nstatus: ready-for-dev\npriority: high\nworkflow: bmad-quick-dev (fresh context)\n---\n\n# Hand-off — search box\n\nWhat the next run should build.\n',
    '_bmad-output/implementation-artifacts/sprint-status.yaml': 'development_status:\n  epic-1: in-progress\n  1-1-search: ready-for-dev\n',
    '_bmad-output/implementation-artifacts/1-1-search.md': '# Story 1.1: Search\n\nStatus: ready-for-dev\n\n## Tasks\n\n- [ ] Build it\n',
  }, (root) => {
    const items = offered(root);
    assert.deepEqual(items.filter((i) => (i.file ?? '').includes('handoff')), [], JSON.stringify(items));
    assert.ok(items.some((i) => i.id === 'story:1-1-search'), JSON.stringify(items));
  });
});
