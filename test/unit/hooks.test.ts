import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claude, cleanup, featureWorkspace, runCliProcess, tempWorkspace, treeDigest, write, PLAN } from './hooksHelpers';

const edit = (file: string, oldString: string, newString: string, replaceAll?: boolean) => ({ tool_name: 'Edit', tool_input: { file_path: file, old_string: oldString, new_string: newString, ...(replaceAll ? { replace_all: true } : {}) }, tool_use_id: 'toolu_01' });

describe('waymark hook claude-code: PreToolUse', () => {
  test('edits of files without state pass at once, with no output and nothing written', async () => {
    const root = featureWorkspace();
    try {
      const before = treeDigest(root);
      const r = await claude(root, 'PreToolUse', edit(path.join(root, 'src/app.ts'), 'x = 1', 'x = 2'));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, '');
      const body = await claude(root, 'PreToolUse', edit(path.join(root, 'docs/plan.md'), 'Body text.', 'Longer body text.'));
      assert.equal(body.code, 0, body.stderr);
      assert.equal(body.stderr, '');
      // An allowed edit of a state file keeps the text it had, for the check after the edit.
      const after = treeDigest(root);
      const added = Object.keys(after).filter((k) => !(k in before));
      assert.deepEqual(added.map((k) => k.replace(/before-\w+/, 'before-X')), [path.join('.waymark', 'cache', 'hooks', 'before-X.json')]);
    } finally {
      cleanup(root);
    }
  });

  test('a gated step marked done without a verdict is refused with exit 2, the fix on stderr, nothing written', async () => {
    const root = featureWorkspace();
    try {
      const before = treeDigest(root);
      const r = await claude(root, 'PreToolUse', edit(path.join(root, 'docs/plan.md'), 'stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /Waymark refused this edit of docs\/plan\.md/);
      assert.match(r.stderr, /step design is gated and its gate design has no verdict yet/);
      assert.match(r.stderr, /fix: record the gate first: waymark gate pass docs\/plan\.md design/);
      // The same reason as a deny on stdout (Claude Code reads no JSON on exit 2; Copilot CLI, running these hooks, merges it: hooks39).
      assert.equal(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason, r.stderr.trimEnd());
      assert.deepEqual(treeDigest(root), before);
    } finally {
      cleanup(root);
    }
  });

  test('Write, MultiEdit and replace_all are applied as the tools do before judging', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      const before = treeDigest(root);
      // Write: a completed workflow reopened in one new content.
      let r = await claude(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: file, content: PLAN.replace('stepsCompleted: [discovery]', 'stepsCompleted: []') } });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /removes completed step discovery/);
      assert.match(r.stderr, /waymark delegate docs\/plan\.md --agent NAME/);
      // MultiEdit: the second edit is the bad one (status back to created).
      r = await claude(root, 'PreToolUse', { tool_name: 'MultiEdit', tool_input: { file_path: file, edits: [{ old_string: 'Body text.', new_string: 'Body.' }, { old_string: 'status: in_progress', new_string: 'status: created' }] } });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /status in_progress → created: a workflow cannot go back to created/);
      // replace_all over both occurrences of "design" (currentStep and nothing else) is fine.
      r = await claude(root, 'PreToolUse', edit(file, 'Body', 'Text', true));
      assert.equal(r.code, 0, r.stderr);
      // old_string not found: the tool will fail on its own, nothing to judge.
      r = await claude(root, 'PreToolUse', edit(file, 'no such text', 'status: completed'));
      assert.equal(r.code, 0);
      assert.match(r.stderr, /will not apply/);
      for (const k of Object.keys(before)) assert.equal(treeDigest(root)[k], before[k], k);
    } finally {
      cleanup(root);
    }
  });

  test('a YAML error that hides the state, an unknown status and a rewind are refused', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      let r = await claude(root, 'PreToolUse', edit(file, 'status: in_progress', 'status: [in_progress'));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /leaves docs\/plan\.md unreadable: YAML syntax error/);
      assert.match(r.stderr, /keep the frontmatter valid YAML/);
      r = await claude(root, 'PreToolUse', edit(file, 'status: in_progress', 'status: finished'));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /status 'finished' is not a status Waymark knows/);
      r = await claude(root, 'PreToolUse', edit(file, '---\nworkflow: feature\nstatus: in_progress\ncurrentStep: design\nstepsCompleted: [discovery]\n---\n', ''));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /removes the workflow state/);
    } finally {
      cleanup(root);
    }
  });

  test('a lease held by another session refuses the edit; the holder may edit', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      const lease = await runCliProcess(['lease', 'acquire', 'docs/plan.md', '--actor', 'orchestrator', '--session', 'other-session'], '', { cwd: root });
      assert.equal(lease.code, 0, lease.stderr);
      let r = await claude(root, 'PreToolUse', edit(file, 'status: in_progress', 'status: blocked\nblockedReason: waiting'));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /docs\/plan\.md is leased to orchestrator \(session other-session/);
      assert.match(r.stderr, /waymark lease takeover docs\/plan\.md/);
      r = await claude(root, 'PreToolUse', edit(file, 'status: in_progress', 'status: blocked\nblockedReason: waiting'), 'other-session');
      assert.equal(r.code, 0, r.stderr);
    } finally {
      cleanup(root);
    }
  });

  test("direct edits of Waymark's records (a gate verdict) are refused", async () => {
    const root = featureWorkspace();
    try {
      const r = await claude(root, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(root, '.waymark/gates/plan/design.gate'), content: 'gate: PASS\n' } });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /is a Waymark record/);
      assert.match(r.stderr, /waymark gate pass\|concerns\|fail\|waive FILE STEP --by NAME/);
      assert.equal(fs.existsSync(path.join(root, '.waymark/gates')), false);
    } finally {
      cleanup(root);
    }
  });

  test('Bash: a shell write naming a state file is refused; reading it or running waymark passes', async () => {
    const root = featureWorkspace();
    try {
      const before = treeDigest(root);
      for (const command of ["sed -i 's/design/implement/' docs/plan.md", 'echo "status: completed" >> docs/plan.md', 'cat > docs/plan.md <<EOF\n---\nworkflow: feature\n---\nEOF', 'printf x | tee docs/plan.md', 'cd . && mv docs/plan.md docs/old.md', 'cp /tmp/x.md docs/plan.md', 'git checkout -- docs/plan.md']) {
        const r = await claude(root, 'PreToolUse', { tool_name: 'Bash', tool_input: { command, description: 'edit' } });
        assert.equal(r.code, 2, command);
        assert.match(r.stderr, /it writes docs\/plan\.md, which holds workflow state, by shell/, command);
      }
      for (const command of ['cat docs/plan.md', 'grep -n status docs/plan.md', 'waymark advance docs/plan.md', "sed -i 's/1/2/' src/app.ts", 'echo hi > notes.md', 'grep -n status docs/plan.md > /tmp/status.txt', 'cp docs/plan.md docs/plan-copy.md', "sed -n '1,5p' docs/plan.md | tee /tmp/head.md"]) {
        const r = await claude(root, 'PreToolUse', { tool_name: 'Bash', tool_input: { command } });
        assert.equal(r.code, 0, `${command}: ${r.stderr}`);
      }
      assert.deepEqual(treeDigest(root), before);
    } finally {
      cleanup(root);
    }
  });

  test('paths outside the workspace pass with a note; malformed input is a clear non-blocking error', async () => {
    const root = featureWorkspace();
    // A folder that is no workspace (no marker at or above it). A file in another workspace is judged
    // by that workspace's rules (red29.test.ts).
    const elsewhere = tempWorkspace();
    write(elsewhere, 'docs/plan.md', PLAN);
    try {
      const before = treeDigest(root);
      const out = await claude(root, 'PreToolUse', edit(path.join(elsewhere, 'docs/plan.md'), 'stepsCompleted: [discovery]', 'stepsCompleted: []'));
      assert.equal(out.code, 0);
      assert.match(out.stderr, /is outside the workspace .*; not checked/);
      // A link inside the workspace to a state file elsewhere is judged by its real path: not ours.
      fs.symlinkSync(path.join(elsewhere, 'docs/plan.md'), path.join(root, 'docs/linked.md'));
      const linked = await claude(root, 'PreToolUse', edit(path.join(root, 'docs/linked.md'), 'stepsCompleted: [discovery]', 'stepsCompleted: []'));
      assert.equal(linked.code, 0, linked.stderr);
      assert.match(linked.stderr, /outside the workspace/);
      fs.unlinkSync(path.join(root, 'docs/linked.md'));
      for (const [input, why] of [
        ['{"hook_event_name": "PreToolUse", "tool_name": "Edit", ', /not valid JSON/],
        ['[1, 2]', /must be a JSON object/],
        [JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: 7 } }), /tool_input\.file_path must be a string/],
        [JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'MultiEdit', tool_input: { file_path: '/x.md', edits: 'no' } }), /tool_input\.edits must be a list/],
        ['', /not valid JSON/],
      ] as const) {
        const r = await runCliProcess(['hook', 'claude-code'], input, { cwd: root });
        assert.equal(r.code, 1, input);
        assert.match(r.stderr, why, input);
        assert.match(r.stderr, /^waymark hook: .*The event was not checked\.\n$/s);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      }
      // --fail-closed refuses a change it could not check; unknown options are usage errors.
      const closed = await runCliProcess(['hook', 'claude-code', '--fail-closed'], JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: root, tool_name: 'Write', tool_input: { file_path: path.join(root, 'docs/plan.md'), content: 7 } }), { cwd: root });
      assert.equal(closed.code, 2, 'an event that could not be checked is refused under --fail-closed');
      assert.match(closed.stderr, /tool_input\.content must be a string.*refused because the hook runs with --fail-closed/s);
      const unknown = await runCliProcess(['hook', 'claude-code', '--fail-open'], '{}', { cwd: root });
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown option --fail-open/);
      assert.deepEqual(treeDigest(root), before);
    } finally {
      cleanup(root);
      cleanup(elsewhere);
    }
  });
});

describe('waymark hook claude-code: after the edit, session start, stop', () => {
  test('PostToolUse records the edit in history and the events log with the session id; new warnings go to the model', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      const pass = await runCliProcess(['gate', 'pass', 'docs/plan.md', 'design', '--by', 'maria'], '', { cwd: root });
      assert.equal(pass.code, 0, pass.stderr);
      const e = edit(file, 'currentStep: design\nstepsCompleted: [discovery]', 'currentStep: implement\nstepsCompleted: [discovery, design]');
      let r = await claude(root, 'PreToolUse', e, 'sess-42');
      assert.equal(r.code, 0, r.stderr);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(e.tool_input.old_string, e.tool_input.new_string));
      r = await claude(root, 'PostToolUse', { ...e, tool_response: { filePath: file, success: true } }, 'sess-42');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '');
      const hist = fs.readFileSync(path.join(root, '.waymark/history/docs/plan.md.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const last = hist[hist.length - 1];
      assert.equal(last.operation, 'agent-edit');
      assert.equal(last.actor, 'claude-code');
      assert.equal(last.session, 'sess-42');
      assert.deepEqual(last.to.stepsCompleted, ['discovery', 'design']);
      assert.deepEqual(last.from.stepsCompleted, ['discovery']);
      const events = fs.readFileSync(path.join(root, '.waymark/events/events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(events[events.length - 1].type, 'workflow.agent-edit');
      assert.equal(events[events.length - 1].session, 'sess-42');
      assert.equal(fs.readdirSync(path.join(root, '.waymark/cache/hooks')).length, 0, 'the snapshot is taken');
      // Completing implement without moving currentStep: allowed, but the model hears about it.
      const e2 = edit(file, 'stepsCompleted: [discovery, design]', 'stepsCompleted: [discovery, design, implement]');
      assert.equal((await claude(root, 'PreToolUse', e2, 'sess-42')).code, 0);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(e2.tool_input.old_string, e2.tool_input.new_string));
      r = await claude(root, 'PostToolUse', e2, 'sess-42');
      const out = JSON.parse(r.stdout);
      assert.equal(out.hookSpecificOutput.hookEventName, 'PostToolUse');
      assert.match(out.hookSpecificOutput.additionalContext, /currentStep is implement, which is already done/);
      assert.equal(out.decision, undefined, 'a warning does not block');
    } finally {
      cleanup(root);
    }
  });

  test('PostToolUse after a shell write that broke the rules tells the model (decision block)', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      // A first recorded state, as a Waymark write leaves it.
      assert.equal((await runCliProcess(['scope', 'docs/plan.md', 'small'], '', { cwd: root })).code, 0);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]'));
      const r = await claude(root, 'PostToolUse', { tool_name: 'Bash', tool_input: { command: "python3 fix.py docs/plan.md" }, tool_response: { stdout: '', stderr: '', interrupted: false } });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.decision, 'block');
      assert.match(out.reason, /the change to docs\/plan\.md breaks the workflow rules/);
      // Judged against the state history last recorded: design was not done then, and its gate has no verdict.
      assert.match(out.reason, /step design is gated and its gate design has no verdict yet\n  fix: record the gate first: waymark gate pass docs\/plan\.md design/);
      const hist = fs.readFileSync(path.join(root, '.waymark/history/docs/plan.md.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(hist[hist.length - 1].operation, 'agent-edit');
    } finally {
      cleanup(root);
    }
  });

  test('SessionStart gives where to continue and the open gates as context', async () => {
    const root = featureWorkspace();
    try {
      const r = await claude(root, 'SessionStart', { source: 'startup' });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
      const ctx: string = out.hookSpecificOutput.additionalContext;
      assert.match(ctx, /docs\/plan\.md \(feature\): continue at design — tier 1/);
      assert.match(ctx, /gate design of docs\/plan\.md \(step design\) is without a verdict: a reviewer records it with waymark gate pass docs\/plan\.md design/);
    } finally {
      cleanup(root);
    }
  });

  test('Stop with a partial completion write keeps the agent going once; a held lease is said', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      assert.equal((await claude(root, 'Stop', { stop_hook_active: false }, 's9')).stdout, '', 'nothing written by this session: silent');
      assert.equal((await runCliProcess(['gate', 'pass', 'docs/plan.md', 'design', '--by', 'maria'], '', { cwd: root })).code, 0);
      const e = edit(file, 'stepsCompleted: [discovery]', 'stepsCompleted: [discovery, design]');
      assert.equal((await claude(root, 'PreToolUse', e, 's9')).code, 0);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(e.tool_input.old_string, e.tool_input.new_string));
      assert.equal((await claude(root, 'PostToolUse', e, 's9')).code, 0);
      let r = await claude(root, 'Stop', { stop_hook_active: false }, 's9');
      let out = JSON.parse(r.stdout);
      assert.equal(out.decision, 'block');
      assert.match(out.reason, /currentStep is design, which is already done; the completion write did not move it to implement/);
      r = await claude(root, 'SubagentStop', { stop_hook_active: true, agent_id: 'x', agent_type: 'dev' }, 's9');
      out = JSON.parse(r.stdout);
      assert.equal(out.decision, undefined, 'never loops');
      assert.match(out.systemMessage, /sub-agent stops with/);
      assert.equal((await runCliProcess(['lease', 'acquire', 'docs/plan.md', '--actor', 'claude-code', '--session', 's9'], '', { cwd: root })).code, 0);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('currentStep: design', 'currentStep: implement'));
      r = await claude(root, 'Stop', { stop_hook_active: false }, 's9');
      out = JSON.parse(r.stdout);
      assert.equal(out.decision, undefined, 'a held lease alone does not keep the agent going');
      assert.match(out.systemMessage, /still holds the lease on docs\/plan\.md/);
      assert.match(out.systemMessage, /waymark lease release docs\/plan\.md --session s9/);
    } finally {
      cleanup(root);
    }
  });

  test('events Waymark has nothing to say about pass silently', async () => {
    const root = featureWorkspace();
    try {
      for (const [ev, extra] of [['PreToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(root, 'docs/plan.md') } }], ['UserPromptSubmit', { prompt: 'hi' }], ['Notification', { message: 'x' }]] as const) {
        const r = await claude(root, ev, extra);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout + r.stderr, '');
      }
    } finally {
      cleanup(root);
    }
  });
});

describe('waymark hook gemini', () => {
  const gemini = (root: string, event: string, extra: Record<string, unknown>) =>
    runCliProcess(['hook', 'gemini'], JSON.stringify({ session_id: 'g-1', transcript_path: '/tmp/t.json', cwd: root, hook_event_name: event, timestamp: '2026-11-23T10:00:00Z', ...extra }), { cwd: root, env: { CLAUDE_PROJECT_DIR: undefined } });

  test('BeforeTool replace/write_file/run_shell_command: a JSON deny with the reason; allowed calls answer {}', async () => {
    const root = featureWorkspace();
    const file = path.join(root, 'docs/plan.md');
    try {
      write(root, '.git/HEAD', 'ref: refs/heads/main\n');
      const before = treeDigest(root);
      let r = await gemini(root, 'BeforeTool', { tool_name: 'replace', tool_input: { file_path: file, old_string: 'stepsCompleted: [discovery]', new_string: 'stepsCompleted: [discovery, design]' } });
      assert.equal(r.code, 0);
      let out = JSON.parse(r.stdout);
      assert.equal(out.decision, 'deny');
      assert.match(out.reason, /record the gate first: waymark gate pass docs\/plan\.md design/);
      r = await gemini(root, 'BeforeTool', { tool_name: 'run_shell_command', tool_input: { command: 'sed -i s/a/b/ docs/plan.md' } });
      assert.equal(JSON.parse(r.stdout).decision, 'deny');
      r = await gemini(root, 'BeforeTool', { tool_name: 'write_file', tool_input: { file_path: path.join(root, 'src/app.ts'), content: 'x' } });
      assert.deepEqual(JSON.parse(r.stdout), {});
      // expected_replacements that does not match the occurrences: older builds fail, current ones
      // (allow_multiple, and a loose match when the exact one fails) may land anywhere: refused on state (hooks39).
      r = await gemini(root, 'BeforeTool', { tool_name: 'replace', tool_input: { file_path: file, old_string: 'in_progress', new_string: 'created', expected_replacements: 2 } });
      assert.match(JSON.parse(r.stdout).reason, /matches it loosely/);
      assert.deepEqual(treeDigest(root), before);
      r = await gemini(root, 'SessionStart', { source: 'startup' });
      out = JSON.parse(r.stdout);
      assert.match(out.hookSpecificOutput.additionalContext, /continue at design/);
    } finally {
      cleanup(root);
    }
  });
});
