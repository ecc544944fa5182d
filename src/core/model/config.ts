import { z } from 'zod';
import type { Document } from 'yaml';
import { parseDocument } from './yamlDepth';
import type { Problem } from '../types';
import { rangeForPath, type PathSeg } from './positions';
import { quoted } from './text';

/** Milliseconds of a duration setting (`30m`, `4h`, `3d`, `1w`; a bare number is minutes), else undefined. */
export function durationMs(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? v * 60_000 : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(m|min|h|d|w)?\s*$/i.exec(v);
  if (!m) return undefined;
  const unit: Record<string, number> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
  const ms = Number(m[1]) * unit[(m[2] ?? 'm').toLowerCase()];
  return ms > 0 ? ms : undefined;
}

/**
 * The settings schema, built on first use: zod (and ~100 schema objects) cost a process
 * milliseconds, and a workspace without `.waymark/config.yaml` never needs them (defaultConfig).
 */
function buildConfigSchema() {
  /**
   * A path Waymark writes to, relative to the root and inside it: a cloned repository's config
   * must not make Waymark write gate files, history or manifests elsewhere on the machine.
   */
  const insideRoot = (what: string) =>
    z.string().refine((p) => p.trim() !== '' && !/^([\\/]|[A-Za-z]:)/.test(p) && !p.split(/[\\/]+/).includes('..'), {
      message: `${what} must be a relative path inside the workspace (no leading /, no ..)`,
    });

  /** A list setting that may also be written as one value (`include: "docs/**\/*.md"`). */
  const oneOrMany = <T extends z.ZodTypeAny>(item: T) => z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(item));

  /** A duration such as `30m`, `4h`, `3d`, `1w` (a bare number is minutes). */
  const duration = z.union([z.number().positive(), z.string()]).refine((v) => durationMs(v) !== undefined, {
    message: 'must be a duration such as 30m, 4h, 3d or 1w',
  });

  /** One ticket store: a git repository of Markdown tickets, or GitHub Issues. */
  const ticketStoreSchema = z.discriminatedUnion('store', [
    z.object({
      store: z.literal('git'),
      /** The ticket repository (a separate git repo), relative to the workspace folder or absolute. */
      repo: z.string().min(1),
      /** Folder inside that repository for the ticket files. */
      dir: z.string().default('tickets'),
      /**
       * Accepted for old configs but never enough on its own: a repository outside the workspace is
       * written only when the user allows it (WAYMARK_TICKETS_ALLOW_OUTSIDE, the VS Code user setting).
       */
      allowOutside: z.boolean().default(false),
    }).passthrough(),
    z.object({
      store: z.literal('github'),
      owner: z.string().min(1),
      repo: z.string().min(1),
    }).passthrough(),
  ]);

  const trackerSchema = z
    .object({
      store: z.enum(['git', 'github']).optional(),
      repo: z.string().optional(),
      dir: z.string().optional(),
      allowOutside: z.boolean().optional(),
      owner: z.string().optional(),
      /** Named stores; `default` picks the one `waymark project` uses without --store. */
      stores: z.record(ticketStoreSchema).optional(),
      default: z.string().optional(),
      /** Whether `waymark project` runs after writes made by the extension (its setting wins). */
      autoProject: z.boolean().default(false),
      breaker: z
        .object({
          /** Consecutive failures that open the breaker. */
          failures: z.number().int().positive().default(3),
          /** Milliseconds an open breaker waits before a half-open probe. */
          halfOpenAfterMs: z.number().int().positive().default(30_000),
          /** Milliseconds one call may take. */
          timeoutMs: z.number().int().positive().default(10_000),
          /** Retries of one call (exponential backoff) before it counts as failed. */
          retries: z.number().int().nonnegative().default(2),
        })
        .passthrough()
        .default({}),
    })
    .passthrough();

  /** The static settings of one workspace folder, from `.waymark/config.yaml` (plus overrides). */
  const configSchema = z
    .object({
      version: z.number().int().optional(),
      /** Globs (relative to the root) of files that may hold workflow state. */
      include: oneOrMany(z.string()).default(['**/*.md', '_bmad-output/**/*.md']),
      /** Globs never scanned. `node_modules` and `.git` are always skipped. */
      exclude: oneOrMany(z.string()).default(['**/node_modules/**', '**/.git/**', '_bmad/**', '.waymark/**']),
      dialects: oneOrMany(z.enum(['waymark', 'bmad'])).default(['waymark', 'bmad']),
      limits: z
        .object({
          maxFileBytes: z.number().int().positive().default(2 * 1024 * 1024),
          maxAliasCount: z.number().int().nonnegative().default(100),
          maxNodes: z.number().int().positive().default(100_000),
          maxFiles: z.number().int().positive().default(200_000),
        })
        .passthrough()
        .default({}),
      gates: z
        .object({
          /**
           * Where gate files live, relative to the root. `{path}` (the workflow file's path
           * relative to the root, without extension; `{file}` means the same), `{name}` (its base
           * name only), `{workflow}` (workflow id), `{gate}` and `{step}` are replaced.
           * Per file by default, so two files never share a verdict, whatever their names.
           */
          path: insideRoot('gates.path').default('.waymark/gates/{path}/{gate}.gate'),
          /**
           * Which gate files open a gate. `recorded` (default): only a verdict recorded through
           * Waymark (its content matches the verdict's history line); `file`: any gate file, an
           * empty one counting as PASS (for reviewers who write gate files by hand).
           */
          trust: z.enum(['recorded', 'file']).default('recorded'),
        })
        .passthrough()
        .default({}),
      history: z.object({ dir: insideRoot('history.dir').default('.waymark/history') }).passthrough().default({}),
      manifest: z.object({ path: insideRoot('manifest.path').default('.waymark/files-manifest.csv') }).passthrough().default({}),
      bmad: z
        .object({
          /** The installed method (step files, `_config/workflow-manifest.csv`). */
          dir: z.string().default('_bmad'),
          /** Where BMAD writes artifacts. */
          output: z.string().default('_bmad-output'),
        })
        .passthrough()
        .default({}),
      /** Folder of workflow definitions (`<id>.yaml`). */
      workflowsDir: z.string().default('.waymark/workflows'),
      /** Memory (Kuzu graph, journal, hot/cold files); every key optional, the memory code has the defaults. */
      memory: z
        .object({
          /** Folder for the database and inbox. Default `.waymark/memory`. */
          dir: insideRoot('memory.dir').optional(),
          hotFile: insideRoot('memory.hotFile').optional(),
          coldFile: insideRoot('memory.coldFile').optional(),
          /** Bytes for Kuzu's buffer pool. */
          bufferManagerSize: z.number().int().positive().optional(),
          /** How long to wait for a database held by another process before falling back (ms). */
          waitMs: z.number().int().nonnegative().optional(),
          /** `journal` never loads Kuzu. */
          engine: z.enum(['kuzu', 'journal']).optional(),
        })
        .passthrough()
        .default({}),
      /** The project view (dependencies, frontier, stalled work). */
      project: z
        .object({
          /**
           * How long in-progress work may go quiet before it counts as stalled: a duration
           * (`30m`, `4h`, `3d`, `1w`). `session`: a workflow held by a lease or mode (an agent
           * session); `workflow`: any other workflow file; `ledger`: a BMAD story in the ledger.
           */
          stalledAfter: z
            .object({ session: duration.default('30m'), workflow: duration.default('3d'), ledger: duration.default('7d') })
            .passthrough()
            .default({}),
        })
        .passthrough()
        .default({}),
      /**
       * The one-way ticket projection (core/tickets): one store inline (`store: git, repo: ../tickets`)
       * or several under `stores` with a `default`. Off when absent.
       */
      tracker: trackerSchema.optional(),
    })
    .passthrough();
  return configSchema;
}

let schema: ReturnType<typeof buildConfigSchema> | undefined;
const configSchema = () => (schema ??= buildConfigSchema());

/** The schema `parseConfigText` validates with, for tests that hold defaultConfig to it. */
export const configSchemaForTests = configSchema;

export type WaymarkConfig = z.infer<ReturnType<typeof buildConfigSchema>>;

export const CONFIG_FILE = '.waymark/config.yaml';

const KNOWN: Record<string, string[]> = {
  '': ['version', 'include', 'exclude', 'dialects', 'limits', 'gates', 'history', 'manifest', 'bmad', 'workflowsDir', 'memory', 'project', 'tracker'],
  tracker: ['store', 'repo', 'dir', 'allowOutside', 'owner', 'stores', 'default', 'autoProject', 'breaker'],
  project: ['stalledAfter'],
  limits: ['maxFileBytes', 'maxAliasCount', 'maxNodes', 'maxFiles'],
  gates: ['path', 'trust'],
  history: ['dir'],
  manifest: ['path'],
  bmad: ['dir', 'output'],
  memory: ['dir', 'hotFile', 'coldFile', 'bufferManagerSize', 'waitMs', 'engine'],
};

/**
 * The settings of a workspace with no config file: what the schema makes of `{}`, written out so
 * that answer needs no zod (a unit test holds the two equal). A fresh object on every call.
 */
export function defaultConfig(): WaymarkConfig {
  return {
    include: ['**/*.md', '_bmad-output/**/*.md'],
    exclude: ['**/node_modules/**', '**/.git/**', '_bmad/**', '.waymark/**'],
    dialects: ['waymark', 'bmad'],
    limits: { maxFileBytes: 2 * 1024 * 1024, maxAliasCount: 100, maxNodes: 100_000, maxFiles: 200_000 },
    gates: { path: '.waymark/gates/{path}/{gate}.gate', trust: 'recorded' },
    history: { dir: '.waymark/history' },
    manifest: { path: '.waymark/files-manifest.csv' },
    bmad: { dir: '_bmad', output: '_bmad-output' },
    workflowsDir: '.waymark/workflows',
    memory: {},
    project: { stalledAfter: { session: '30m', workflow: '3d', ledger: '7d' } },
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(base)) out[k] = base[k];
  for (const k of Object.keys(over)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    const b = out[k];
    const o = over[k];
    out[k] = isPlainObject(b) && isPlainObject(o) ? deepMerge(b, o) : o;
  }
  return out;
}

/**
 * Validates config text (the content of `.waymark/config.yaml`, may be undefined when the file
 * is missing) plus overrides. Never throws: bad values are reported as Problems with positions
 * and replaced by their defaults; unknown keys are warned about and kept.
 */
export function parseConfigText(
  file: string,
  text: string | undefined,
  overrides?: Record<string, unknown>,
): { config: WaymarkConfig; problems: Problem[] } {
  const problems: Problem[] = [];
  let raw: Record<string, unknown> = Object.create(null);
  let doc: Document | undefined;
  if (text !== undefined && text.trim() !== '') {
    doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
    if (doc.errors.length) {
      const err = doc.errors[0];
      const off = err.pos?.[0] ?? 0;
      problems.push({
        file, range: offsetRange(text, off, err.pos?.[1] ?? off + 1), severity: 'error', code: 'config-yaml-syntax',
        message: `${CONFIG_FILE} is not valid YAML (${err.message.split('\n')[0]}); fix it. Defaults are used meanwhile.`,
      });
      doc = undefined;
    } else {
      let js: unknown;
      try {
        js = doc.toJS({ maxAliasCount: 50 });
      } catch (e) {
        problems.push({ file, range: zeroRange(), severity: 'error', code: 'config-yaml-syntax', message: `${CONFIG_FILE}: ${(e as Error).message}. Defaults are used meanwhile.` });
      }
      if (isPlainObject(js)) {
        // `__proto__`, `constructor`, `prototype` are never merged (prototype pollution): say so.
        const unsafe = ['__proto__', 'constructor', 'prototype'];
        const report = (obj: Record<string, unknown>, prefix: PathSeg[]) => {
          for (const key of Object.keys(obj)) {
            if (unsafe.includes(key)) {
              problems.push({
                file, range: rangeInDoc(text, doc!, [...prefix, key]), severity: 'warning', code: 'config-unknown-key',
                message: `Setting ${quoted([...prefix, key].join('.'))} in ${CONFIG_FILE} is ignored: a key named ${key} could pollute object prototypes. Remove it.`,
              });
            } else if (prefix.length === 0 && isPlainObject(obj[key])) report(obj[key] as Record<string, unknown>, [key]);
          }
        };
        report(js, []);
        raw = deepMerge(raw, js);
      }
      else if (js !== undefined && js !== null) {
        problems.push({ file, range: zeroRange(), severity: 'error', code: 'config-invalid', message: `${CONFIG_FILE} must be a mapping of settings. Defaults are used.` });
      }
    }
  }
  // Unknown keys: warn, keep.
  if (doc) {
    for (const [section, known] of Object.entries(KNOWN)) {
      const obj = section === '' ? raw : raw[section];
      if (!isPlainObject(obj)) continue;
      for (const key of Object.keys(obj)) {
        if (known.includes(key)) continue;
        const path: PathSeg[] = section === '' ? [key] : [section, key];
        const near = nearest(key, known);
        problems.push({
          file, range: rangeInDoc(text!, doc, path), severity: 'warning', code: 'config-unknown-key',
          message: `Unknown setting ${quoted(path.join('.'))} in ${CONFIG_FILE}: it is kept but not used.${near ? ` Did you mean ${quoted(near)}?` : ''}`,
          data: near ? { fix: 'renameKey', from: key, to: near } : undefined,
        });
      }
    }
  }
  const merged = overrides ? deepMerge(raw, overrides) : raw;
  if (Object.keys(merged).length === 0) return { config: defaultConfig(), problems };
  // Validate; drop only the bad values (replaced by defaults), report each.
  let result = configSchema().safeParse(merged);
  let guard = 0;
  while (!result.success && guard++ < 20) {
    for (const issue of result.error.issues) {
      const path = issue.path as PathSeg[];
      problems.push({
        file, range: doc && text ? rangeInDoc(text, doc, path) : zeroRange(), severity: 'error', code: 'config-invalid',
        message: `Setting ${quoted(path.join('.') || '(root)')} in ${CONFIG_FILE} is invalid: ${issue.message}. The default is used; fix the value.`,
      });
      removePath(merged, path.length > 1 && typeof path[path.length - 1] === 'number' ? path.slice(0, -1) : path);
    }
    result = configSchema().safeParse(merged);
  }
  const config = result.success ? result.data : defaultConfig();
  return { config, problems };
}

function removePath(obj: Record<string, unknown>, path: PathSeg[]): void {
  if (path.length === 0) {
    for (const k of Object.keys(obj)) delete obj[k];
    return;
  }
  let cur: unknown = obj;
  for (const seg of path.slice(0, -1)) {
    if (!isPlainObject(cur) && !Array.isArray(cur)) return;
    cur = (cur as Record<string, unknown>)[seg as string];
  }
  if (isPlainObject(cur)) delete cur[path[path.length - 1] as string];
}

function rangeInDoc(text: string, doc: Document, path: PathSeg[]) {
  return rangeForPath(doc, path, 'key', text, 0) ?? zeroRange();
}

function zeroRange() {
  return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
}

function offsetRange(text: string, start: number, end: number) {
  const toPos = (off: number) => {
    let line = 0;
    let lineStart = 0;
    for (let i = 0; i < off && i < text.length; i++) if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
    return { line, character: Math.max(0, Math.min(off, text.length) - lineStart) };
  };
  return { start: toPos(start), end: toPos(Math.max(start, end)) };
}

/** The candidate closest to `word` by edit distance (at most 2 edits, or 1 for short words). */
export function nearest(word: string, candidates: readonly string[], maxDistance?: number): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const limit = maxDistance ?? (word.length <= 4 ? 1 : 2);
  const lw = word.toLowerCase();
  for (const c of candidates) {
    const lc = c.toLowerCase();
    // Lengths further apart than the limit are further apart than it in edits too: never the answer.
    if (Math.abs(lc.length - lw.length) > limit) continue;
    const d = editDistance(lw, lc);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= limit ? best : undefined;
}

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > 3) return 99;
  const prev = new Array(b.length + 1).fill(0).map((_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

