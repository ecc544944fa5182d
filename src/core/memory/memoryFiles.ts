import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTransaction } from '../engine/transaction';
import { assertRegularOrMissing, readInternalIfExists, safeMkdir, safeWritePath } from '../store/safePath';
import { splitFrontmatter, safeYamlParse } from '../model/frontmatter';

/* Hot and cold memory files: plain Markdown, readable without Kuzu.
 * Hot (`session_state.md`) is rewritten as work goes on and reset at session end.
 * Cold (`orchestrator_memory.md`) has fixed sections; entries are only ever added at the end
 * of their section, so every historic line stays byte for byte. */

export const HOT_LIMIT = 10 * 1024;
export const COLD_LIMIT = 100 * 1024;
export const EXPORT_LIMIT = 500 * 1024;

export const COLD_SECTIONS = ['Key decisions', 'Learned context', 'Preferences', 'Blockers', 'Session history'] as const;
export type ColdSection = (typeof COLD_SECTIONS)[number];

export interface HotState {
  session?: string;
  started?: string;
  /**
   * Frontmatter fields besides session and started, kept as found: tier-3 resume reads
   * `activeWorkflow`, `currentStep`, `nextStep` and `lastUpdated` from here.
   */
  fields: Record<string, unknown>;
  objective: string;
  working: string[];
  tasks: string[];
  waiting: string[];
}

const HOT_HEADINGS: [keyof Pick<HotState, 'working' | 'tasks' | 'waiting'>, string][] = [
  ['working', 'Working memory'],
  ['tasks', 'Immediate tasks'],
  ['waiting', 'Waiting for'],
];

export function emptyHot(): HotState {
  return { objective: '', working: [], tasks: [], waiting: [], fields: {} };
}

/** A YAML scalar as JSON (a JSON string is a valid YAML flow scalar, quotes and all). */
function yamlLine(k: string, v: unknown): string {
  return `${k}: ${v instanceof Date ? JSON.stringify(v.toISOString()) : JSON.stringify(v ?? null)}`;
}

/**
 * The hot file: YAML frontmatter in the form tier-3 resume reads (session, lastUpdated and
 * whatever the orchestrator recorded: activeWorkflow, currentStep, nextStep), then the notes.
 */
export function renderHot(h: HotState, now: string = new Date().toISOString()): string {
  const fm: [string, unknown][] = [['session', h.session ?? null]];
  if (h.started) fm.push(['started', h.started]);
  for (const [k, v] of Object.entries(h.fields)) if (!['session', 'started', 'lastUpdated'].includes(k) && v !== undefined) fm.push([k, v]);
  fm.push(['lastUpdated', now]);
  const out = ['---', ...fm.map(([k, v]) => yamlLine(k, v)), '---', '# Session state', '', '<!-- Waymark hot memory: rewritten as work goes on, reset at session end. -->', ''];
  if (h.session) out.push(`Session: ${h.session}${h.started ? ` (started ${h.started})` : ''}`, '');
  out.push('## Current objective', '', h.objective || '_none_', '');
  for (const [k, title] of HOT_HEADINGS) {
    out.push(`## ${title}`, '');
    if (h[k].length) out.push(...h[k].map((l) => `- ${oneLine(l)}`));
    else out.push('_none_');
    out.push('');
  }
  return out.join('\n');
}

export function parseHot(raw: string): HotState {
  const h = emptyHot();
  let text = raw;
  const split = splitFrontmatter(raw);
  if (split.hasFrontmatter && split.closed) {
    text = split.body;
    let v: unknown;
    try {
      v = safeYamlParse(split.yamlText);
    } catch {
      v = undefined; // a damaged header: the notes below still count
    }
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const val = x instanceof Date ? x.toISOString() : x;
        if (k === 'session') h.session = typeof val === 'string' && val ? val : undefined;
        else if (k === 'started') h.started = typeof val === 'string' ? val : undefined;
        else if (k !== 'lastUpdated') h.fields[k] = val;
      }
    }
  }
  const m = /^Session: (\S+)(?: \(started ([^)]+)\))?/m.exec(text);
  if (m && !h.session) (h.session = m[1]), (h.started = m[2]);
  let section = '';
  const objective: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const head = /^## (.+?)\s*$/.exec(line);
    if (head) {
      section = head[1];
      continue;
    }
    if (!line.trim() || line.trim() === '_none_' || line.startsWith('<!--')) continue;
    if (section === 'Current objective') objective.push(line.trim());
    const entry = /^- (.*)$/.exec(line);
    const key = HOT_HEADINGS.find(([, t]) => t === section)?.[0];
    if (key && entry) h[key].push(entry[1]);
  }
  h.objective = objective.join(' ');
  return h;
}

/** A memory file line: line breaks inside it folded to spaces. */
export function oneLine(s: string): string {
  return s.replace(/\s*\r?\n\s*/g, ' ').trim();
}

/** The session record (`memory/session.json`) written with a hot-file change: its new text, or undefined to remove it. */
export interface SessionRecordWrite {
  file: string;
  text?: string;
}

/** `afterAnswer`: the change is made after a long-lived face answered (memory's batch): its intent is completed on the thread pool (TxContext.completeLater). */
export interface ChangeOptions {
  afterAnswer?: boolean;
}

export class MemoryFiles {
  constructor(
    readonly hotFile: string,
    readonly coldFile: string,
    private readonly root: string,
    /** The settings the paths came from (`memory.hotFile`...), named when a path is refused. */
    private readonly labels: { hot?: string; cold?: string } = {},
  ) {}

  /** The real path to write, checked inside the workspace (a config or a link leading elsewhere is refused). */
  private target(which: 'hot' | 'cold'): string {
    const file = which === 'hot' ? this.hotFile : this.coldFile;
    const real = safeWritePath(this.root, file, this.labels[which]);
    assertRegularOrMissing(real, which === 'hot' ? 'hot memory' : 'cold memory');
    safeMkdir(this.root, path.dirname(real), this.labels[which]);
    return real;
  }

  /** The real path the hot or cold file is written at (checked, its folder made), for a change that writes it. */
  writeTarget(which: 'hot' | 'cold'): string {
    return this.target(which);
  }

  /**
   * A change of memory files is one transaction (engine/transaction.ts): locked by real path,
   * re-read, journaled, renamed. `plan` gets the files' texts (undefined: missing) and returns
   * their new texts (a file left out, or with its old text, is not written) and the answer.
   * `appendTo`: the cold file, only ever added to (its lines are written at its end in place when
   * they go there: TxWrite.append).
   */
  private change<T>(operation: string, files: string[], plan: (texts: ReadonlyMap<string, string | undefined>) => { texts: Map<string, string>; result: T; added?: string }, record?: SessionRecordWrite, appendTo?: string, opts?: ChangeOptions): Promise<T> {
    const rec = record ? safeWritePath(this.root, record.file, 'memory session') : undefined;
    return runTransaction({ root: this.root, now: () => new Date(), ...(opts?.afterAnswer ? { completeLater: true } : {}) }, {
      operation,
      files: rec ? [...files, rec] : files,
      plan: (texts) => {
        const p = plan(texts);
        // `added`: what insertLines added at the end of the cold text it was handed (TxWrite.added).
        const writes = [...p.texts].map(([file, text]) => ({ file, text, entry: null, ...(file === appendTo ? { append: true, ...(p.added !== undefined ? { added: p.added } : {}) } : {}) }));
        // The session record (current session) changes with the hot file, in the same change.
        if (rec && record!.text !== undefined) writes.push({ file: rec, text: record!.text, entry: null });
        else if (rec && texts.get(rec) !== undefined) writes.push({ file: rec, text: '', remove: true, entry: null } as (typeof writes)[number]);
        return { writes, result: () => p.result };
      },
    });
  }

  readHot(): HotState {
    try {
      const text = readInternalIfExists(this.hotFile, 'hot memory');
      return text === undefined ? emptyHot() : parseHot(text);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyHot();
      throw e;
    }
  }

  /** Read-modify-write of the hot file under a lock. */
  async updateHot(fn: (h: HotState) => void, record?: SessionRecordWrite): Promise<HotState> {
    const real = this.target('hot');
    return this.change('memory-hot', [real], (texts) => {
      const text = texts.get(real);
      const h = text === undefined ? emptyHot() : parseHot(text);
      fn(h);
      return { texts: new Map([[real, renderHot(h)]]), result: h };
    }, record);
  }

  /**
   * The hot file changed by `fn` and `cold` entries added to the cold file, one change: lines moved
   * from the hot file to the cold one are never lost or kept twice by a writer killed in between.
   */
  async updateBoth(fn: (h: HotState) => { section: ColdSection; line: string }[] | void, record?: SessionRecordWrite, opts?: ChangeOptions): Promise<HotState> {
    const hot = this.target('hot');
    const coldReal = this.target('cold');
    return this.change('memory-move', [hot, coldReal], (texts) => {
      const h = texts.get(hot) === undefined ? emptyHot() : parseHot(texts.get(hot)!);
      const cold = fn(h) ?? [];
      const out = new Map([[hot, renderHot(h)]]);
      if (!cold.length) return { texts: out, result: h };
      const before = texts.get(coldReal);
      const { text, added } = insertLines(before ?? coldTemplate(), cold);
      out.set(coldReal, text);
      return { texts: out, result: h, ...(before !== undefined ? { added } : {}) };
    }, record, coldReal, opts);
  }

  /** Adds entries at the end of their cold sections; never changes an existing line. */
  async appendCold(entries: { section: ColdSection; line: string }[], opts?: ChangeOptions): Promise<void> {
    if (!entries.length) return;
    const real = this.target('cold');
    await this.change('memory-cold', [real], (texts) => {
      const before = texts.get(real);
      const { text, added } = insertLines(before ?? coldTemplate(), entries);
      return { texts: new Map([[real, text]]), result: undefined, ...(before !== undefined ? { added } : {}) };
    }, undefined, real, opts);
  }

  readCold(): string {
    try {
      return readInternalIfExists(this.coldFile, 'cold memory') ?? '';
    } catch {
      return '';
    }
  }

  sizes(): { hot: number; cold: number } {
    const size = (f: string) => {
      try {
        return fs.statSync(f).size;
      } catch {
        return 0;
      }
    };
    return { hot: size(this.hotFile), cold: size(this.coldFile) };
  }

  /**
   * Moves a too-large cold file to a dated archive (kept intact) and starts a new one that
   * points at it. Returns the archive path.
   */
  async archiveCold(stamp: string): Promise<string | undefined> {
    const real = this.target('cold');
    const archive = safeWritePath(this.root, real.replace(/\.md$/, '') + `.archive-${stamp}.md`, this.labels.cold);
    // The archive (the old bytes, intact) and the fresh cold file are written together.
    return this.change('memory-archive', [real, archive], (texts) => {
      const old = texts.get(real);
      if (old === undefined) return { texts: new Map(), result: undefined };
      const text = insertInSection(coldTemplate(), 'Session history', `- ${stamp} Earlier entries archived intact in ${path.basename(archive)}`);
      return { texts: new Map([[archive, old], [real, text]]), result: archive };
    });
  }
}

export function coldTemplate(): string {
  return ['# Orchestrator memory', '', '<!-- Waymark cold memory: append-only. Historic entries are never edited. -->', '', ...COLD_SECTIONS.flatMap((s) => [`## ${s}`, ''])].join('\n');
}

/**
 * Adds `- line` for each entry to its cold section (insertInSection, in order) and says what bytes
 * that added at the text's end when every line went there (the cold file's step lines): the new
 * text is then `text` and `added`, by construction, and a change adding them to the file in place
 * hands `added` to the transaction (TxWrite.added), which needs no compare of the new text's head
 * (100 KB and more) with the text read to find them. Undefined when a line went elsewhere.
 */
export function insertLines(text: string, entries: readonly { section: string; line: string }[]): { text: string; added: string | undefined } {
  let added: string | undefined = '';
  for (const { section, line } of entries) {
    const l = `- ${oneLine(line)}`;
    text = insertInSection(text, section, l);
    // atEnd holds this very answer (one string, compared as itself) only when the line went at the end.
    added = added !== undefined && atEnd?.text === text ? `${added}${l}\n` : undefined;
  }
  return { text, added };
}

/** Inserts `line` after the last non-blank line of `## section` (adding the section at the end when missing). */
export function insertInSection(text: string, section: string, line: string): string {
  // The text this returned last, when its line went at the text's very end: the next line of that
  // section goes at the end again, with nothing to look for (the cold file's step lines, one after
  // another, each planned on the very text written before: engine/transaction.ts readKnown).
  if (atEnd !== undefined && atEnd.text === text && atEnd.section === section && endLine(line)) {
    const out = `${text}${line}\n`;
    atEnd = { text: out, section };
    return out;
  }
  atEnd = undefined;
  return insertAfterLast(text, section, line) ?? insertBySplit(text, section, line);
}

/**
 * insertInSection's last answer when it added its line at the text's very end: a text with no `\r`,
 * ending in `\n`, whose `## section` heading (its first occurrence, a line of its own) has no heading
 * after it, and whose last line is that line (an `endLine`).
 */
let atEnd: { text: string; section: string } | undefined;

/** A line that, added last in its section, stays its last non-blank line and starts no heading. */
function endLine(line: string): boolean {
  return line.trim() !== '' && !/[\r\n]/.test(line) && !line.startsWith('## ');
}

/**
 * insertInSection's usual case without splitting the whole file (the cold file grows by a line
 * each completed step; a write splitting it all costs in proportion): `\n`-ended lines, the
 * section found with a non-blank line in it. Looks only at the heading's line and the section's
 * last lines. Undefined for any other case (insertBySplit, the same answer).
 */
function insertAfterLast(text: string, section: string, line: string): string | undefined {
  if (text.includes('\r') || !text.endsWith('\n')) return undefined;
  const heading = `## ${section}`;
  const at = text.indexOf(heading);
  if (at < 0) return undefined;
  // The first line holding the heading's words must be the heading (as insertBySplit finds it).
  const headStart = text.lastIndexOf('\n', at - 1) + 1;
  const headEnd = text.indexOf('\n', at);
  if (text.slice(headStart, headEnd).trim() !== heading) return undefined;
  const next = text.indexOf('\n## ', headEnd);
  const end = next < 0 ? text.length : next + 1;
  // Back from the section's end to its last non-blank line; the new line goes after it.
  for (let p = end; p > headEnd + 1; ) {
    const start = text.lastIndexOf('\n', p - 2) + 1;
    if (text.slice(start, p - 1).trim()) {
      if (p === text.length && endLine(line)) {
        const out = `${text}${line}\n`;
        atEnd = { text: out, section };
        return out;
      }
      return `${text.slice(0, p)}${line}\n${p === end && next >= 0 ? '\n' : ''}${text.slice(p)}`;
    }
    p = start;
  }
  return undefined;
}

/** insertInSection's rule over every line split out: the reference the fast path must equal (exported for its test). */
export function insertBySplit(text: string, section: string, line: string): string {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `## ${section}`);
  if (start < 0) {
    const tail = text.endsWith(nl) || text === '' ? '' : nl;
    return `${text}${tail}${nl}## ${section}${nl}${nl}${line}${nl}`;
  }
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^## /.test(lines[i])) {
      end = i;
      break;
    }
  }
  let last = start;
  for (let i = start + 1; i < end; i++) if (lines[i].trim()) last = i;
  const insertAt = last === start ? start + 2 : last + 1;
  if (last === start && (lines[start + 1] ?? '') !== '') lines.splice(start + 1, 0, '');
  lines.splice(Math.min(insertAt, lines.length), 0, line);
  // keep a blank line before the next heading
  const after = Math.min(insertAt, lines.length - 1) + 1;
  if (after < lines.length && /^## /.test(lines[after])) lines.splice(after, 0, '');
  const out = lines.join(nl);
  return out.endsWith(nl) ? out : out + nl;
}
