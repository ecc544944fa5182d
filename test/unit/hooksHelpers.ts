import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { quickCheck } from '../../src/hooks/quickCheck';
import { runHook } from '../../src/hooks/run';
import type { HookAdapter, HookOutput } from '../../src/hooks/port';

export function tempWorkspace(prefix = 'waymark-hooks-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function cleanup(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function write(root: string, rel: string, text: string): string {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
  return abs;
}

/** Every file under `dir` with the SHA-256 of its bytes: compare two to prove nothing was written. */
export function treeDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (dist/cli.js) with `stdin` as its input. */
export function runCliProcess(args: string[], stdin: string, opts: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...opts.env };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const p = spawn(process.execPath, [path.resolve('dist/cli.js'), ...args], { cwd: opts.cwd ?? process.cwd(), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(stdin);
  });
}

/** A Claude Code hook event in the shape Claude Code sends (hooks reference). */
export function claudeEvent(root: string, event: string, extra: Record<string, unknown>, session = 'a1b2c3-session'): string {
  return JSON.stringify({ session_id: session, transcript_path: path.join(root, '.claude', 'transcript.jsonl'), cwd: root, permission_mode: 'default', hook_event_name: event, ...extra });
}

export function claude(root: string, event: string, extra: Record<string, unknown>, session?: string): Promise<Run> {
  return runCliProcess(['hook', 'claude-code'], claudeEvent(root, event, extra, session), { cwd: root, env: { CLAUDE_PROJECT_DIR: root, WAYMARK_ACTOR: undefined, WAYMARK_SESSION: undefined } });
}

export const DEFINITION = 'steps:\n  - discovery\n  - {id: design, gate: true}\n  - implement\n  - review\n';

export const PLAN = '---\nworkflow: feature\nstatus: in_progress\ncurrentStep: design\nstepsCompleted: [discovery]\n---\n# Plan\n\nBody text.\n';

/** A workspace with one native workflow (gate on design) in docs/plan.md. */
export function featureWorkspace(): string {
  const root = tempWorkspace();
  write(root, '.waymark/workflows/feature.yaml', DEFINITION);
  write(root, 'docs/plan.md', PLAN);
  write(root, 'src/app.ts', 'export const x = 1;\n');
  return root;
}

/** What the launcher does with one event: the fast path's answer, else the full check. */
export async function answer(adapter: HookAdapter, payload: unknown): Promise<HookOutput> {
  const text = JSON.stringify(payload);
  const event = adapter.parse(JSON.parse(text), {});
  const q = quickCheck(event);
  if (q.verdict === 'pass') return adapter.render(event, { kind: 'allow', note: q.note });
  return runHook(adapter, text, {}, false);
}
