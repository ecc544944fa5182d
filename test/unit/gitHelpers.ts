// What the tests that build real git repositories share: the CLI under test, an environment
// that makes git deterministic (author, no system config, no editor), temp folders removed after
// the file's tests, and `git` itself.
import { after } from 'node:test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';

export const CLI = path.resolve('dist/cli.js');

export const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1', GIT_EDITOR: 'true' };

/** Folders to remove once the file's tests are done (push yours). */
export const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A new temp folder (by its real path), removed after the tests. */
export function tempDir(prefix: string): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(d);
  return d;
}

/** Runs git in `cwd`; throws with its stderr when it fails. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}
