/**
 * Story status changes and task ticks, each a small planner run by the one transaction engine
 * (engine/transaction.ts): the story file and the ledger locked by real path, re-read, the
 * caller's state hash compared (a stale read is a conflict), the rules agent hooks apply
 * (model/bmadProposal.ts), the new bytes checked (the ledger must still parse and say the new
 * status), one intent journal over both files, atomic renames, one history line per file.
 * In the ledger only that value (and `last_updated`, in its own format) changes, whatever YAML
 * form the entry has (ledgerEdit.ts). Settings (`bmad.*`, `history.dir`) come from the
 * workspace's configuration.
 */
import * as path from 'node:path';
import { relStaysInside } from '../store/safePath';
import { WaymarkError } from '../errors';
import { assertWritableInside } from '../engine/roots';
import { runTransaction, type TxWrite } from '../engine/transaction';
import { nearest } from '../model/config';
import { judgeLedgerChange, judgeStoryChange } from '../model/bmadProposal';
import type { ProposalProblem } from '../model/proposal';
import { loadWorkspaceContext, type WorkspaceContext } from '../store/workspaceContext';
import { applyLineEdits, ledgerRank, STORY_STATUSES } from './ledger';
import { editLedgerStatus, ledgerEntryStatus, ledgerHasEntry, ledgerStatusProblem } from './ledgerEdit';
import { findTask, parseStory } from './story';
import { loadSprint, loadStoryQuick, type SprintOptions, type SprintReport } from './sprint';
import { resolveStoryRef, storyRefMessage } from './storyRef';
import { furtherStatement, type SprintStory } from './drift';
import type { WriteGuard, WriteObserver } from '../writeHooks';
import type { Logger } from '../ports';
import { quoted } from '../model/text';

export interface StoryWriteOptions {
  expectHash?: string;
  actor?: string;
  session?: string;
  /** Allow what the status rules refuse (moving a done story backwards, done with tasks open...). */
  force?: boolean;
  now?: Date;
  sprint?: Omit<SprintOptions, 'overrides' | 'now' | 'config'>;
  /** The workspace's loaded context (the core passes its own); loaded from the folder when absent. */
  context?: WorkspaceContext;
  /** Run under the locks before anything is written (leases, trust); a throw refuses the write. */
  guards?: WriteGuard[];
  /** Told after the write and its history lines (events log); their failures never fail the write. */
  observers?: WriteObserver[];
  logger?: Logger;
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

/** The workspace's context for the project folder `root` (the core's when it covers `root`). */
export async function contextOf(root: string, opts: StoryWriteOptions): Promise<WorkspaceContext> {
  if (opts.context && inside(opts.context.root, path.resolve(root))) return opts.context;
  return (await loadWorkspaceContext(root, undefined, opts.now ? { now: () => opts.now! } : undefined)).context;
}

function inside(root: string, p: string): boolean {
  return relStaysInside(path.relative(root, p));
}

/** Where the change's locks, journal and history live: the workspace holding the project. */
export function txRoot(ctx: WorkspaceContext, projectRoot: string): string {
  return inside(ctx.root, projectRoot) ? ctx.root : projectRoot;
}

/** The story `ref` names exactly, and its sprint; `texts`: files already read (under the locks). */
function load(root: string, ref: string, opts: StoryWriteOptions, ctx: WorkspaceContext, texts?: ReadonlyMap<string, string | undefined>): { report: SprintReport; story: SprintStory } {
  const overrides = texts ? new Map([...texts].filter((e): e is [string, string] => e[1] !== undefined)) : undefined;
  const sprint = { ...opts.sprint, config: ctx.config, now: opts.now, overrides };
  const quick = loadStoryQuick(root, ref, sprint);
  if (quick) return quick;
  const report = loadSprint(root, sprint);
  // A ledger place holding a device or pipe: no status is written to the story file alone.
  const notAFile = report?.problems.find((p) => p.code === 'ledger-not-a-file');
  if (notAFile) throw new WaymarkError('unreadable', notAFile.message, notAFile.file);
  if (!report) throw new WaymarkError('unreadable', `No BMAD sprint under ${root}: no sprint-status.yaml and no story files were found. Run BMAD sprint planning first.`, root);
  const answer = resolveStoryRef(report.stories, ref);
  if (!('story' in answer)) throw new WaymarkError('usage', storyRefMessage(ref, answer, report.ledgerFile ? path.basename(report.ledgerFile) : 'the story files', report.stories, true), report.ledgerFile, { candidates: answer.candidates.map((s) => s.key) });
  return { report, story: answer.story };
}

const V4_WORDS: Record<string, string> = { backlog: 'Draft', 'ready-for-dev': 'Approved', 'in-progress': 'InProgress', review: 'Review', done: 'Done' };

/** The command that does it right, for a rule's refusal. */
function ruleHint(p: ProposalProblem, key: string): string {
  if (p.code === 'story-done-tasks-open') return `Tick the finished tasks first (waymark story check ${key} TASK)`;
  if (p.code === 'story-done-without-review') return `Set it to review first (waymark story set-status ${key} review); code review moves it to done`;
  if (p.code === 'status-transition' && /started/.test(p.message)) return `Start it first (waymark story set-status ${key} in-progress)`;
  return p.fix ? p.fix[0].toUpperCase() + p.fix.slice(1) : '';
}

/** The rules agent hooks apply to these same edits; a refusal names the command that does it right. */
function checkRules(key: string, from: string, to: string, story: { file: string; before: string; after: string } | undefined, ledger: { file: string; root: string; before: string; after: string } | undefined): void {
  const problems: ProposalProblem[] = [];
  if (story) problems.push(...judgeStoryChange(story.before, story.after, path.basename(story.file)));
  if (ledger) problems.push(...judgeLedgerChange(ledger.before, ledger.after, path.basename(ledger.file)).filter((p) => !problems.some((q) => q.code === p.code)));
  const errors = problems.filter((p) => p.severity === 'error');
  if (!errors.length) return;
  const hints = [...new Set(errors.map((p) => ruleHint(p, key)).filter(Boolean))];
  throw new WaymarkError(
    'transition',
    `Refused: story ${key} ${from} → ${to}: ${errors.map((p) => p.message).join('; ')}. ${hints.join('. ')}${hints.length ? '. ' : ''}Or pass --force to set it anyway (recorded in history). Nothing was changed.`,
    story?.file ?? ledger?.file,
    { from, to, problems: errors.map((p) => p.code) },
  );
}

/**
 * Sets a story's status in its story file and in `sprint-status.yaml` as one transaction.
 * Refuses what agent hooks refuse (a done story moved back, done without review or with tasks
 * open...) unless `force`; code review's review → in-progress is allowed.
 */
export async function setStoryStatus(root: string, ref: string, status: string, opts: StoryWriteOptions = {}): Promise<StoryWriteResult> {
  const want = status.trim().toLowerCase();
  if (!(STORY_STATUSES as readonly string[]).includes(want)) {
    const n = nearest(want, [...STORY_STATUSES], 4) ?? (/^(complete|completed|finished)$/.test(want) ? 'done' : undefined);
    throw new WaymarkError('usage', `${quoted(status)} is not a story status. Use one of: ${STORY_STATUSES.join(', ')}.${n ? ` Did you mean ${n}?` : ''}`);
  }
  const ctx = await contextOf(root, opts);
  const first = load(root, ref, opts, ctx);
  const key = first.story.key;
  // The ledger the story is listed in (a project may keep one per module), else the project's.
  const ledgerFile = first.story.ledgerFile ?? first.report.ledgerFile;
  const files = [first.story.file, ledgerFile].filter((f): f is string => !!f);
  if (!files.length) throw new WaymarkError('invalid', `Story ${key} has neither a story file nor a ledger entry to write.`);
  const workspaceRoot = txRoot(ctx, first.report.root);
  for (const f of files) assertWritableInside(f, workspaceRoot);
  const now = opts.now ?? new Date();
  return runTransaction({ root: workspaceRoot, historyDir: ctx.config.history.dir, actor: opts.actor, session: opts.session, now: () => now, guards: opts.guards, observers: opts.observers, logger: opts.logger }, {
    operation: 'story-set-status',
    files,
    plan(texts) {
      const { report, story } = load(root, key, opts, ctx, texts);
      if (opts.expectHash && opts.expectHash !== story.stateHash) {
        throw new WaymarkError('conflict', `Story ${story.key} changed since it was read (state hash ${story.stateHash.slice(0, 12)}…, expected ${opts.expectHash.slice(0, 12)}…). Read it again (waymark story show ${story.key} --json), then retry.`, story.file ?? report.ledgerFile, { currentHash: story.stateHash });
      }
      const storyLedger = story.ledgerFile ?? report.ledgerFile;
      const ledgerText = storyLedger ? texts.get(storyLedger) : undefined;
      // The line reader's word when it is one; else what YAML reads (an entry written as a mapping).
      const known = (w: string | undefined) => (w !== undefined && (STORY_STATUSES as readonly string[]).includes(w) ? w : undefined);
      const yamlWord = ledgerText !== undefined && known(story.ledgerStatus) === undefined ? ledgerEntryStatus(ledgerText, story.key)?.trim().toLowerCase() : undefined;
      const ledgerNow = known(story.ledgerStatus) ?? known(yamlWord);
      const fileText = story.file ? texts.get(story.file) : undefined;
      const parsed = story.file && fileText !== undefined ? parseStory(story.file, fileText) : undefined;
      // A file stating its status twice, differently, stands at the statement further along.
      const current = ledgerNow ?? furtherStatement(parsed, story.fileStatusMapped);
      if (current !== undefined && !opts.force) {
        const from = ledgerRank('story', current);
        const to = ledgerRank('story', want);
        const codeReview = current === 'review' && want === 'in-progress';
        if (from >= 0 && to < from && (current === 'done' || !codeReview)) {
          throw new WaymarkError('transition', `Story ${story.key} is ${current}; moving it back to ${want} would rewind completed work. If that is what you mean: waymark story set-status ${story.key} ${want} --force (recorded in history).`, story.file ?? report.ledgerFile, { from: current, to: want });
        }
      }
      const writes: TxWrite[] = [];
      let storyEdit: { file: string; before: string; after: string } | undefined;
      let ledgerEdit: { file: string; root: string; before: string; after: string } | undefined;
      const detail = { key: story.key };
      // (A story kept in a spec-kit folder, `specs/<key>/tasks.md`: its status is the ledger's alone; the task list gets no Status line.)
      if (story.file && !story.specKit && fileText !== undefined && parsed) {
        const text = fileText;
        let next: string;
        let word = want;
        if (parsed.statusLine !== undefined && parsed.statusStart !== undefined && parsed.statusEnd !== undefined) {
          word = parsed.statusForm === 'section' && /^[A-Z]/.test(parsed.status ?? '') && !report.ledger ? V4_WORDS[want] : want;
          const edits = [{ line: parsed.statusLine, start: parsed.statusStart, end: parsed.statusEnd, value: word }];
          // A frontmatter status kept beside the Status line is written too, so the file says one thing.
          const fm = parsed.frontmatterStatus;
          if (fm && fm.value !== want) edits.push({ line: fm.line, start: fm.start, end: fm.end, value: want });
          next = applyLineEdits(text, edits);
        } else {
          const lines = text.split('\n');
          const after = parsed.titleLine ?? -1;
          const cr = parsed.eol === '\r\n' ? '\r' : '';
          lines.splice(after + 1, 0, ...(after >= 0 ? [cr, `Status: ${want}${cr}`] : [`Status: ${want}${cr}`, cr]));
          next = lines.join('\n');
        }
        if (next !== text) {
          storyEdit = { file: story.file, before: text, after: next };
          const file = story.file;
          writes.push({
            file, text: next,
            entry: { from: { status: story.fileStatus ?? null }, to: { status: word }, hashBefore: story.stateHash, detail },
            check: (t) => (parseStory(file, t).status?.toLowerCase() === word.toLowerCase() ? undefined : `its Status would not read ${word}.`),
          });
        }
      }
      if (storyLedger && ledgerText !== undefined && ledgerNow !== want && (story.ledgerLine !== undefined || ledgerHasEntry(ledgerText, story.key))) {
        const file = storyLedger;
        const next = editLedgerStatus(file, ledgerText, story.key, want, now);
        ledgerEdit = { file, root: report.root, before: ledgerText, after: next };
        writes.push({
          file, text: next,
          entry: { from: { status: ledgerNow ?? story.ledgerRaw ?? null }, to: { status: want }, hashBefore: story.stateHash, detail },
          check: (t) => ledgerStatusProblem(file, t, story.key, want),
        });
      }
      if (!opts.force && writes.length) checkRules(story.key, current ?? 'no status', want, storyEdit, ledgerEdit);
      // The state after, from the bytes about to be written.
      const afterTexts = new Map(texts);
      for (const w of writes) afterTexts.set(w.file, w.text);
      const after = writes.length ? load(root, story.key, opts, ctx, afterTexts).story : story;
      for (const w of writes) if (w.entry) w.entry.hashAfter = after.stateHash;
      return {
        writes,
        result: (entries) => ({ key: story.key, operation: 'story-set-status' as const, written: entries.map((e) => e.file), before: story, after: entries.length ? after : story, changed: entries.length > 0, seq: entries[0]?.seq }),
      };
    },
  });
}

/** Ticks (or with `uncheck`, unticks) one task of a story file. */
export async function checkStoryTask(root: string, ref: string, task: string, opts: StoryWriteOptions & { uncheck?: boolean } = {}): Promise<StoryWriteResult & { task: string }> {
  const ctx = await contextOf(root, opts);
  const first = load(root, ref, opts, ctx);
  const file = first.story.file;
  if (!file) throw new WaymarkError('unreadable', `Story ${first.story.key} has no story file to tick a task in. Create it first (BMAD create-story).`, first.report.ledgerFile);
  const workspaceRoot = txRoot(ctx, first.report.root);
  assertWritableInside(file, workspaceRoot);
  const now = opts.now ?? new Date();
  const key = first.story.key;
  return runTransaction({ root: workspaceRoot, historyDir: ctx.config.history.dir, actor: opts.actor, session: opts.session, now: () => now, guards: opts.guards, observers: opts.observers, logger: opts.logger }, {
    operation: 'story-check',
    files: [file],
    plan(texts) {
      const text = texts.get(file);
      if (text === undefined) throw new WaymarkError('unreadable', `${file} no longer exists (deleted or moved since it was read); rescan and retry.`, file);
      const { story } = load(root, key, opts, ctx, texts);
      if (opts.expectHash && opts.expectHash !== story.stateHash) {
        throw new WaymarkError('conflict', `Story ${story.key} changed since it was read (state hash ${story.stateHash.slice(0, 12)}…). Read it again (waymark story show ${story.key} --json), then retry.`, file, { currentHash: story.stateHash });
      }
      const parsed = parseStory(file, text);
      const t = findTask(parsed.tasks, task);
      if ('error' in t) throw new WaymarkError('usage', `${path.basename(file)}: ${t.error}.`, file);
      const want = !opts.uncheck;
      const unchanged = { key: story.key, operation: 'story-check' as const, written: [], before: story, after: story, changed: false, task: t.number };
      if (t.checked === want) return { writes: [], result: () => unchanged };
      if (!want && !opts.force && story.status === 'done') {
        throw new WaymarkError('transition', `Story ${story.key} is done; unticking task ${t.number} would rewind completed work. Use --force if that is what you mean.`, file);
      }
      const next = applyLineEdits(text, [{ line: t.line, start: t.boxColumn, end: t.boxColumn + 3, value: want ? '[x]' : '[ ]' }]);
      const after = load(root, story.key, opts, ctx, new Map([...texts, [file, next]])).story;
      return {
        writes: [{ file, text: next, entry: { from: { task: t.number, checked: t.checked }, to: { task: t.number, checked: want }, hashBefore: story.stateHash, hashAfter: after.stateHash, detail: { key: story.key, text: t.text } } }],
        result: (entries) => (entries.length ? { key: story.key, operation: 'story-check' as const, written: [file], before: story, after, changed: true, seq: entries[0].seq, task: t.number } : unchanged),
      };
    },
  });
}
