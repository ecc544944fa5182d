import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claude, cleanup, tempWorkspace, treeDigest, write, type Run } from './hooksHelpers';

const STORY_DIR = '_bmad-output/implementation-artifacts';

function story(status: string, tasks: [boolean, boolean] = [false, false]): string {
  const box = (done: boolean) => (done ? '[x]' : '[ ]');
  return [
    '# Story 1.2: User login',
    '',
    `Status: ${status}`,
    '',
    '## Story',
    '',
    'As a returning user, I want to log in, so that I see my projects.',
    '',
    '## Acceptance Criteria',
    '',
    '1. A registered user can log in with email and password.',
    '',
    '## Tasks / Subtasks',
    '',
    `- ${box(tasks[0])} Add the login form (AC: 1)`,
    `  - ${box(tasks[0])} Validate the email field`,
    `- ${box(tasks[1])} Call the session endpoint (AC: 1)`,
    '',
    '## Dev Notes',
    '',
    '- Sessions live in src/auth/session.ts.',
    '',
    '## Dev Agent Record',
    '',
  ].join('\n');
}

const LEDGER = (s12: string) => `# generated: 2026-11-20\nproject: shop\nstory_location: ${STORY_DIR}\n\ndevelopment_status:\n  epic-1: in-progress\n  1-1-sign-up: done\n  1-2-user-login: ${s12}\n  epic-1-retrospective: optional\n`;

function bmadWorkspace(): string {
  const root = tempWorkspace();
  write(root, '_bmad/_config/manifest.yaml', 'installation:\n  version: 6.0.0\n');
  write(root, `${STORY_DIR}/sprint-status.yaml`, LEDGER('backlog'));
  return root;
}

const storyFile = (root: string) => path.join(root, STORY_DIR, '1-2-user-login.md');

/** The agent rewrites the story's text: Write with the full content, as create-story and dev-story do. */
async function proposeStory(root: string, text: string): Promise<Run> {
  return claude(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: storyFile(root), content: text } });
}

async function proposeLedger(root: string, from: string, to: string): Promise<Run> {
  return claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(root, STORY_DIR, 'sprint-status.yaml'), old_string: `1-2-user-login: ${from}`, new_string: `1-2-user-login: ${to}` } });
}

/** Lands an allowed change the way the tool would, then runs the check after it. */
async function land(root: string, file: string, text: string): Promise<void> {
  fs.writeFileSync(file, text);
  const r = await claude(root, 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: file, content: text } });
  assert.equal(r.code, 0, r.stderr);
}

describe('hooks on a BMAD story: every step of its life, and the common bad edits', () => {
  test('create → in-progress → review → done passes, in story and ledger alike', async () => {
    const root = bmadWorkspace();
    const ledger = path.join(root, STORY_DIR, 'sprint-status.yaml');
    try {
      const life: [string, string, [boolean, boolean]][] = [
        ['backlog', 'ready-for-dev', [false, false]],
        ['ready-for-dev', 'in-progress', [false, false]],
        ['in-progress', 'in-progress', [true, false]],
        ['in-progress', 'review', [true, true]],
        ['review', 'done', [true, true]],
      ];
      for (const [from, to, tasks] of life) {
        const r = await proposeStory(root, story(to, tasks));
        assert.equal(r.code, 0, `story → ${to}: ${r.stderr}`);
        await land(root, storyFile(root), story(to, tasks));
        if (from !== to) {
          const l = await proposeLedger(root, from, to);
          assert.equal(l.code, 0, `ledger ${from} → ${to}: ${l.stderr}`);
          await land(root, ledger, LEDGER(to));
        }
      }
      // A new session hears which story is under way.
      await land(root, ledger, LEDGER('in-progress'));
      const start = await claude(root, 'SessionStart', { source: 'resume' });
      assert.match(JSON.parse(start.stdout).hookSpecificOutput.additionalContext, /story 1-2-user-login: in-progress \(_bmad-output\/implementation-artifacts\/1-2-user-login\.md, tasks 3\/3; its file says done, the ledger in-progress\)/);
      // Review sends it back for changes: review → in-progress is allowed.
      fs.writeFileSync(storyFile(root), story('review', [true, true]));
      assert.equal((await proposeStory(root, story('in-progress', [true, true]))).code, 0);
    } finally {
      cleanup(root);
    }
  });

  test('the common bad edits are refused with the reason and what to do; nothing is written', async () => {
    const root = bmadWorkspace();
    try {
      write(root, `${STORY_DIR}/1-2-user-login.md`, story('ready-for-dev'));
      const before = treeDigest(root);
      const cases: [string, string, RegExp, RegExp][] = [
        ['ready-for-dev', story('done', [true, true]), /status ready-for-dev → done: a workflow must be started before it can be completed/, /start it first: waymark story set-status 1-2-user-login in-progress/],
        ['ready-for-dev', story('wibble'), /status 'wibble' is not a BMAD status/, /use one of backlog, ready-for-dev, in-progress, review, done/],
        // A word the reader reads as done (`finished`) is judged as done, not waved through as unknown.
        ['ready-for-dev', story('finished'), /status ready-for-dev → finished: a workflow must be started before it can be completed/, /set to done with 3 tasks still open/],
        ['ready-for-dev', story('ready-for-dev').replace('Status: ready-for-dev\n', ''), /removes the Status: line/, /keep the Status: line/],
        ['in-progress', story('done', [true, true]), /goes in-progress → done without review/, /set it to review first/],
        ['review', story('done', [true, false]), /set to done with 1 task still open/, /tick the tasks/],
        ['done', story('in-progress', [true, true]), /status done → in-progress: a completed workflow cannot be reopened/, /follow-up story/],
      ];
      for (const [current, proposed, why, fix] of cases) {
        fs.writeFileSync(storyFile(root), story(current, current === 'done' || current === 'review' ? [true, current === 'done'] : [false, false]));
        const snapshot = treeDigest(root);
        const r = await proposeStory(root, proposed);
        assert.equal(r.code, 2, `${current}: ${r.stderr}`);
        assert.match(r.stderr, /Waymark refused this edit of _bmad-output\/implementation-artifacts\/1-2-user-login\.md/);
        assert.match(r.stderr, why);
        assert.match(r.stderr, fix);
        assert.deepEqual(treeDigest(root), snapshot, `${current}: nothing written`);
      }
      fs.writeFileSync(storyFile(root), story('ready-for-dev'));
      assert.deepEqual(treeDigest(root), before);
    } finally {
      cleanup(root);
    }
  });

  test('the sprint ledger: no skipping to done, no reopening, no dropped entries, valid YAML', async () => {
    const root = bmadWorkspace();
    const ledger = path.join(root, STORY_DIR, 'sprint-status.yaml');
    try {
      fs.writeFileSync(ledger, LEDGER('ready-for-dev'));
      let r = await proposeLedger(root, 'ready-for-dev', 'done');
      assert.equal(r.code, 2);
      assert.match(r.stderr, /1-2-user-login in _bmad-output\/implementation-artifacts\/sprint-status\.yaml: status ready-for-dev → done/);
      r = await claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: ledger, old_string: '  1-1-sign-up: done\n', new_string: '' } });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /removes 1-1-sign-up \(done\)/);
      r = await claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: ledger, old_string: '1-1-sign-up: done', new_string: '1-1-sign-up: in-progress' } });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /a completed workflow cannot be reopened/);
      r = await claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: ledger, old_string: 'development_status:', new_string: 'development_status: [' } });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /leaves .*sprint-status\.yaml unreadable/);
      // Epics and retrospectives move by their own words.
      r = await claude(root, 'PreToolUse', { tool_name: 'Edit', tool_input: { file_path: ledger, old_string: 'epic-1-retrospective: optional', new_string: 'epic-1-retrospective: done' } });
      assert.equal(r.code, 0, r.stderr);
    } finally {
      cleanup(root);
    }
  });
});
