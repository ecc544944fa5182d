/**
 * Enforcement where agents write: judging a proposed full text of a file against the
 * workspace's current state (the same rules as a Waymark mutation, plus leases), recording an
 * agent's direct edit in history and the events log after it landed, and the consistency a
 * session should leave behind. Used by agent hooks and the git pre-commit check.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { relStaysInside } from '../store/safePath';
import type { Clock } from '../ports';
import { systemClock } from '../ports';
import { WaymarkError } from '../errors';
import type { HistoryEntry, WorkflowState } from '../types';
import type { WorkspaceContext } from '../store/workspaceContext';
import { parseWorkflowText, type ParsedWorkflow } from '../model/workflow';
import { judgeWorkflowChange, newProblems, staleCurrentStep, type ProposalProblem } from '../model/proposal';
import { isLedgerPath, isStoryText, judgeLedgerChange, judgeStoryChange, storyStatus } from '../model/bmadProposal';
import { appendHistory, readHistory, stateChange } from '../store/history';
import { withFileLock } from '../store/fileLock';
import { readRegularFileSync } from '../store/safeRead';
import { writeFileAtomic } from '../store/atomicWrite';
import { contextFor } from './states';
import { relPath, protocolPaths, shortHash, ensureDir } from './paths';
import { describeOwner, isHolder, leasesCovering, listLeases } from './leases';
import { appendEvent } from './events';
import { stateAt } from './timeline';
import { checkSprintProposal } from '../bmad/sprint';
import { isPlanText, isTicketsToml, judgeTreeEdit } from '../bmad/treeProposal';

export type { ProposalProblem } from '../model/proposal';

/** What a file is to Waymark: workflow frontmatter, a BMAD story or ledger, a BMAD v7 plan or `tickets.toml`, Waymark's own records. */
export type StateFileKind = 'workflow' | 'story' | 'ledger' | 'ticket-plan' | 'tickets' | 'waymark-record';

interface BmadInput {
  root: string;
  file: string;
  rel: string;
  beforeText: string | undefined;
  text: string;
}

/**
 * What the BMAD module's sprint rules (ledger, stories, epics, QA gates and the drift between
 * them) say the proposed text would introduce. Infos are left out; a rule the status machine
 * already reported (same code) is not said twice.
 */
function sprintProblems(i: BmadInput, already: ProposalProblem[]): ProposalProblem[] {
  const r = checkSprintProposal(i.root, i.file, i.text);
  const seen = new Set(already.map((p) => p.code));
  return r.introduced
    .filter((p) => p.severity !== 'info' && !seen.has(p.code))
    .map((p) => ({ severity: p.severity === 'error' ? 'error' : 'warning', code: p.code, message: `${p.file === i.file ? '' : `${relPath(i.root, p.file)} `}line ${p.range.start.line + 1}: ${p.message}`, line: p.file === i.file ? p.range.start.line + 1 : undefined }));
}

/**
 * The BMAD ledger/story rules: the status machine over BMAD's words (model/bmadProposal.ts),
 * then the BMAD module's sprint rules.
 */
const bmadRules = {
  story(i: BmadInput): ProposalProblem[] {
    const own = judgeStoryChange(i.beforeText, i.text, i.rel);
    return [...own, ...sprintProblems(i, own)];
  },
  ledger(i: BmadInput): ProposalProblem[] {
    const own = judgeLedgerChange(i.beforeText, i.text, i.rel);
    return own.some((p) => p.code === 'state-hidden') ? own : [...own, ...sprintProblems(i, own)];
  },
};

/** True when the BMAD module counts `file` among the sprint's story files. */
function isSprintStory(root: string, file: string, text: string): boolean {
  return !isLedgerPath(file) && checkSprintProposal(root, file, text).applies;
}

export interface ProposalVerdict {
  file: string;
  /** `file` relative to the root, `/`-separated. */
  rel: string;
  root: string;
  /** Undefined when the file holds no state: nothing was checked. */
  kind?: StateFileKind;
  /** Errors refuse the edit; warnings are worth telling the agent. */
  problems: ProposalProblem[];
  /** True when the edit changes state (not only body text or timestamps). */
  changesState: boolean;
  before?: WorkflowState;
  after?: WorkflowState;
}

/**
 * The real path of `file` (or of its nearest existing folder, for a file not yet created) must
 * lie inside the real root: a link must not make Waymark judge or record files elsewhere.
 */
export function assertInsideWorkspace(root: string, file: string): void {
  const realRoot = fs.realpathSync(root);
  let probe = path.resolve(root, file);
  let suffix = '';
  for (;;) {
    try {
      const real = fs.realpathSync(probe);
      const rel = path.relative(realRoot, path.join(real, suffix));
      if (!relStaysInside(rel)) {
        throw new WaymarkError('usage', `${file} is outside the workspace ${realRoot}${real !== probe ? ` (it resolves to ${path.join(real, suffix)})` : ''}; Waymark only judges files inside it.`, file);
      }
      return;
    } catch (e) {
      if (WaymarkError.is(e)) throw e;
      const up = path.dirname(probe);
      if (up === probe) throw new WaymarkError('usage', `${file} is outside the workspace ${realRoot}.`, file);
      suffix = path.join(path.basename(probe), suffix);
      probe = up;
    }
  }
}

const MAX_TEXT = 4 * 1024 * 1024;

/** The file's current text, or undefined when it does not exist. */
export function readCurrentText(file: string): string | undefined {
  try {
    const buf = readRegularFileSync(file, MAX_TEXT);
    return buf.toString('utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ENOTREG') throw new WaymarkError('unreadable', `${file} is not a regular file.`, file);
    if (code === 'EFBIG') throw new WaymarkError('unreadable', `${file} is larger than ${MAX_TEXT} bytes; Waymark does not judge it.`, file);
    throw new WaymarkError('unreadable', `Cannot read ${file}: ${(e as Error).message}.`, file);
  }
}

function recordFix(rel: string): string {
  if (rel.startsWith('.waymark/gates/')) return 'gate verdicts are a reviewer\'s record: waymark gate pass|concerns|fail|waive FILE STEP --by NAME';
  if (/^(\.waymark|\.git\/waymark)\/(leases|modes)\//.test(rel)) return 'use waymark lease acquire|release|takeover (or waymark mode start|end)';
  if (rel.startsWith('.waymark/checkpoints/')) return 'use waymark checkpoint create|restore';
  if (rel.startsWith('.waymark/journal/')) return "the journal is Waymark's record of a change under way: the next waymark command finishes or undoes it and clears it; leave it in place";
  return 'Waymark appends these itself; change state with the waymark commands (waymark --help)';
}

/**
 * Waymark's own records: written only by Waymark (config and workflow definitions are people's
 * files). Leases and modes shared by worktrees sit in the git folder (`.git/waymark/`).
 */
export function isWaymarkRecord(rel: string): boolean {
  return /^\.waymark\/(gates|history|events|leases|modes|checkpoints|locks|journal)\//.test(rel) || /^\.git\/waymark\//.test(rel) || rel === '.waymark/files-manifest.csv';
}

function matchesInclude(ctx: WorkspaceContext, rel: string): boolean {
  return ctx.include.some((r) => r.test(rel)) && !ctx.exclude.some((r) => r.test(rel));
}

function parse(ctx: WorkspaceContext, file: string, text: string | undefined): ParsedWorkflow | undefined {
  return text === undefined ? undefined : parseWorkflowText(file, text, ctx);
}

function leaseProblems(root: string, file: string, rel: string, who: { actor?: string; session?: string }, clock: Clock): ProposalProblem[] {
  const out: ProposalProblem[] = [];
  for (const s of leasesCovering(root, file, clock)) {
    if (s.stale || isHolder(s.lease, who)) continue;
    out.push({
      severity: 'error', code: 'leased',
      message: `${s.lease.key === 'root' ? 'the workspace' : rel} is leased to ${describeOwner(s.lease.owner)} until ${s.lease.expiresAt}`,
      fix: `wait or ask the holder to release it; taking over is explicit: waymark lease takeover ${s.lease.key === 'root' ? '' : rel}`.trimEnd(),
    });
  }
  return out;
}

/**
 * Judges a proposed full text of `file` (undefined: the file is deleted) against its current
 * state, with the rules a Waymark mutation follows, the BMAD story/ledger rules, and leases
 * held by someone other than `who`. Never writes. Throws WaymarkError('usage') for a file
 * outside the workspace.
 */
export async function checkProposedEdit(input: {
  root: string;
  file: string;
  text: string | undefined;
  /** The text to compare against; read from disk when not given (a staged commit passes HEAD's). */
  beforeText?: string | null;
  actor?: string;
  session?: string;
  clock?: Clock;
  /** Skip the lease check (git pre-commit: leases govern live writers, not history). */
  leases?: boolean;
}): Promise<ProposalVerdict> {
  const root = path.resolve(input.root);
  const file = path.resolve(root, input.file);
  assertInsideWorkspace(root, file);
  const rel = relPath(root, file);
  const clock = input.clock ?? systemClock;
  const base: ProposalVerdict = { file, rel, root, problems: [], changesState: false };
  if (isWaymarkRecord(rel)) {
    return { ...base, kind: 'waymark-record', changesState: true, problems: [{ severity: 'error', code: 'waymark-record', message: `${rel} is a Waymark record; it is not edited by hand or by agents`, fix: recordFix(rel) }] };
  }
  const beforeText = input.beforeText === null ? undefined : input.beforeText ?? readCurrentText(file);
  const who = { actor: input.actor, session: input.session };
  const withLeases = (v: ProposalVerdict): ProposalVerdict => (v.changesState && input.leases !== false ? { ...v, problems: [...v.problems, ...leaseProblems(root, file, rel, who, clock)] } : v);
  if (isLedgerPath(rel)) {
    if (beforeText === input.text) return { ...base, kind: 'ledger' };
    if (input.text === undefined) return withLeases({ ...base, kind: 'ledger', changesState: true, problems: [{ severity: 'error', code: 'state-removed', message: `deleting ${rel} erases the sprint ledger`, fix: 'keep the ledger; it only moves forward' }] });
    return withLeases({ ...base, kind: 'ledger', changesState: true, problems: bmadRules.ledger({ root, file, rel, beforeText, text: input.text }) });
  }
  // BMAD v7's ticket tree: a plan's status and tickets.toml, by the rules story set-status follows.
  if (isTicketsToml(rel) || isPlanText(file, beforeText) || isPlanText(file, input.text)) {
    const v = judgeTreeEdit(root, file, beforeText, input.text);
    if (v) return withLeases({ ...base, kind: v.kind, changesState: v.changesState, problems: v.problems });
  }
  const ctx = await contextFor(root);
  if (!matchesInclude(ctx, rel)) return base;
  const before = parse(ctx, file, beforeText);
  const after = parse(ctx, file, input.text);
  if (before?.isWorkflow || after?.isWorkflow) {
    if (!after) {
      return withLeases({ ...base, kind: 'workflow', before: before?.state, changesState: true, problems: [{ severity: 'error', code: 'state-removed', message: `deleting ${rel} erases its workflow state`, fix: `keep it; to end the workflow run waymark set-status ${rel} completed (or archived)` }] });
    }
    const problems = judgeWorkflowChange(before?.state, after, rel);
    const changesState = !before?.state || !after.state || before.state.stateHash !== after.state.stateHash;
    return withLeases({ ...base, kind: 'workflow', before: before?.state, after: after.state, changesState, problems });
  }
  const storyBefore = beforeText !== undefined && isStoryText(beforeText);
  const storyAfter = input.text !== undefined && (isStoryText(input.text) || isSprintStory(root, file, input.text));
  if (storyBefore || storyAfter) {
    // (Texts that differ change the story; equal texts state the same status: no parse needed.)
    const changesState = beforeText !== input.text;
    if (input.text === undefined) return withLeases({ ...base, kind: 'story', changesState: true, problems: [{ severity: 'error', code: 'state-removed', message: `deleting story ${rel} erases its status`, fix: 'keep the story; mark unfinished work in a follow-up story' }] });
    return withLeases({ ...base, kind: 'story', changesState, problems: bmadRules.story({ root, file, rel, beforeText, text: input.text }) });
  }
  return base;
}

/**
 * Applies an agent's string replacements the way its edit tool does: each `oldString` must be
 * found (exactly once unless `replaceAll`); an empty `oldString` on a missing file creates it.
 * Returns undefined when the tool itself would fail (then nothing is written and nothing needs
 * judging).
 */
export function applyReplacements(current: string | undefined, edits: { oldString: string; newString: string; replaceAll?: boolean; count?: number }[]): string | undefined {
  let text = current;
  for (const e of edits) {
    if (text === undefined) {
      if (e.oldString !== '') return undefined;
      text = e.newString;
      continue;
    }
    if (e.oldString === '') return undefined;
    const parts = text.split(e.oldString);
    const found = parts.length - 1;
    if (found === 0) return undefined;
    if (e.replaceAll) text = parts.join(e.newString);
    else if (e.count !== undefined) {
      if (found !== e.count) return undefined;
      text = parts.join(e.newString);
    } else {
      if (found !== 1) return undefined;
      text = parts.join(e.newString);
    }
  }
  return text;
}

// ---- after the edit: snapshots, history, events ------------------------------------------------

/** hooks/quickCheck.ts looks for this name on its fast path: change both together. */
function snapshotPath(root: string, rel: string): string {
  return path.join(protocolPaths(root).base, 'cache', 'hooks', `before-${shortHash(rel)}.json`);
}

/**
 * Keeps the text a state file had before an allowed agent edit, so the check after the edit can
 * say what changed. Lives in `.waymark/cache/` (safe to delete; without it the last history
 * entry is the baseline).
 */
export function saveEditSnapshot(root: string, file: string, text: string | undefined, clock: Clock = systemClock): void {
  const rel = relPath(root, file);
  const p = snapshotPath(root, rel);
  ensureDir(root, path.dirname(p));
  // Atomic through a temp file of its own (created exclusively, never a link found there); a link
  // at the snapshot's name is replaced, not followed. A cache: not fsynced.
  writeFileAtomic(p, JSON.stringify({ rel, time: clock.now().toISOString(), exists: text !== undefined, text: text ?? null }), { root, durable: false, replaceLink: true });
}

/** Takes (reads and removes) the snapshot saved before an edit, if any. */
export function takeEditSnapshot(root: string, file: string): { text: string | undefined } | undefined {
  const p = snapshotPath(root, relPath(root, file));
  let raw: string;
  try {
    raw = fs.readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
  fs.rmSync(p, { force: true });
  try {
    const v = JSON.parse(raw) as { exists?: boolean; text?: string | null };
    return { text: v.exists && typeof v.text === 'string' ? v.text : undefined };
  } catch {
    return undefined;
  }
}

export interface AgentEditRecord {
  verdict: ProposalVerdict;
  /** The history line appended, when the state changed. */
  entry?: HistoryEntry;
  /** Problems the new state has that the old one did not (errors included: the edit already landed). */
  problems: ProposalProblem[];
}

const RECORD_FIELDS = ['status', 'rawStatus', 'currentStep', 'stepsCompleted', 'lastStep', 'scope', 'blockedReason', 'delegation'] as const;

function fieldsOf(s: WorkflowState | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s) for (const k of RECORD_FIELDS) if (s[k] !== undefined) out[k] = s[k];
  return out;
}

/**
 * After an agent's edit of `file` landed: judges the new text against the text before (the
 * snapshot saved by the check before the edit, else the state the history last recorded), and
 * when the state changed appends the history line and the `workflow.agent-edit` event the edit
 * implies, under the file's lock, with the agent's session.
 */
export async function recordAgentEdit(input: { root: string; file: string; actor: string; session?: string; tool?: string; clock?: Clock }): Promise<AgentEditRecord> {
  const root = path.resolve(input.root);
  const file = path.resolve(root, input.file);
  assertInsideWorkspace(root, file);
  const clock = input.clock ?? systemClock;
  const now = readCurrentText(file);
  const snap = takeEditSnapshot(root, file);
  const ctx = await contextFor(root);
  const historyDir = ctx.config.history.dir;
  let verdict: ProposalVerdict;
  let from: Record<string, unknown>;
  let to: Record<string, unknown>;
  let hashBefore: string | undefined;
  if (snap) {
    verdict = await checkProposedEdit({ root, file, text: now, beforeText: snap.text ?? null, actor: input.actor, session: input.session, clock, leases: false });
    ({ from, to } = stateChange(verdict.before, verdict.after));
    hashBefore = verdict.before?.stateHash;
  } else {
    // No snapshot (a shell command, or the check before did not run): the last recorded state is the baseline.
    verdict = await checkProposedEdit({ root, file, text: now, beforeText: now, actor: input.actor, session: input.session, clock, leases: false });
    const entries = verdict.kind === 'workflow' ? readHistory(root, file, historyDir) : [];
    const last = entries.length ? stateAt(entries, { seq: entries[entries.length - 1].seq }) : undefined;
    hashBefore = last?.hash;
    const prev = last?.state ?? {};
    const cur = fieldsOf(verdict.after);
    from = {};
    to = {};
    for (const k of new Set([...Object.keys(prev), ...Object.keys(cur)])) {
      if (JSON.stringify(prev[k]) !== JSON.stringify(cur[k])) {
        from[k] = prev[k] ?? null;
        to[k] = cur[k] ?? null;
      }
    }
    // Nothing recorded yet and nothing to compare with: the first state seen is not an edit.
    const changed = entries.length > 0 && hashBefore !== verdict.after?.stateHash;
    let problems = verdict.problems;
    if (changed && verdict.after) {
      // Judge the landed state against the state history last recorded (its fields, no text).
      const recorded = { ...verdict.after, problems: [] } as WorkflowState;
      // History lines carry only the fields that changed: the others stay as they are now.
      for (const k of RECORD_FIELDS) if (k in prev) (recorded as unknown as Record<string, unknown>)[k] = prev[k] === null ? (k === 'stepsCompleted' ? [] : undefined) : prev[k];
      problems = judgeWorkflowChange(recorded, { isWorkflow: true, state: verdict.after, problems: verdict.after.problems }, verdict.rel);
    }
    verdict = { ...verdict, changesState: changed, problems };
  }
  let entry: HistoryEntry | undefined;
  if (verdict.kind === 'workflow' && verdict.changesState && verdict.after) {
    const after = verdict.after;
    const detail = { via: 'agent-hook', ...(input.tool ? { tool: input.tool } : {}) };
    entry = await withFileLock(
      file,
      () => appendHistory(root, { time: clock.now().toISOString(), session: input.session, actor: input.actor, operation: 'agent-edit', file, from, to, hashBefore, hashAfter: after.stateHash, detail }, historyDir).entry,
      { root, purpose: 'waymark hook: agent edit' },
    );
    appendEvent(root, { type: 'workflow.agent-edit', file: verdict.rel, actor: input.actor, session: input.session, data: { historySeq: entry.seq, hashBefore, hashAfter: after.stateHash, status: after.status, currentStep: after.currentStep, nextStep: after.nextStep, detail } }, { clock });
  } else if ((verdict.kind === 'story' || verdict.kind === 'ledger' || verdict.kind === 'ticket-plan' || verdict.kind === 'tickets') && verdict.changesState) {
    appendEvent(root, { type: `${verdict.kind}.agent-edit`, file: verdict.rel, actor: input.actor, session: input.session, data: { via: 'agent-hook', ...(input.tool ? { tool: input.tool } : {}), ...(verdict.kind === 'story' ? { status: storyStatus(now ?? '')?.word ?? null } : {}) } }, { clock });
  }
  return { verdict, entry, problems: verdict.problems };
}

// ---- sessions: where to continue, and what a stopping agent leaves behind ------------------

export interface LeftInconsistent {
  rel: string;
  message: string;
  fix?: string;
}

/**
 * Workflow files a session wrote, per the events log's active segment (the last MiB of events:
 * a stop hook runs after every turn, so it does not read the whole archive).
 */
function filesOfSession(root: string, session: string): string[] {
  const seen = new Set<string>();
  let text: string | undefined;
  try {
    text = readCurrentText(protocolPaths(root).eventsFile);
  } catch {
    return [];
  }
  for (const line of (text ?? '').split('\n')) {
    if (!line.includes(session)) continue;
    let e: { session?: unknown; file?: unknown; type?: unknown };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue; // a torn line: the events log repairs it on its next append
    }
    if (e.session === session && typeof e.file === 'string' && typeof e.type === 'string' && e.type.startsWith('workflow.')) seen.add(e.file);
  }
  return [...seen];
}

const INCONSISTENT = new Set(['last-step-mismatch', 'steps-done-status-open', 'status-complete-steps-remain', 'step-gap', 'gate-not-passed', 'yaml-syntax', 'frontmatter-unclosed']);

/**
 * What an agent stopping now leaves inconsistent in the workflows its session wrote: a step
 * done without the rest of its completion write (lastStep, currentStep, status), a gated step
 * done without a verdict, a broken frontmatter, and leases the session still holds.
 */
export async function sessionLeftovers(root: string, session: string, clock: Clock = systemClock): Promise<LeftInconsistent[]> {
  const out: LeftInconsistent[] = [];
  const ctx = await contextFor(root);
  for (const rel of filesOfSession(root, session)) {
    const file = path.join(root, rel);
    let text: string | undefined;
    try {
      text = readCurrentText(file);
    } catch {
      continue;
    }
    if (text === undefined) continue;
    const parsed = parseWorkflowText(file, text, ctx);
    for (const p of parsed.problems) {
      if (!INCONSISTENT.has(p.code)) continue;
      out.push({ rel, message: `line ${p.range.start.line + 1}: ${p.message}`, fix: typeof p.data?.fix === 'string' && p.data.fix !== 'createGate' ? `waymark fix ${rel} ${p.code}` : undefined });
    }
    const stale = parsed.state ? staleCurrentStep(parsed.state) : undefined;
    if (stale) out.push({ rel, message: stale, fix: `set currentStep: ${parsed.state!.nextStep} (waymark advance and complete-step update every key in one write)` });
  }
  for (const l of listLeases(root, clock)) {
    if (l.stale || l.lease.owner.session !== session) continue;
    const target = l.lease.key === 'root' ? '' : ` ${l.lease.target}`;
    out.push({ rel: l.lease.target, message: `this session still holds the lease on ${l.lease.key === 'root' ? 'the workspace' : l.lease.target} (until ${l.lease.expiresAt})`, fix: `release it when done: waymark lease release${target} --session ${session}` });
  }
  return out;
}

/** Problems the proposal produced at error level. */
export function refusals(v: ProposalVerdict): ProposalProblem[] {
  return v.problems.filter((p) => p.severity === 'error');
}

export { newProblems };

/** The current parsed state of one workflow file, or undefined when it holds none (or cannot be read). */
export async function currentState(root: string, file: string): Promise<WorkflowState | undefined> {
  const ctx = await contextFor(path.resolve(root));
  let text: string | undefined;
  try {
    text = readCurrentText(path.resolve(root, file));
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : parseWorkflowText(path.resolve(root, file), text, ctx).state;
}
