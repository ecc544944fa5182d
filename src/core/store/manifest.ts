import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangedReport, ManifestRow, WorkflowState } from '../types';
import { parseCsv } from '../bmad/artifacts';
import { readConfigSync } from './configFile';
import { readRegularFileSync } from './safeRead';
import { writeFileAtomic, ioError } from './atomicWrite';
import { safeMkdir } from './safePath';
import { WaymarkError } from '../errors';
export const DEFAULT_MANIFEST_PATH = '.waymark/files-manifest.csv';

export const MANIFEST_COLUMNS = ['path', 'workflow', 'status', 'currentStep', 'stepsDone', 'stepsTotal', 'stateHash', 'contentHash'] as const;

/** Absolute path of a root's manifest (`manifest.path` in config, default `.waymark/files-manifest.csv`). */
export function manifestPath(root: string, configured?: string): string {
  return path.resolve(root, configured || configuredManifestPath(root) || DEFAULT_MANIFEST_PATH);
}

/** `manifest.path` from the root's `.waymark/config.yaml`, when set (read here so callers need not pass it). */
function configuredManifestPath(root: string): string | undefined {
  return readConfigSync(root).manifest.path;
}

/** One manifest row per workflow file of `root`, sorted by path (relative, `/`-separated). */
export function manifestRows(root: string, states: WorkflowState[]): ManifestRow[] {
  const abs = path.resolve(root);
  return states
    .filter((s) => s.file.startsWith(abs + path.sep))
    .map((s) => ({
      path: path.relative(abs, s.file).split(path.sep).join('/'),
      workflow: s.workflow,
      status: s.rawStatus ?? '',
      currentStep: s.currentStep ?? '',
      stepsDone: s.steps.length ? s.steps.filter((st) => s.stepsCompleted.includes(st.id)).length : new Set(s.stepsCompleted).size,
      stepsTotal: s.steps.length,
      stateHash: s.stateHash,
      contentHash: s.contentHash,
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function csvField(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function formatManifest(rows: ManifestRow[]): string {
  const lines = [MANIFEST_COLUMNS.join(',')];
  for (const r of rows) lines.push(MANIFEST_COLUMNS.map((c) => csvField(r[c])).join(','));
  return lines.join('\n') + '\n';
}

export function parseManifest(text: string): ManifestRow[] {
  const rows = parseCsv(text);
  const header = rows.shift() ?? [];
  const idx = (c: string) => header.indexOf(c);
  return rows
    .filter((r) => r.length >= 2)
    .map((r) => ({
      path: r[idx('path')] ?? '',
      workflow: r[idx('workflow')] ?? '',
      status: r[idx('status')] ?? '',
      currentStep: r[idx('currentStep')] ?? '',
      stepsDone: Number(r[idx('stepsDone')] ?? 0),
      stepsTotal: Number(r[idx('stepsTotal')] ?? 0),
      stateHash: r[idx('stateHash')] ?? '',
      contentHash: r[idx('contentHash')] ?? '',
    }));
}

/** Writes `files-manifest.csv` atomically (temp file in the same folder, fsync, rename). */
export function writeManifest(root: string, states: WorkflowState[], configured?: string): { file: string; rows: ManifestRow[] } {
  const file = manifestPath(root, configured);
  const rows = manifestRows(root, states);
  try {
    safeMkdir(root, path.dirname(file), configured ? 'manifest.path' : undefined);
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw ioError(e, file, 'write the manifest');
  }
  // Temp file + fsync + rename, like every other write (a folder or pipe in the way is a clear io
  // error); its real path must lie inside the workspace.
  writeFileAtomic(file, formatManifest(rows), { root, what: 'manifest' });
  return { file, rows };
}

/** Compares current states with the last written manifest. A missing manifest means everything is added. */
export function changedSince(root: string, states: WorkflowState[], configured?: string): ChangedReport {
  const file = manifestPath(root, configured);
  let old: ManifestRow[] = [];
  try {
    old = parseManifest(readRegularFileSync(file).toString('utf8'));
  } catch {
    old = [];
  }
  const oldBy = new Map(old.map((r) => [r.path, r]));
  const now = manifestRows(root, states);
  const nowBy = new Map(now.map((r) => [r.path, r]));
  const report: ChangedReport = { manifest: file, added: [], removed: [], stateChanged: [], contentChanged: [] };
  for (const r of now) {
    const o = oldBy.get(r.path);
    if (!o) report.added.push(r.path);
    else if (o.stateHash !== r.stateHash) report.stateChanged.push(r.path);
    else if (o.contentHash !== r.contentHash) report.contentChanged.push(r.path);
  }
  for (const o of old) if (!nowBy.has(o.path)) report.removed.push(o.path);
  return report;
}
