import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanup, runCliProcess, tempWorkspace, write } from './hooksHelpers';

const OTHERS = `{
    "permissions": {
        "allow": ["Bash(npm test)"]
    },
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [
                    { "type": "command", "command": "prettier --write \\"$CLAUDE_PROJECT_DIR\\"" }
                ]
            }
        ],
        "Notification": [
            { "hooks": [ { "type": "command", "command": "notify-send done" } ] }
        ]
    },
    "model": "opus"
}
`;

describe('waymark hook install|uninstall claude-code|gemini', () => {
  test("writes exactly its entries, keeps others' hooks, keys and indentation; uninstall restores the file", async () => {
    const root = tempWorkspace();
    try {
      fs.mkdirSync(path.join(root, '.git'));
      const file = write(root, '.claude/settings.json', OTHERS);
      let r = await runCliProcess(['hook', 'install', 'claude-code'], '', { cwd: path.join(root, '.claude') });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /installed: PreToolUse, PostToolUse, SessionStart, Stop, SubagentStop hooks/);
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /^\{\n {4}"permissions"/, 'four-space indentation kept');
      const s = JSON.parse(text);
      assert.deepEqual(Object.keys(s), ['permissions', 'hooks', 'model']);
      assert.deepEqual(Object.keys(s.hooks), ['PostToolUse', 'Notification', 'PreToolUse', 'SessionStart', 'Stop', 'SubagentStop']);
      assert.equal(s.hooks.PostToolUse.length, 2);
      assert.equal(s.hooks.PostToolUse[0].hooks[0].command, 'prettier --write "$CLAUDE_PROJECT_DIR"');
      assert.deepEqual(s.hooks.PreToolUse, [{ matcher: 'Edit|Write|MultiEdit|Bash|mcp__.*', hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 30 }] }]);
      assert.deepEqual(s.hooks.SessionStart, [{ hooks: [{ type: 'command', command: 'waymark hook claude-code', timeout: 60 }] }]);
      r = await runCliProcess(['hook', 'install', 'claude-code'], '', { cwd: root });
      assert.match(r.stdout, /^unchanged/);
      assert.equal(fs.readFileSync(file, 'utf8'), text, 'a second install changes nothing');
      r = await runCliProcess(['hook', 'uninstall', 'claude-code'], '', { cwd: root });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /removed 5 waymark hook entries/);
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), JSON.parse(OTHERS));
      assert.match((await runCliProcess(['hook', 'uninstall', 'claude-code'], '', { cwd: root })).stdout, /nothing to remove/);
    } finally {
      cleanup(root);
    }
  });

  test('a missing settings file is created; invalid JSON is refused with nothing written; gemini goes to .gemini/settings.json', async () => {
    const root = tempWorkspace();
    try {
      fs.mkdirSync(path.join(root, '.waymark'));
      let r = await runCliProcess(['hook', 'install', 'claude-code', '--command', 'node /opt/waymark/dist/cli.js'], '', { cwd: root });
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8'));
      assert.equal(s.hooks.Stop[0].hooks[0].command, 'node /opt/waymark/dist/cli.js hook claude-code');
      r = await runCliProcess(['hook', 'install', 'gemini'], '', { cwd: root });
      assert.equal(r.code, 0, r.stderr);
      const g = JSON.parse(fs.readFileSync(path.join(root, '.gemini/settings.json'), 'utf8'));
      assert.deepEqual(g.hooks.BeforeTool, [{ matcher: 'write_file|replace|run_shell_command|mcp_.*|.+__.+', hooks: [{ type: 'command', command: 'waymark hook gemini', timeout: 30000, name: 'waymark-BeforeTool' }] }]);
      const bad = write(root, '.claude/settings.json', '{ "hooks": { ,, }\n');
      r = await runCliProcess(['hook', 'install', 'claude-code'], '', { cwd: root });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /settings\.json is not valid JSON .*fix it first.*Nothing was changed/);
      assert.equal(fs.readFileSync(bad, 'utf8'), '{ "hooks": { ,, }\n');
      assert.equal((await runCliProcess(['hook', 'install', 'windsurf'], '', { cwd: root })).code, 2);
      assert.equal((await runCliProcess(['hook', 'install', 'claude-code', '--force-it'], '', { cwd: root })).code, 2);
    } finally {
      cleanup(root);
    }
  });
});

describe('hook install|uninstall for every agent: only exactly Waymark\'s entries, byte for byte', () => {
  const OTHER_TOOLS = `{
  "big": 12345678901234567890,
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "node ./node_modules/otherguard/dist/cli.js hook claude-code" } ] },
      { "hooks": [ { "type": "command", "command": "./audit.sh && waymark hook claude-code" } ] }
    ]
  }
}
`;

  test('other tools\' commands that mention the hook stay; a big integer keeps its digits; uninstall gives back the bytes', async () => {
    const root = tempWorkspace();
    try {
      fs.mkdirSync(path.join(root, '.git'));
      const file = write(root, '.claude/settings.json', OTHER_TOOLS);
      let r = await runCliProcess(['hook', 'install', 'claude-code'], '', { cwd: root });
      assert.equal(r.code, 0, r.stderr);
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /"big": 12345678901234567890,/);
      assert.ok(text.includes('node ./node_modules/otherguard/dist/cli.js hook claude-code') && text.includes('./audit.sh && waymark hook claude-code'));
      assert.equal(JSON.parse(text).hooks.PreToolUse.length, 3);
      r = await runCliProcess(['hook', 'uninstall', 'claude-code'], '', { cwd: root });
      assert.match(r.stdout, /removed 5 waymark hook entries/);
      assert.equal(fs.readFileSync(file, 'utf8'), OTHER_TOOLS, 'byte-exact');
      assert.match((await runCliProcess(['hook', 'uninstall', 'claude-code'], '', { cwd: root })).stdout, /nothing to remove/);
    } finally {
      cleanup(root);
    }
  });

  test('codex, copilot and cursor: their documented files; a file install created is removed by uninstall', async () => {
    const root = tempWorkspace();
    try {
      fs.mkdirSync(path.join(root, '.git'));
      const cursorOwn = '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [\n      { "command": "./hooks/format.sh" }\n    ]\n  }\n}\n';
      write(root, '.cursor/hooks.json', cursorOwn);
      for (const agent of ['codex', 'copilot', 'cursor']) {
        const r = await runCliProcess(['hook', 'install', agent], '', { cwd: root });
        assert.equal(r.code, 0, r.stderr);
      }
      const codex = JSON.parse(fs.readFileSync(path.join(root, '.codex/hooks.json'), 'utf8'));
      assert.deepEqual(codex.hooks.PreToolUse, [{ matcher: 'Bash|apply_patch|mcp__.*', hooks: [{ type: 'command', command: 'waymark hook codex', timeout: 30 }] }]);
      const copilot = JSON.parse(fs.readFileSync(path.join(root, '.github/hooks/waymark.json'), 'utf8'));
      assert.equal(copilot.version, 1);
      assert.deepEqual(copilot.hooks.preToolUse, [{ type: 'command', command: 'waymark hook copilot', bash: 'waymark hook copilot', timeout: 30, timeoutSec: 30 }]);
      const cursor = JSON.parse(fs.readFileSync(path.join(root, '.cursor/hooks.json'), 'utf8'));
      assert.deepEqual(cursor.hooks.preToolUse, [{ command: 'waymark hook cursor', matcher: 'Write|StrReplace|Edit|MultiEdit|Delete' }]);
      assert.deepEqual(cursor.hooks.afterFileEdit, [{ command: './hooks/format.sh' }, { command: 'waymark hook cursor' }]);
      assert.deepEqual(Object.keys(cursor.hooks), ['afterFileEdit', 'preToolUse', 'beforeShellExecution', 'beforeMCPExecution', 'afterMCPExecution', 'afterShellExecution', 'sessionStart', 'stop']);
      for (const agent of ['codex', 'copilot', 'cursor']) {
        const r = await runCliProcess(['hook', 'uninstall', agent], '', { cwd: root });
        assert.equal(r.code, 0, r.stderr);
      }
      assert.equal(fs.existsSync(path.join(root, '.codex/hooks.json')), false, 'created by install, removed by uninstall');
      assert.equal(fs.existsSync(path.join(root, '.github/hooks/waymark.json')), false);
      assert.equal(fs.readFileSync(path.join(root, '.cursor/hooks.json'), 'utf8'), cursorOwn, 'byte-exact');
    } finally {
      cleanup(root);
    }
  });
});
