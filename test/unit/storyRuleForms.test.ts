/**
 * The rules agent hooks and `waymark story set-status` apply to a story file's status read the
 * status as the reader does, in every form real projects write it: a `## Status` section whose
 * first line is the word, a `## Status: done` heading, an emoji before the word, words of more
 * than one part (`Ready for Review`), frontmatter and a Status line together. A form the rules
 * did not read was an edit no rule judged (ready-for-dev → done with every task open passed), or
 * a word read by its first part (`Ready for Review` → done refused as never started).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { judgeStoryChange, storyStatus } from '../../src/core/model/bmadProposal';
import { looksLikeState } from '../../src/hooks/quickCheck';
import { workspace } from './fileHelpers';

const CLI = path.resolve('dist/cli.js');
const story = (status: string, tasks: string) => `# Story 1.1: Login\n\n${status}\n\n## Story\n\nAs a user, I want to log in, so that I see my things.\n\n## Tasks / Subtasks\n\n${tasks}`;
const OPEN = '- [ ] Build the form\n- [ ] Wire the API\n';
const TICKED = '- [x] Build the form\n- [x] Wire the API\n';
const codes = (before: string | undefined, after: string) => judgeStoryChange(before, after, 'docs/stories/1.1.story.md').filter((p) => p.severity === 'error').map((p) => p.code);

describe('story rules read every status form the reader reads', () => {
  test('a `## Status` section: ready for development → Done with every task open is refused', () => {
    const c = codes(story('## Status\n\nReady for Development', OPEN), story('## Status\n\nDone', OPEN));
    assert.ok(c.includes('story-done-tasks-open'), String(c));
    assert.ok(c.length >= 2, `also refused as done without review: ${c}`);
  });

  test('`Ready for Review` is review: → Done with the tasks ticked passes; → Draft goes back and is refused', () => {
    assert.deepEqual(codes(story('**Status**: Ready for Review', TICKED), story('**Status**: Done', TICKED)), []);
    assert.deepEqual(codes(story('**Status**: Ready for Review', TICKED), story('**Status**: Draft', TICKED)), ['status-transition']);
  });

  test('an emoji before the word, a `## Status: done` heading: done moved back to in progress is refused', () => {
    assert.deepEqual(codes(story('Status: ✅ Done', TICKED), story('Status: 🚧 In Progress', TICKED)), ['status-transition']);
    assert.deepEqual(codes(story('## Status: Done', TICKED), story('## Status: In Progress', TICKED)), ['status-transition']);
  });

  test('a word read whole: `Done` with a remark after it; a set-aside word (On Hold) is not an unknown status, but done set aside reopens nothing', () => {
    assert.deepEqual(codes(story('Status: review', TICKED), story('Status: Done - merged in #42', TICKED)), []);
    assert.deepEqual(codes(story('Status: in-progress', OPEN), story('Status: On Hold', OPEN)), []);
    assert.deepEqual(codes(story('Status: done', TICKED), story('Status: On Hold', TICKED)), ['status-transition']);
    assert.deepEqual(codes(story('Status: in-progress', OPEN), story('Status: Wibble', OPEN)), ['status-unknown']);
  });

  test('frontmatter and a Status line: the statement further along is the story\'s, and the line is the one it is on', () => {
    const before = `---\nstatus: done\n---\n${story('Status: ready-for-dev', TICKED)}`;
    assert.deepEqual(codes(before, before.replace('Status: ready-for-dev', 'Status: done')), []);
    const s = storyStatus(story('## Status\n\nReady for Review', TICKED));
    assert.deepEqual(s && { status: s.status, line: s.line }, { status: 'review', line: 5 });
  });

  test('the hook\'s fast path sends a story to the full check in every status form, and a story-named file without the heading', () => {
    for (const t of ['# Story 1.1: X\n\n## Status\n\nDone\n', '# Story 1.1: X\n\n## Status: Done\n', '# Story 1.1: X\n\n- **Status:** Done\n', '# Story 1.1: X\n\n**Current Status:** review\n', '# Story 1.1: X\n\n> Status: review\n', '---\nstatus: review\n---\n# Story 1.1: X\n', '# Story 1.1: X\n\nSTATUS - done\n']) {
      assert.equal(looksLikeState(t), true, t);
    }
    for (const name of ['docs/stories/1.1.story.md', 'docs/stories/1.1.md', '_bmad-output/implementation-artifacts/3a-2-login.md', 'docs/story-2.1.md']) {
      assert.equal(looksLikeState('# 1.1: Login\n\n## Status\n\nDraft\n', name), true, name);
    }
    assert.equal(looksLikeState('# 1.1: Login\n\n## Status\n\nDraft\n', 'docs/notes.md'), false);
    assert.equal(looksLikeState('# Notes\n\nStatus: fine\n'), false);
  });

  test('through `waymark hook claude-code`: an Edit of a `## Status` section to Done with tasks open is refused, naming the command', () => {
    const dir = workspace({ '.bmad-core/core-config.yaml': 'devStoryLocation: docs/stories\n', 'docs/stories/1.1.story.md': story('## Status\n\nReady for Development', OPEN) }, { prefix: 'wm-storyforms-', waymark: false });
    const file = path.join(dir, 'docs/stories/1.1.story.md');
    const payload = { session_id: 's1', cwd: dir, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: file, old_string: 'Ready for Development', new_string: 'Done' } };
    const r = spawnSync(process.execPath, [CLI, 'hook', 'claude-code'], { input: JSON.stringify(payload), encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /tasks? still open/);
    assert.match(r.stderr, /waymark story/);
  });
});
