/**
 * Story status changes and task ticks, written the way every Waymark write is: per-file locks,
 * re-read, the caller's state hash compared (a stale read is a conflict), real paths checked to
 * be inside the workspace, atomic writes, one history entry. A status change writes the story file
 * and the ledger as one change: in the ledger only that value (and `last_updated`, in the file's
 * own format) changes; if the second write fails the first is put back.
 */
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { withFileLock } from '../store/fileLock';
import { writeFileAtomic } from '../store/atomicWrite';
import { appendHistory } from '../store/history';
import { assertWritableInside } from '../engine/roots';
import { nearest } from '../model/config';
import { applyLineEdits, ledgerRank, parseLedger, rewriteLedgerStatus, STORY_STATUSES } from './ledger';
import { findTask, parseStory } from './story';
import { findStory, loadSprint, loadStoryQuick, type SprintOptions, type SprintReport } from './sprint';
import type { SprintStory } from './drift';
import * as fs from 'node:fs';
import type { WriteGuard, WriteObserver } from '../writeHooks';
import type { HistoryEntry } from '../types';

export interface StoryWriteOptions {
  expectHash?: string;
  actor?: string;
  session?: string;
  /** Allow moving a done story backwards. */
  force?: boolean;
  now?: Date;
  sprint?: Omit<SprintOptions, 'overrides' | 'now'>;
  /** Run under the locks before anything is written (leases, trust); a throw refuses the write. */
  guards?: WriteGuard[];
  /** Told after the write and its history line (events log); their failures never fail the write. */
  observers?: WriteObserver[];
}

async function runGuards(opts: StoryWriteOptions, root: string, files: string[], operation: string): Promise<void> {
  for (const file of files) for (const g of opts.guards ?? []) await g({ file, root, operation, actor: opts.actor, session: opts.session });
}

async function notify(opts: StoryWriteOptions, entry: HistoryEntry, root: string, operation: string): Promise<void> {
  for (const o of opts.observers ?? []) {
    try {
      await o(entry, { file: entry.file, root, operation, actor: opts.actor, session: opts.session });
    } catch {
      // An observer (events log) failing never undoes a landed write.
    }
  }
}

export interface StoryWriteResult {
  key: string;
  operation: 'story-set-status' | 'story-check';
  /** Files written (absolute). */
  written: string[];
  before: SprintStory;
  after: SprintStory;
  changed: boolean;
  seq?: number;
}

/** The story `ref` and its sprint; `texts`: files already read (under the locks), not read again. */
function load(root: string, ref: string, opts: StoryWriteOptions, texts?: Map<string, string>): { report: SprintReport; story: SprintStory } {
  const quick = loadStoryQuick(root, ref, { ...opts.sprint, now: opts.now, overrides: texts });
  if (quick) return quick;
  const report = loadSprint(root, { ...opts.sprint, now: opts.now, overrides: texts });
  if (!report) throw new WaymarkError('unreadable', `No BMAD sprint under ${root}: no sprint-status.yaml and no story files were found. Run BMAD sprint planning first.`, root);
  const story = findStory(report, ref);
  if (!story) {
    const near = nearest(ref, report.stories.map((s) => s.key), 6);
    throw new WaymarkError('usage', `No story '${ref}' in ${report.ledgerFile ?? 'the story files'}.${near ? ` Did you mean ${near}?` : ` Stories: ${report.stories.slice(0, 6).map((s) => s.key).join(', ')}${report.stories.length > 6 ? ', …' : ''}.`}`, report.ledgerFile);
  }
  return { report, story };
}

function readNow(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new WaymarkError('unreadable', `Cannot read ${file}: ${(e as Error).message}.`, file);
  }
}

const V4_WORDS: Record<string, string> = { backlog: 'Draft', 'ready-for-dev': 'Approved', 'in-progress': 'InProgress', review: 'Review', done: 'Done' };

async function withLocks<T>(root: string, files: string[], fn: () => Promise<T> | T): Promise<T> {
  const sorted = [...new Set(files)].sort();
  const run = (i: number): Promise<T> => (i >= sorted.length ? Promise.resolve(fn()) : withFileLock(sorted[i], () => run(i + 1), { root, purpose: 'story' }));
  return run(0);
}

/**
 * Sets a story's status in its story file and in `sprint-status.yaml` as one change. Refuses to
 * move a done story backwards unless `force` (code review's review → in-progress is allowed).
 */
export async function setStoryStatus(root: string, ref: string, status: string, opts: StoryWriteOptions = {}): Promise<StoryWriteResult> {
  const want = status.trim().toLowerCase();
  if (!(STORY_STATUSES as readonly string[]).includes(want)) {
    const n = nearest(want, [...STORY_STATUSES], 4) ?? (/^(complete|completed|finished)$/.test(want) ? 'done' : undefined);
    throw new WaymarkError('usage', `'${status}' is not a story status. Use one of: ${STORY_STATUSES.join(', ')}.${n ? ` Did you mean ${n}?` : ''}`);
  }
  const first = load(root, ref, opts);
  const files = [first.story.file, first.report.ledgerFile].filter((f): f is string => !!f && (f !== first.report.ledgerFile || first.story.ledgerLine !== undefined));
  if (!files.length) throw new WaymarkError('invalid', `Story ${first.story.key} has neither a story file nor a ledger entry to write.`);
  for (const f of files) assertWritableInside(f, first.report.root);
  const now = opts.now ?? new Date();
  return withLocks(first.report.root, files, async () => {
    // Re-read under the locks: what we change is what is there now. Each file is read once; the
    // model and the edit see the same bytes.
    const texts = new Map(files.map((f) => [f, readNow(f)]));
    const { report, story } = load(root, ref, opts, texts);
    if (opts.expectHash && opts.expectHash !== story.stateHash) {
      throw new WaymarkError('conflict', `Story ${story.key} changed since it was read (state hash ${story.stateHash.slice(0, 12)}…, expected ${opts.expectHash.slice(0, 12)}…). Read it again, then retry.`, story.file ?? report.ledgerFile, { currentHash: story.stateHash });
    }
    const current = story.ledgerStatus ?? story.fileStatusMapped;
    if (current !== undefined && !opts.force) {
      const from = ledgerRank('story', current);
      const to = ledgerRank('story', want);
      const codeReview = current === 'review' && want === 'in-progress';
      if (from >= 0 && to < from && (current === 'done' || !codeReview)) {
        throw new WaymarkError('transition', `Story ${story.key} is ${current}; moving it back to ${want} would rewind completed work. Use --force if that is what you mean.`, story.file ?? report.ledgerFile, { from: current, to: want });
      }
    }
    const writes: { file: string; before: string; after: string }[] = [];
    if (story.file) {
      const text = texts.get(story.file) ?? readNow(story.file);
      const parsed = parseStory(story.file, text);
      let next: string;
      if (parsed.statusLine !== undefined && parsed.statusStart !== undefined && parsed.statusEnd !== undefined) {
        const word = parsed.statusForm === 'section' && /^[A-Z]/.test(parsed.status ?? '') && !report.ledger ? V4_WORDS[want] : want;
        next = applyLineEdits(text, [{ line: parsed.statusLine, start: parsed.statusStart, end: parsed.statusEnd, value: word }]);
      } else {
        const lines = text.split('\n');
        const after = parsed.titleLine ?? -1;
        const eol = parsed.eol;
        lines.splice(after + 1, 0, ...(after >= 0 ? [eol === '\r\n' ? '\r' : '', `Status: ${want}${eol === '\r\n' ? '\r' : ''}`] : [`Status: ${want}${eol === '\r\n' ? '\r' : ''}`, eol === '\r\n' ? '\r' : '']));
        next = lines.join('\n');
      }
      if (next !== text) writes.push({ file: story.file, before: text, after: next });
    }
    if (report.ledgerFile && story.ledgerLine !== undefined && story.ledgerStatus !== want) {
      const text = texts.get(report.ledgerFile) ?? readNow(report.ledgerFile);
      const ledger = parseLedger(report.ledgerFile, text);
      writes.push({ file: report.ledgerFile, before: text, after: rewriteLedgerStatus(text, ledger, story.key, want, now) });
    }
    if (!writes.length) return { key: story.key, operation: 'story-set-status' as const, written: [], before: story, after: story, changed: false };
    await runGuards(opts, report.root, writes.map((w) => w.file), 'story-set-status');
    const done: typeof writes = [];
    try {
      for (const w of writes) {
        writeFileAtomic(w.file, w.after, { root: report.root, mustExist: true });
        done.push(w);
      }
    } catch (e) {
      // Put back what was written so the two files never disagree because of us.
      for (const w of done.reverse()) {
        try {
          writeFileAtomic(w.file, w.before, { root: report.root, mustExist: true });
        } catch {
          // The original error says what failed; this file is reported by the next validate.
        }
      }
      throw e;
    }
    // The state after, from the bytes just written (they are what is on disk: we hold the locks).
    const after = load(root, story.key, opts, new Map([...texts, ...writes.map((w) => [w.file, w.after] as const)])).story;
    const rel = (f: string) => path.relative(report.root, f).split(path.sep).join('/');
    const hist = appendHistory(report.root, {
      time: now.toISOString(), actor: opts.actor, session: opts.session, operation: 'story-set-status', file: story.file ?? report.ledgerFile!,
      from: { status: current ?? null }, to: { status: want }, hashBefore: story.stateHash, hashAfter: after.stateHash,
      detail: { key: story.key, files: writes.map((w) => rel(w.file)) },
    });
    await notify(opts, hist.entry, report.root, 'story-set-status');
    return { key: story.key, operation: 'story-set-status' as const, written: writes.map((w) => w.file), before: story, after, changed: true, seq: hist.entry.seq };
  });
}

/** Ticks (or with `uncheck`, unticks) one task of a story file. */
export async function checkStoryTask(root: string, ref: string, task: string, opts: StoryWriteOptions & { uncheck?: boolean } = {}): Promise<StoryWriteResult & { task: string }> {
  const first = load(root, ref, opts);
  const file = first.story.file;
  if (!file) throw new WaymarkError('unreadable', `Story ${first.story.key} has no story file to tick a task in. Create it first (BMAD create-story).`, first.report.ledgerFile);
  assertWritableInside(file, first.report.root);
  const now = opts.now ?? new Date();
  return withLocks(first.report.root, [file], async () => {
    const text = readNow(file);
    const { report, story } = load(root, ref, opts, new Map([[file, text]]));
    if (opts.expectHash && opts.expectHash !== story.stateHash) {
      throw new WaymarkError('conflict', `Story ${story.key} changed since it was read (state hash ${story.stateHash.slice(0, 12)}…). Read it again, then retry.`, file, { currentHash: story.stateHash });
    }
    const parsed = parseStory(file, text);
    const t = findTask(parsed.tasks, task);
    if ('error' in t) throw new WaymarkError('usage', `${path.basename(file)}: ${t.error}.`, file);
    const want = !opts.uncheck;
    if (t.checked === want) return { key: story.key, operation: 'story-check' as const, written: [], before: story, after: story, changed: false, task: t.number };
    if (!want && !opts.force && story.status === 'done') {
      throw new WaymarkError('transition', `Story ${story.key} is done; unticking task ${t.number} would rewind completed work. Use --force if that is what you mean.`, file);
    }
    const next = applyLineEdits(text, [{ line: t.line, start: t.boxColumn, end: t.boxColumn + 3, value: want ? '[x]' : '[ ]' }]);
    await runGuards(opts, report.root, [file], 'story-check');
    writeFileAtomic(file, next, { root: report.root, mustExist: true });
    const after = load(root, story.key, opts, new Map([[file, next]])).story;
    const hist = appendHistory(report.root, {
      time: now.toISOString(), actor: opts.actor, session: opts.session, operation: 'story-check', file,
      from: { task: t.number, checked: t.checked }, to: { task: t.number, checked: want }, hashBefore: story.stateHash, hashAfter: after.stateHash,
      detail: { key: story.key, text: t.text },
    });
    await notify(opts, hist.entry, report.root, 'story-check');
    return { key: story.key, operation: 'story-check' as const, written: [file], before: story, after, changed: true, seq: hist.entry.seq, task: t.number };
  });
}
