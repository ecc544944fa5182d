// Shared by the extension-host suites: bounded waits and screenshot requests.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WaymarkApi } from '../../src/extension/extension';
import type { TestApi } from '../../src/extension/testApi';

export const EXTENSION_ID = 'waymark.waymark';

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the suite needs a workspace folder open');
  return folder.uri.fsPath;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a truthy value; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(50);
  }
}

function signalsDir(): string | undefined {
  const fromEnv = process.env.WAYMARK_TEST_SIGNALS;
  if (fromEnv && fs.existsSync(fromEnv)) return fromEnv;
  const derived = path.join(workspaceRoot(), '..', 'signals');
  return fs.existsSync(derived) ? derived : undefined;
}

/**
 * Asks the runner for a screenshot of what is on screen now and waits until it is taken.
 * Under a runner that takes none (test-electron) this returns at once.
 */
export async function screenshot(name: string): Promise<void> {
  const dir = signalsDir();
  if (!dir) return;
  const done = path.join(dir, `${name}.done`);
  console.log(`[waymark-screenshot] ${name}`);
  await waitFor(`screenshot ${name}`, () => fs.existsSync(done), 30_000);
}

export interface TreeSnap {
  label: string;
  description?: string;
  contextValue?: string;
  icon?: string;
  tooltip?: string;
  children?: TreeSnap[];
}

export interface Snapshot {
  workflows: TreeSnap[];
  gates: TreeSnap[];
  delegation: TreeSnap[];
  statusBar: { visible: boolean; text: string; tooltip?: string; background?: string; file?: string };
  decorations: Record<string, { done: number; current?: string; notes: string[]; status?: string }>;
  fileBadges: Record<string, string>;
  states: { file: string; workflow: string; status?: string; currentStep?: string; stepsCompleted: string[]; stale: boolean; stateHash: string }[];
  canWrite: boolean;
  lastError?: { action: string; reason?: string; message: string };
  lastInfo?: string;
  error?: string;
}

/** The extension's test API (activate()'s return value under a test runner; see src/extension/testApi.ts). */
export async function testApi(): Promise<TestApi> {
  const ext = vscode.extensions.getExtension<WaymarkApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
  const api = await ext.activate();
  if (!api.test) throw new Error('activate() returned no test API: the extension host is not in ExtensionMode.Test');
  return api.test;
}

export async function snap(): Promise<Snapshot> {
  const s = (await (await testApi()).snapshot()) as unknown as Snapshot | undefined;
  if (!s || s.error) throw new Error(`snapshot failed: ${s?.error ?? 'no result (is the extension active?)'}`);
  return s;
}

/** Every node of a tree snapshot, depth first. */
export function flatten(nodes: TreeSnap[] | undefined, out: TreeSnap[] = []): TreeSnap[] {
  for (const n of nodes ?? []) {
    out.push(n);
    flatten(n.children, out);
  }
  return out;
}

export function find(nodes: TreeSnap[] | undefined, label: string): TreeSnap | undefined {
  return flatten(nodes).find((n) => n.label === label);
}

export function demo(rel: string): string {
  return path.join(workspaceRoot(), rel);
}

export function read(rel: string): string {
  return fs.readFileSync(demo(rel), 'utf8');
}

/** 0-based line and column of the first occurrence of `needle` in a demo file (test expectation). */
export function locate(rel: string, needle: string): vscode.Range {
  const lines = read(rel).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i].indexOf(needle);
    if (c >= 0) return new vscode.Range(i, c, i, c + needle.length);
  }
  throw new Error(`${needle} not found in ${rel}`);
}

/** Activates the extension and waits for the first scan to list workflows. */
export async function ready(): Promise<Snapshot> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
  await ext.activate();
  let last: Snapshot | undefined;
  try {
    return await waitFor('the first scan', async () => {
      last = await snap();
      return last.states.length > 0 ? last : undefined;
    }, 45_000);
  } catch (e) {
    const l = last as (Snapshot & { scans?: number; lastScanError?: string; roots?: string[]; coreReplacements?: number }) | undefined;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    throw new Error(`${String(e)}; scans done: ${l?.scans}, last scan error: ${l?.lastScanError ?? 'none'}, roots: ${JSON.stringify(l?.roots)}, cores made after activation: ${l?.coreReplacements}, workspace folders: ${JSON.stringify(folders)}`);
  }
}

export function hoverText(hovers: vscode.Hover[] | undefined): string {
  return (hovers ?? [])
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}

/** Asks the runner to drag the sash above the view titled `title` by `dy` pixels. */
export async function resizeView(title: string, dy: number): Promise<void> {
  const dir = signalsDir();
  if (!dir) return;
  const id = `resize-${Date.now()}`;
  console.log(`[waymark-resize] ${id} ${title} ${dy}`);
  await waitFor(`resize ${title}`, () => fs.existsSync(path.join(dir, `${id}.done`)), 30_000);
}

/** Registers a suite that runs only when one folder is open (the single-folder pass). */
export function singleRoot(title: string, fn: (this: Mocha.Suite) => void): void {
  if ((vscode.workspace.workspaceFolders?.length ?? 0) <= 1 && vscode.workspace.isTrusted) suite(title, fn);
}

/** Registers a suite that runs only in a multi-root workspace (the second pass). */
export function multiRoot(title: string, fn: (this: Mocha.Suite) => void): void {
  if ((vscode.workspace.workspaceFolders?.length ?? 0) > 1) suite(title, fn);
}

/**
 * Asks the runner to click where a user would: a view's header (`clickView('Gates')` folds or
 * unfolds it) or a row in a view (`clickView('Memory', 'feature-delivery')` expands it).
 * Under a runner that cannot click (test-electron) this returns at once.
 */
export async function clickView(viewTitle: string, rowText?: string): Promise<void> {
  const dir = signalsDir();
  if (!dir) return;
  const id = `click-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  console.log(`[waymark-click] ${id} ${rowText === undefined ? `header ${viewTitle}` : `row ${viewTitle} :: ${rowText}`}`);
  await waitFor(`click ${viewTitle} ${rowText ?? ''}`, () => fs.existsSync(path.join(dir, `${id}.done`)), 30_000);
}

/**
 * Asks the runner to click the first element matching a CSS `selector` inside a webview (the
 * dashboard), with the mouse, in the webview's own frame; with `key`, to focus it and press the
 * key instead (keyboard use). Resolves once the click was made (or
 * failed: the runner logs why); the test then checks what the click did. Returns false under
 * a runner that cannot click (test-electron).
 */
export async function clickWebview(selector: string, key?: string): Promise<boolean> {
  const dir = signalsDir();
  if (!dir) return false;
  const id = `wvclick-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  console.log(`[waymark-click] ${id} ${key ? `webview-key ${key}` : 'webview'} ${selector}`);
  await waitFor(`click ${selector} in the webview`, () => fs.existsSync(path.join(dir, `${id}.done`)), 40_000);
  return true;
}
