/**
 * The quick fixes of the sprint's problems (`Problem.data.fix` `setLedgerValue` / `setStoryStatus`),
 * one implementation for every face: the editor's quick fix, `waymark fix FILE CODE [--line N]`
 * and the MCP tool. A fix is found again in a fresh read of the sprint (a problem that is gone or
 * changed since the caller saw it is a conflict, never applied blind) and written through the
 * story write path (`setStoryStatus`: the story file and its ledger line, one transaction) or, for
 * a ledger value alone, `setLedgerValue`: both are planners of the one transaction engine.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { assertWritableInside } from '../engine/roots';
import { runTransaction } from '../engine/transaction';
import { sha256 } from '../model/hash';
import { fixTitle, problemSpec, type ProblemCode } from '../model/problems';
import type { Problem } from '../types';
import { parseLedger } from './ledger';
import { editLedgerStatus, ledgerStatusProblem } from './ledgerEdit';
import { loadSprint, type SprintReport } from './sprint';
import { contextOf, setStoryStatus, txRoot, type StoryWriteOptions } from './storyWrite';
import { quoted } from '../model/text';

/** The fixes this file applies. */
export const SPRINT_FIXES = ['setLedgerValue', 'setStoryStatus'] as const;
export type SprintFixId = (typeof SPRINT_FIXES)[number];

export interface SprintFixResult {
  /** The file the problem is in, its code and 1-based line. */
  file: string;
  code: string;
  line: number;
  fix: SprintFixId;
  /** What the fix does, as the editor titles it. */
  title: string;
  key: string;
  value: string;
  /** Files written (absolute); empty when nothing had to change. */
  written: string[];
  changed: boolean;
  seq?: number;
  /** The ledger a ledger fix edits (absolute), named in its title. */
  ledgerFile?: string;
}

/** True for a problem whose quick fix is a sprint fix (so a face sends it here). */
export function isSprintFix(problem: Pick<Problem, 'data'>): boolean {
  return (SPRINT_FIXES as readonly unknown[]).includes(problem.data?.fix);
}

function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

function load(root: string, opts: StoryWriteOptions): SprintReport {
  const report = loadSprint(root, { ...opts.sprint, now: opts.now });
  if (!report) throw new WaymarkError('unreadable', `No BMAD sprint under ${root}: no sprint-status.yaml and no story files were found.`, root);
  return report;
}

const where = (p: Problem) => `line ${p.range.start.line + 1}`;

/**
 * The fixable problem `code` of `file` (at 1-based `line` when several share the code), from a
 * fresh read of the sprint. Throws a usage error naming what there is instead.
 */
export function findSprintFix(root: string, file: string, code: string, line?: number, opts: StoryWriteOptions = {}): Problem {
  const report = load(root, opts);
  const inFile = report.problems.filter((p) => sameFile(p.file, file));
  const rel = path.relative(root, file) || file;
  const same = inFile.filter((p) => p.code === code);
  const matching = same.filter((p) => line === undefined || p.range.start.line + 1 === line);
  if (!matching.length) {
    const others = same.length ? ` It has ${code} at ${same.map(where).join(', ')}.` : inFile.length ? ` Its problems: ${[...new Set(inFile.map((p) => p.code))].join(', ')}.` : '';
    throw new WaymarkError('usage', `${rel} has no problem ${code}${line !== undefined ? ` at line ${line}` : ''}.${others} Run waymark validate ${rel} to list them.`, file);
  }
  const fixable = matching.filter(isSprintFix);
  if (!fixable.length) throw new WaymarkError('usage', `Problem ${code} at ${where(matching[0])} has no quick fix: ${matching[0].message}`, file);
  const distinct = new Map(fixable.map((p) => [`${String(p.data?.fix)}\0${String(p.data?.key)}\0${String(p.data?.value)}`, p]));
  if (distinct.size > 1) throw new WaymarkError('usage', `${rel} has ${distinct.size} fixable ${code} problems (${[...distinct.values()].map(where).join(', ')}); give --line N to pick one.`, file);
  return fixable[0];
}

/**
 * Applies the quick fix of `problem` (as a face received it): the same problem must still be
 * there in a fresh read, else the file changed since and the fix is a conflict.
 */
export async function applySprintFix(root: string, problem: Problem, opts: StoryWriteOptions = {}): Promise<SprintFixResult> {
  if (!isSprintFix(problem)) throw new WaymarkError('usage', `Problem ${problem.code} has no sprint quick fix.`, problem.file);
  const fix = problem.data!.fix as SprintFixId;
  const key = problem.data?.key;
  const value = problem.data?.value;
  if (typeof key !== 'string' || typeof value !== 'string') throw new WaymarkError('usage', `Problem ${problem.code} names no entry and value to set.`, problem.file);
  const report = load(root, opts);
  const still = report.problems.find((p) => p.code === problem.code && sameFile(p.file, problem.file) && p.data?.fix === fix && p.data?.key === key && p.data?.value === value);
  if (!still) throw new WaymarkError('conflict', `${problem.code} on ${key} is no longer there as it was read (the file changed). Validate again, then retry.`, problem.file);
  const base = { file: problem.file, code: problem.code, line: still.range.start.line + 1, fix, title: fixTitle(still), key, value };
  if (fix === 'setStoryStatus') {
    const r = await setStoryStatus(root, key, value, opts);
    return { ...base, written: r.written, changed: r.changed, seq: r.seq };
  }
  // The ledger the problem is in (a project may keep one per module), else the first listing the key.
  const ledger = report.ledgers.find((l) => sameFile(l.file, problem.file) && l.byKey.has(key)) ?? report.ledgers.find((l) => l.byKey.has(key));
  const entry = ledger?.byKey.get(key);
  if (!ledger || !entry) throw new WaymarkError('conflict', `sprint-status.yaml has no entry ${quoted(key)} any more. Validate again, then retry.`, report.ledgerFile ?? problem.file);
  const r = await setLedgerValue(report.root, ledger.file, key, value, { ...opts, expectRaw: entry.raw });
  // (Named by its path: a project with several ledgers, sibling apps or modules, is told which file it edits.)
  const named = (path.relative(report.root, ledger.file) || ledger.file).split(path.sep).join('/');
  return { ...base, title: `Set ${key} to ${value} in ${named}`, ledgerFile: ledger.file, ...r };
}

/** Finds the fixable problem `code` of `file` and applies its fix (the CLI's and MCP's `fix`). */
export async function fixSprintProblem(root: string, file: string, code: string, opts: StoryWriteOptions & { line?: number } = {}): Promise<SprintFixResult> {
  return applySprintFix(root, findSprintFix(root, file, code, opts.line, opts), opts);
}

/** True for a problem code of the sprint (its fixes live here, not in the workflow pipeline). */
export function isSprintCode(code: ProblemCode): boolean {
  return problemSpec(code).section === 'sprint';
}

/**
 * Sets one ledger entry's value (and `last_updated` in its own format), nothing else: a planner of
 * the one transaction engine (engine/transaction.ts: lock by real path, re-read, guards, journal,
 * rename, re-parse, one history line in the configured history folder, events). `expectRaw` is
 * compared with the entry as read under the lock (a stale read is a conflict).
 */
export async function setLedgerValue(root: string, ledgerFile: string, key: string, value: string, opts: StoryWriteOptions & { expectRaw?: string } = {}): Promise<{ written: string[]; changed: boolean; seq?: number }> {
  const ctx = await contextOf(root, opts);
  const workspaceRoot = txRoot(ctx, path.resolve(root));
  assertWritableInside(ledgerFile, workspaceRoot);
  const now = opts.now ?? new Date();
  return runTransaction<{ written: string[]; changed: boolean; seq?: number }>({ root: workspaceRoot, historyDir: ctx.config.history.dir, actor: opts.actor, session: opts.session, now: () => now, guards: opts.guards, observers: opts.observers, logger: opts.logger }, {
    operation: 'ledger-set-value',
    files: [ledgerFile],
    plan(texts) {
      const text = texts.get(ledgerFile);
      if (text === undefined) throw new WaymarkError('unreadable', `Cannot read ${ledgerFile}: it is gone. Validate again, then retry.`, ledgerFile);
      const entry = parseLedger(ledgerFile, text).byKey.get(key);
      if (!entry) throw new WaymarkError('conflict', `sprint-status.yaml has no entry ${quoted(key)} any more. Validate again, then retry.`, ledgerFile);
      if (opts.expectRaw !== undefined && entry.raw !== opts.expectRaw) {
        throw new WaymarkError('conflict', `${key} changed since it was read (${quoted(entry.raw)}, expected ${quoted(opts.expectRaw)}). Validate again, then retry.`, ledgerFile);
      }
      if (entry.raw === value) return { writes: [], result: () => ({ written: [], changed: false }) };
      // By the YAML parser's positions, in whatever form the entry is written (ledgerEdit.ts).
      const after = editLedgerStatus(ledgerFile, text, key, value, now);
      return {
        writes: [{
          file: ledgerFile, text: after,
          entry: { from: { status: entry.raw }, to: { status: value }, hashBefore: sha256(text), hashAfter: sha256(after), detail: { key } },
          check: (t) => ledgerStatusProblem(ledgerFile, t, key, value),
        }],
        result: (entries) => ({ written: entries.map((e) => e.file), changed: entries.length > 0, seq: entries[0]?.seq }),
      };
    },
  });
}
