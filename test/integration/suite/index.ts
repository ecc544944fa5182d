// Entry the extension host calls (the contract @vscode/test-electron and the code-server
// runner share): runs every *.test.js next to this file with mocha's tdd ui and reports each
// test as a `[waymark-test]` line and the totals as one `[waymark-result]` JSON line.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';

class LineReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, (t) => {
      passed++;
      console.log(`[waymark-test] ✓ ${t.fullTitle()} (${t.duration ?? 0} ms)`);
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (t, err: Error) => {
      failed++;
      const detail = String(err?.stack ?? err).split('\n').slice(0, 14).map((l) => `[waymark-test]     ${l}`);
      console.log([`[waymark-test] ✗ ${t.fullTitle()}`, ...detail].join('\n'));
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      console.log(`[waymark-result] ${JSON.stringify({ passed, failed })}`);
    });
  }
}

/**
 * A `.code-workspace` opened in VS Code for the Web (code-server) can start the extension host
 * before the workspace file is read: the folders come from a browser-side cache (empty in a
 * fresh browser profile) and arrive later as a folder change. The suites pick what to run by
 * the folders open when they load, so wait for them (bounded) before loading any.
 */
async function workspaceSettled(timeoutMs = 90_000): Promise<void> {
  const file = vscode.workspace.workspaceFile;
  if (!file || file.scheme === 'untitled' || (vscode.workspace.workspaceFolders?.length ?? 0) > 0) return;
  const started = Date.now();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      sub.dispose();
      resolve();
    }, timeoutMs);
    const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (!vscode.workspace.workspaceFolders?.length) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
  const n = vscode.workspace.workspaceFolders?.length ?? 0;
  console.log(`[waymark-test] the workspace file's ${n} folder(s) arrived ${Date.now() - started} ms after the suite started${n ? '' : ' (none: timed out)'}`);
}

export async function run(): Promise<void> {
  await workspaceSettled();
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, reporter: LineReporter as unknown as typeof Mocha.reporters.Base });
  const dir = __dirname;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  const only = process.env.WAYMARK_IT_GREP;
  if (only) mocha.grep(only);
  for (const f of files) mocha.addFile(path.join(dir, f));
  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
    } catch (e) {
      reject(e);
    }
  });
}
