import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { StepDef } from '../types';
import { readRegularFile } from '../store/safeRead';

/** One installed BMAD workflow and its ordered steps. */
export interface BmadWorkflow {
  /** Folder name, e.g. `prd`. */
  name: string;
  /** Absolute folder of the workflow. */
  dir: string;
  /** The folder the ordered steps come from (`steps-c` or `steps`). */
  stepsDir: string;
  mode: 'create' | 'plain';
  steps: StepDef[];
  /** Continuation files (`step-01b-continue.md`): not steps. */
  continuation: string[];
  /** Other mode folders present (`steps-e`, `steps-v`). */
  otherModes: string[];
}

export interface BmadCatalog {
  /** By manifest name and by folder name (lower-case). */
  byName: Map<string, BmadWorkflow>;
  workflows: BmadWorkflow[];
}

export const emptyBmadCatalog = (): BmadCatalog => ({ byName: new Map(), workflows: [] });

const STEP_FILE = /^step-(\d+)([a-z]?)-(.+)\.md$/i;

/** Parses a step file name: `step-02b-vision.md` → {num: 2, letter: 'b', slug: 'vision'}. */
export function parseStepFileName(name: string): { num: number; letter: string; slug: string; id: string } | undefined {
  const m = STEP_FILE.exec(name);
  if (!m) return undefined;
  return { num: Number(m[1]), letter: m[2].toLowerCase(), slug: m[3], id: name.slice(0, -3) };
}

export function isContinuationStep(slug: string): boolean {
  return /^continu/i.test(slug);
}

/** Orders and numbers step files of one folder. */
export function stepsFromFileNames(dir: string, names: string[]): { steps: StepDef[]; continuation: string[] } {
  const parsed: { num: number; letter: string; id: string; slug: string; file: string }[] = [];
  const continuation: string[] = [];
  for (const name of names) {
    const p = parseStepFileName(name);
    if (!p) continue;
    if (isContinuationStep(p.slug)) {
      continuation.push(p.id);
      continue;
    }
    parsed.push({ ...p, file: path.join(dir, name) });
  }
  parsed.sort((a, b) => a.num - b.num || a.letter.localeCompare(b.letter) || a.id.localeCompare(b.id));
  // Shared by every artifact of this workflow: frozen so no reader can change it for the others.
  const steps = Object.freeze(parsed.map((p, i): StepDef => Object.freeze({ id: p.id, index: i + 1, title: p.slug.replace(/-/g, ' '), file: p.file }))) as StepDef[];
  return { steps, continuation };
}

/**
 * Finds installed BMAD workflows under `<root>/<dir>`: every folder holding `steps-c/` (create mode)
 * or `steps/` with `step-NN[a-z]?-*.md` files. `_config/workflow-manifest.csv` adds name → folder mappings.
 */
export async function loadBmadCatalog(bmadDir: string): Promise<BmadCatalog> {
  const catalog = emptyBmadCatalog();
  try {
    const st = await fsp.stat(bmadDir);
    if (!st.isDirectory()) return catalog;
  } catch {
    return catalog;
  }
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const subdirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    const stepsDirName = subdirs.includes('steps-c') ? 'steps-c' : subdirs.includes('steps') ? 'steps' : undefined;
    if (stepsDirName) {
      const stepsDir = path.join(dir, stepsDirName);
      let names: string[] = [];
      try {
        names = await fsp.readdir(stepsDir);
      } catch {
        names = [];
      }
      const { steps, continuation } = stepsFromFileNames(stepsDir, names);
      if (steps.length) {
        const wf: BmadWorkflow = {
          name: path.basename(dir), dir, stepsDir, mode: stepsDirName === 'steps-c' ? 'create' : 'plain', steps, continuation,
          otherModes: subdirs.filter((s) => /^steps-[a-z]$/.test(s) && s !== 'steps-c').sort(),
        };
        catalog.workflows.push(wf);
        if (!catalog.byName.has(wf.name.toLowerCase())) catalog.byName.set(wf.name.toLowerCase(), wf);
      }
    }
    for (const s of subdirs) {
      if (s === 'node_modules' || s.startsWith('.') || /^steps(-[a-z])?$/.test(s)) continue;
      await walk(path.join(dir, s), depth + 1);
    }
  };
  await walk(bmadDir, 0);
  // Manifest names → folders.
  const root = path.dirname(bmadDir);
  try {
    const csv = await readRegularFile(path.join(bmadDir, '_config', 'workflow-manifest.csv'), 8 * 1024 * 1024);
    const rows = parseCsv(csv);
    const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase());
    const nameCol = header.indexOf('name');
    const pathCol = header.indexOf('path');
    if (nameCol >= 0 && pathCol >= 0) {
      for (const row of rows) {
        const name = row[nameCol]?.trim();
        const p = row[pathCol]?.trim();
        if (!name || !p) continue;
        const rel = p.replace(/^\{project-root\}\//, '').replace(/\\/g, '/');
        let folder = path.resolve(root, rel);
        if (/\.(md|ya?ml|xml)$/i.test(folder)) folder = path.dirname(folder);
        const wf = catalog.workflows.find((w) => w.dir === folder);
        if (wf) catalog.byName.set(name.toLowerCase(), wf);
      }
    }
  } catch {
    // No manifest: folder names only.
  }
  return catalog;
}

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Maps one `stepsCompleted`/`lastStep` entry to a step id. Documented in docs/format.md:
 * - integer N (or "N") → the unlettered step `step-NN-*`; lettered sub-steps (`step-NNb-*`) have
 *   no integer, so in an integer-encoded list they count as covered by N;
 * - `step-NN[x]-slug` or `step-NN[x]-slug.md` (any folder prefix) → that step;
 * - `step-NN[x]` alone → the step with that number and letter.
 */
export function resolveBmadStep(entry: unknown, steps: StepDef[]): string | undefined {
  const idx = stepIndex(steps);
  if (typeof entry === 'number' || (typeof entry === 'string' && /^\d+$/.test(entry.trim()))) {
    return idx.byNumber.get(`${Number(entry)}`);
  }
  if (typeof entry !== 'string') return undefined;
  let s = entry.trim();
  if (idx.ids.has(s)) return s;
  s = s.replace(/\\/g, '/');
  s = s.slice(s.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  if (idx.ids.has(s)) return s;
  const m = /^step-(\d+)([a-z]?)(?:-|$)/i.exec(s);
  if (!m) return undefined;
  return idx.byNumber.get(`${Number(m[1])}${m[2].toLowerCase()}`);
}

interface StepIndex {
  ids: Set<string>;
  /** `2` → step-02-*, `2b` → step-02b-*. */
  byNumber: Map<string, string>;
}

const stepIndexes = new WeakMap<StepDef[], StepIndex>();

function stepIndex(steps: StepDef[]): StepIndex {
  let idx = stepIndexes.get(steps);
  if (!idx) {
    idx = { ids: new Set(steps.map((s) => s.id)), byNumber: new Map() };
    for (const st of steps) {
      const n = stepNumber(st.id);
      if (n && !idx.byNumber.has(`${n.num}${n.letter}`)) idx.byNumber.set(`${n.num}${n.letter}`, st.id);
    }
    stepIndexes.set(steps, idx);
  }
  return idx;
}

/** Number and letter of a step id (`step-02b-vision` → 2, 'b'). */
const stepNumberCache = new Map<string, { num: number; letter: string } | null>();

export function stepNumber(id: string): { num: number; letter: string } | undefined {
  let hit = stepNumberCache.get(id);
  if (hit === undefined) {
    const m = /^step-(\d+)([a-z]?)(?:-|$)/i.exec(id);
    hit = m ? { num: Number(m[1]), letter: m[2].toLowerCase() } : null;
    if (stepNumberCache.size < 50_000) stepNumberCache.set(id, hit);
  }
  return hit ?? undefined;
}

/** The way a file writes its `stepsCompleted` entries (kept on write-back). */
export type BmadStepEncoding = 'int' | 'id' | 'file' | 'mixed' | 'empty';

export function stepEncoding(list: unknown[]): BmadStepEncoding {
  if (list.length === 0) return 'empty';
  const kinds = new Set(list.map((e) => (typeof e === 'number' ? 'int' : typeof e === 'string' && /\.md$/i.test(e) ? 'file' : 'id')));
  return kinds.size === 1 ? ([...kinds][0] as BmadStepEncoding) : 'mixed';
}

/** Status words BMAD artifacts use, mapped to Waymark statuses. */
export const BMAD_STATUS_MAP: Record<string, import('../types').Status | undefined> = Object.assign(Object.create(null) as Record<string, never>, {
  draft: 'created',
  backlog: 'created',
  'ready-for-dev': 'created',
  ready: 'created',
  todo: 'created',
  new: 'created',
  created: 'created',
  'in-progress': 'in_progress',
  in_progress: 'in_progress',
  started: 'in_progress',
  review: 'in_progress',
  'in-review': 'in_progress',
  'ready-for-review': 'in_progress',
  blocked: 'blocked',
  complete: 'completed',
  completed: 'completed',
  done: 'completed',
  approved: 'completed',
  archived: 'archived',
});

/**
 * The installed BMAD workflow a `workflowType` (or file name) names. Installs name folders
 * `create-prd`, `bmad-create-ux-design` or plain `architecture`, while artifacts say `prd`,
 * `ux-design`, `create-architecture`...: the `bmad-` and `create-` prefixes are optional on
 * both sides.
 */
export function lookupBmadWorkflow(catalog: BmadCatalog, workflow: string): BmadWorkflow | undefined {
  const bare = workflow.toLowerCase().replace(/^bmad-/, '').replace(/^create-/, '');
  for (const k of [workflow.toLowerCase(), bare, `create-${bare}`, `bmad-${bare}`, `bmad-create-${bare}`]) {
    const wf = catalog.byName.get(k);
    if (wf) return wf;
  }
  return undefined;
}

/** The key a file keeps its status under: `workflowStatus` in BMAD files that use it instead of `status`. */
export function statusKeyOf(state: Pick<import('../types').WorkflowState, 'dialect' | 'data'>): 'status' | 'workflowStatus' {
  return state.dialect === 'bmad' && state.data.status === undefined && typeof state.data.workflowStatus === 'string' ? 'workflowStatus' : 'status';
}
