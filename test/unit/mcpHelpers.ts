// Real `waymark mcp` processes driven by the SDK's own Client over stdio.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BUILT_CLI = path.resolve('dist/cli.js');
export const NODE_MODULES = path.resolve('node_modules');
const tmps: string[] = [];
let cli: string | undefined;

export function tmpDir(prefix = 'waymark-mcp-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmps.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of tmps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/**
 * The bundled CLI, copied to a private folder so a rebuild of dist/ meanwhile cannot change it
 * under the running servers (NODE_PATH lets the copy find the native kuzu module).
 */
export function cliPath(): string {
  if (cli) return cli;
  if (!fs.existsSync(BUILT_CLI)) spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
  const dir = tmpDir('waymark-mcp-cli-');
  cli = path.join(dir, 'cli.js');
  fs.copyFileSync(BUILT_CLI, cli);
  // cli.js is the launcher; it loads its sibling bundles (cli-main.js, cli-hook.js, cli-sh.js, ...).
  for (const name of fs.readdirSync(path.dirname(BUILT_CLI))) if (/^cli-[\w-]+\.js$/.test(name)) fs.copyFileSync(path.join(path.dirname(BUILT_CLI), name), path.join(dir, name));
  return cli;
}

export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WAYMARK_')) env[k] = v;
  return { ...env, NODE_PATH: NODE_MODULES, ...extra };
}

export interface Server {
  client: Client;
  /** The server process's id. */
  pid: number | null;
  stderr: () => string;
  close(): Promise<void>;
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; data: any; text: string }>;
}

/** Starts `waymark mcp` (with --root unless `args` says otherwise) and connects a Client. */
export async function startServer(root: string | undefined, opts: { args?: string[]; cwd?: string; env?: Record<string, string> } = {}): Promise<Server> {
  const args = [cliPath(), 'mcp', ...(root ? ['--root', root] : []), ...(opts.args ?? [])];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: opts.cwd ?? root, env: childEnv(opts.env), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d) => (err += d));
  const client = new Client({ name: 'waymark-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    stderr: () => err,
    close: () => client.close(),
    async call(name, a = {}) {
      const r = await client.callTool({ name, arguments: a });
      const content = r.content as { type: string; text: string }[];
      const text = content[0]?.text ?? '';
      return { isError: r.isError === true, data: r.isError ? JSON.parse(text) : r.structuredContent, text };
    },
  };
}

/** Runs the CLI to completion. */
export function runCli(cwd: string, args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cliPath(), ...args], { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function workflowText(o: { status?: string; steps?: string[]; done?: string[]; current?: string; extra?: string[] } = {}): string {
  const steps = o.steps ?? ['design', 'implement', 'test'];
  const done = o.done ?? [];
  return ['---', 'workflow: feature', `status: ${o.status ?? 'in_progress'}`, `steps: [${steps.join(', ')}]`, `currentStep: ${o.current ?? steps.find((s) => !done.includes(s)) ?? steps[steps.length - 1]}`, `stepsCompleted: [${done.join(', ')}]`, ...(o.extra ?? []), '---', '', '# Feature', '', 'Body text.', ''].join('\n');
}

/** A workspace with `.waymark/`, a plain workflow, a gated one, and optional extra files. */
export function workspace(files: Record<string, string> = {}): string {
  const root = tmpDir();
  fs.mkdirSync(path.join(root, '.waymark', 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(root, '.waymark', 'workflows', 'release.yaml'), 'steps:\n  - build\n  - id: review\n    gate: true\n  - ship\n');
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(root, 'docs', 'feat.workflow.md'), workflowText());
  fs.writeFileSync(path.join(root, 'docs', 'rel.workflow.md'), '---\nworkflow: release\nstatus: in_progress\nstepsCompleted: [build]\ncurrentStep: review\n---\nBody\n');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

export function reasonOf(r: { isError: boolean; data: any; text: string }): string {
  assert.ok(r.isError, `expected an error, got ${r.text.slice(0, 300)}`);
  return r.data.error.reason;
}
