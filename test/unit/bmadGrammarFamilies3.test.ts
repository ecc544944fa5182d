// The families still skipped, third pass (issue 20): a planning artifact is known by what it
// carries, not by its file name (its template's title or headings, in the language the project
// writes documents in), and nothing is made an artifact by its title alone.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { scanRoots } from '../../src/core/store/scan';
import { findBmadProjects } from '../../src/core/bmad/config';
import { workspace } from './fileHelpers';

const CONFIG = 'project_name: heron\ndocument_output_language: "Simplified Chinese"\noutput_folder: "{project-root}"\nplanning_artifacts: "{project-root}"\nimplementation_artifacts: "{project-root}/stories"\n';

const fm = (lines: string[]) => `---\n${lines.join('\n')}\n---\n\n`;

describe('planning artifacts by evidence, under any name and language', () => {
  const files: Record<string, string> = {
    '_bmad/bmm/config.yaml': CONFIG,
    // A UX spec under a translated name, with a step id of its own.
    '交互设计说明.md': `${fm(['stepsCompleted:', '  - page-spec-ready', 'inputDocuments:', '  - "产品简报.md"', 'status: ready_for_story_split'])}# UX 设计规格：鹭鸟记账\n\n## 1. 设计目标\n\n把页面拆到可以直接写故事。\n`,
    // An English PRD under a name of the team's own, known by its steps' headings.
    'mobile-checkout-plan.md': `${fm(['stepsCompleted: [1, 2, 3, 4, 5]', 'inputDocuments: []'])}# Heron Mobile Checkout\n\n## Executive Summary\n\nPay in two taps.\n\n## Success Criteria\n\n- checkout under 20 s\n\n## Product Scope\n\n### MVP\n\n## User Journeys\n\n## Functional Requirements\n\n- FR1: pay\n`,
    // An architecture in Spanish.
    'diseño-técnico.md': `${fm(['stepsCompleted: [1, 2]', 'inputDocuments: []'])}# Documento de decisiones de arquitectura\n\n## Análisis del contexto\n`,
    // A step-tracked file whose title and headings name no workflow stays unknown.
    'meeting-notes.md': `${fm(['stepsCompleted: [1]'])}# Weekly sync\n\n## Attendees\n\n## Success Criteria\n`,
    // A plain doc titled like a template is no artifact.
    'docs/architecture-overview.md': '# Architecture\n\n## Core Architectural Decisions\n\n## Project Structure & Boundaries\n\n## Architecture Validation Results\n',
  };

  test('each is identified by its title or headings; the rest stay as they were', async () => {
    const dir = workspace(files, { prefix: 'wm-families3-', waymark: false });
    const res = await scanRoots([dir], { index: false, sprint: true });
    const of = (rel: string) => {
      const w = res.workflows.find((x) => x.file === path.join(dir, rel));
      if (!w) return undefined;
      return { workflow: w.workflow, by: w.identifiedBy, unknown: w.problems.some((p) => p.code === 'bmad-workflow-unknown') };
    };
    assert.deepEqual(of('交互设计说明.md'), { workflow: 'create-ux-design', by: 'known', unknown: false });
    assert.deepEqual(of('mobile-checkout-plan.md'), { workflow: 'prd', by: 'known', unknown: false });
    assert.deepEqual(of('diseño-técnico.md'), { workflow: 'create-architecture', by: 'known', unknown: false });
    assert.equal(of('meeting-notes.md')?.unknown, true, 'a title and one heading name no workflow');
    assert.equal(of('docs/architecture-overview.md'), undefined, 'a plain doc is no artifact, whatever its title');
  });
});

describe('a root ledger beside installs in subfolders is live by the rule that chooses a ledger', () => {
  const backup = { 'v4-backup/.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n' };
  test('an empty ledger at the root makes no project of it (nothing to read there)', () => {
    const dir = workspace({ ...backup, 'docs/sprint-status.yaml': 'project: kite\ndevelopment_status: {}\n' }, { prefix: 'wm-families3-', waymark: false });
    assert.deepEqual(findBmadProjects(dir), [path.join(dir, 'v4-backup')]);
  });
  test('a ledger whose key is quoted still lists its work', () => {
    const dir = workspace({ ...backup, 'sprint-status.yaml': '"development_status":\n  epic-1: in-progress\n  1-1-spar-cutter: review\n' }, { prefix: 'wm-families3-', waymark: false });
    assert.deepEqual(findBmadProjects(dir), [dir, path.join(dir, 'v4-backup')]);
  });
});
