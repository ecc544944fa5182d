import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { createStateCore } from '../../src/core/index';
import { workspace as makeWorkspace } from './fileHelpers';

const workspace = (files: Record<string, string>) => makeWorkspace(files, { prefix: 'wm-tpl-', waymark: false });

async function workflows(root: string): Promise<string[]> {
  const core = createStateCore({ roots: [root], memory: false, scanIndex: false });
  try {
    return (await core.scan()).workflows.map((w) => path.relative(root, w.file)).sort();
  } finally {
    await core.close();
  }
}

describe('BMAD templates are not artifacts', () => {
  test('unfilled variables in the frontmatter or the body, or a *-template.md in a workflow folder, make a template; a filled copy is an artifact', async () => {
    const root = workspace({
      // A fork of BMAD under another install folder name: its templates are not excluded by path.
      'my-framework/workflows/architect/data/architecture-template.md': "---\nstepsCompleted: []\nworkflowType: 'architecture'\nproject_name: '{{project_name}}'\nuser_name: '{{user_name}}'\n---\n# Architecture\n",
      'my-framework/workflows/prd/prd-template.md': "---\nstepsCompleted: []\ninputDocuments: []\nworkflowType: 'prd'\n---\n\n# Product Requirements Document - {{project_name}}\n",
      'my-framework/workflows/ux/ux-design-template.md': "---\nstepsCompleted: []\nworkflowType: 'ux-design'\n---\n# UX\n",
      // Made from the templates: real artifacts, even the one not started yet.
      'docs/architecture.md': "---\nstepsCompleted: [1, 2]\nworkflowType: 'architecture'\nproject_name: 'shop'\n---\n# Architecture\n",
      'docs/prd.md': "---\nstepsCompleted: []\nworkflowType: 'prd'\nproject_name: 'shop'\n---\n# Product Requirements Document - shop\n",
      // A template someone started filling in by hand is state now.
      'notes/template.md': "---\nstepsCompleted: [1]\nworkflowType: 'prd'\nproject_name: '{{project_name}}'\n---\n# PRD\n",
    });
    assert.deepEqual(await workflows(root), ['docs/architecture.md', 'docs/prd.md', 'notes/template.md']);
  });
});
