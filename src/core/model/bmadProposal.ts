/**
 * Proposed edits of BMAD's own state outside frontmatter: a story file's `Status:` line and
 * task checkboxes, and the sprint ledger (`sprint-status.yaml`, `development_status:`). A
 * stand-in until the BMAD module exports its own ledger/story rules: the same status machine
 * (transitions.ts) over BMAD's words, plus the two rules agents break most (done with tasks
 * open, done without review). Pure.
 */
import { parse as parseYaml } from './yamlDepth';
import { BMAD_STATUS_MAP } from '../bmad/artifacts';
import { ledgerRank } from '../bmad/ledger';
import { plainLedger } from '../bmad/ledgerPlain';
import { normalizeStoryStatus, parseStory, setAsideStatus, taskOpen, type StoryFile } from '../bmad/story';
import { transitionRefusal } from './transitions';
import type { ProposalProblem } from './proposal';
import { quoted } from './text';

const STORY_HEADING = /^#\s+Story\b/m;

/** What a story file says its status is: the words as written, BMAD's word for them, their line (1-based). */
export interface StoryStatement {
  word: string;
  /** BMAD's word (`Ready for Review` → review, `✅ Completed` → done); `set-aside` for On Hold, Superseded…; undefined when unknown. */
  status?: string;
  line: number;
}

function bmadWord(raw: string): string | undefined {
  const n = normalizeStoryStatus(raw);
  return n.status ?? n.suggestion ?? (setAsideStatus(raw) !== undefined ? 'set-aside' : undefined);
}

/**
 * The status a story file states, read as the sprint reads it (bmad/story.ts `parseStory`): a
 * Status line in any of its forms, a `## Status` section or heading, frontmatter. A frontmatter
 * `status:` kept beside a Status line, saying otherwise: the story stands at the statement further
 * along (as the sprint reads it), so making the file agree with itself is no move.
 */
export function storyStatus(text: string, file = 'story.md'): StoryStatement | undefined {
  return statementOf(parseStory(file, text));
}

function statementOf(s: StoryFile): StoryStatement | undefined {
  if (s.status === undefined || s.statusLine === undefined) return undefined;
  const body: StoryStatement = { word: s.status, status: bmadWord(s.status), line: s.statusLine + 1 };
  // A frontmatter status beside the Status line, or a v4 QA verdict below it (bmad/finalStatus.ts):
  // the file stands at the statement further along, as the sprint reads it (drift.ts furtherStatement).
  const fm = s.frontmatterStatus;
  const fin = s.finalStatus;
  let out = body;
  for (const other of [fm && { word: fm.value, status: bmadWord(fm.value), line: fm.line + 1 }, fin && { word: fin.value, status: bmadWord(fin.status), line: fin.line + 1 }]) {
    if (other && ledgerRank('story', other.status ?? '') > ledgerRank('story', out.status ?? '')) out = other;
  }
  return out;
}

/** True for a BMAD story file: a `# Story` heading and a status stated in any form the sprint reads (storyStatus). */
export function isStoryText(text: string): boolean {
  return STORY_HEADING.test(text.slice(0, 4096)) && storyStatus(text) !== undefined;
}

/** True for the sprint ledger's file name. */
export function isLedgerPath(file: string): boolean {
  return /(^|[\\/])sprint-status\.ya?ml$/i.test(file);
}

const BMAD_WORDS = 'backlog, ready-for-dev, in-progress, review, done';

/** BMAD's words for a story, with `drafted` (earlier BMAD v6 releases) among the not-started ones. */
function statusOf(word: string): import('../types').Status | undefined {
  const w = word.toLowerCase();
  return w === 'drafted' ? 'created' : BMAD_STATUS_MAP[w];
}

/** Unticked tasks (`- [ ]`) under a `## Tasks` heading (a story file, or a v7 plan that keeps one). */
export function openTaskCount(text: string): number {
  const m = /^#{2,3}\s+Tasks\b[^\n]*\n([\s\S]*?)(?=^#{1,3}\s|(?![\s\S]))/m.exec(text);
  const section = m ? m[1] : '';
  return (section.match(/^\s*[-*]\s+\[ \]/gm) ?? []).length;
}

/** The command that sets a story's status, for a refusal's fix (`KEY` when the file names no story). */
function setStatusCommand(key: string | undefined, to: string): string {
  return `waymark story set-status ${key ?? 'KEY'} ${to}`;
}

/**
 * Rules for a story's status moving from `from` to `to` (BMAD words, or a ledger's own); `shown`
 * are the words as written, for the message; `key` names the story in the fix's command.
 */
function storyStep(rel: string, from: string | undefined, to: string, what: string, shown: { from?: string; to: string } = { from, to }, key?: string): ProposalProblem | undefined {
  const a = statusOf(to);
  if (!a) return { severity: 'error', code: 'status-unknown', message: `${what} status ${quoted(shown.to)} is not a BMAD status`, fix: `use one of ${BMAD_WORDS} (${setStatusCommand(key, 'STATUS')})` };
  if (from === undefined || from.toLowerCase() === to.toLowerCase()) return undefined;
  const b = statusOf(from);
  const why = transitionRefusal(b, a);
  if (why) {
    const fix =
      b === 'completed'
        ? `leave it done and open a follow-up story for the new work; if a person means to reopen it: ${setStatusCommand(key, to)} --force (recorded in history)`
        : b === 'created'
          ? `start it first: ${setStatusCommand(key, 'in-progress')} (the dev-story workflow starts it), then review, then done`
          : undefined;
    return { severity: 'error', code: 'status-transition', message: `${what} status ${shown.from ?? from} → ${shown.to}: ${why}`, fix };
  }
  if (to.toLowerCase() === 'done' && !['review', 'in-review', 'ready-for-review'].includes(from.toLowerCase())) {
    return { severity: 'error', code: 'story-done-without-review', message: `${what} goes ${shown.from ?? from} → ${shown.to} without review`, fix: `set it to review first (${setStatusCommand(key, 'review')}); the code-review workflow moves a reviewed story to done (${rel})` };
  }
  return undefined;
}

/**
 * Judges a proposed story text against the current one (undefined for a new file), by the status
 * the reader reads in either (`storyStatus`), whatever form the file writes it in.
 */
export function judgeStoryChange(beforeText: string | undefined, afterText: string, rel: string): ProposalProblem[] {
  const out: ProposalProblem[] = [];
  const before = beforeText !== undefined ? storyStatus(beforeText, rel) : undefined;
  const parsed = parseStory(rel, afterText);
  const after = statementOf(parsed);
  if (!after) {
    if (before) out.push({ severity: 'error', code: 'state-removed', message: `the edit removes the Status: line of story ${rel} (line ${before.line})`, fix: `keep the Status: line (${BMAD_WORDS})` });
    return out;
  }
  const what = `story ${rel}`;
  const key = parsed.key;
  if (after.status === 'set-aside') {
    // On hold, superseded, split: work set aside, from anywhere but done (finished work set aside is rewound).
    if (before?.status === 'done') out.push({ severity: 'error', code: 'status-transition', message: `${what} status ${before.word} → ${after.word}: a done story set aside rewinds finished work`, fix: `leave it done and open a follow-up story for what changed; if a person means it: ${setStatusCommand(key, 'STATUS')} --force (recorded in history)`, line: after.line });
    return out;
  }
  const from = before?.status !== undefined && before.status !== 'set-aside' ? before.status : undefined;
  const step = storyStep(rel, from, after.status ?? after.word, what, { from: before?.word, to: after.word }, key);
  if (step) out.push({ ...step, line: after.line });
  if (after.status === 'done' && (before?.status !== 'done' || beforeText === undefined)) {
    const open = parsed.tasks.filter(taskOpen).length;
    if (open) out.push({ severity: 'error', code: 'story-done-tasks-open', message: `${what} is set to done with ${open} task${open > 1 ? 's' : ''} still open (- [ ])`, fix: `finish and tick the tasks first (waymark story check ${key ?? 'KEY'} TASK), or move the unfinished ones to a follow-up story`, line: after.line });
  }
  return out;
}

function ledgerEntries(text: string): { entries?: Map<string, string>; error?: string } {
  // The plain form BMAD writes, read as the YAML package reads it (bmad/ledgerPlain.ts), without it.
  let doc: unknown = plainLedger(text)?.data;
  if (doc === undefined) {
    try {
      doc = parseYaml(text, { maxAliasCount: 50 });
    } catch (e) {
      return { error: (e as Error).message.split('\n')[0] };
    }
  }
  const ds = doc && typeof doc === 'object' ? (doc as Record<string, unknown>).development_status : undefined;
  if (!ds || typeof ds !== 'object' || Array.isArray(ds)) return { entries: new Map() };
  const m = new Map<string, string>();
  for (const [k, v] of Object.entries(ds as Record<string, unknown>)) if (typeof v === 'string') m.set(k, v);
  return { entries: m };
}

/** Judges a proposed `sprint-status.yaml` against the current one: every entry by the story rules. */
export function judgeLedgerChange(beforeText: string | undefined, afterText: string, rel: string): ProposalProblem[] {
  const after = ledgerEntries(afterText);
  if (after.error) return [{ severity: 'error', code: 'state-hidden', message: `the edit leaves ${rel} unreadable: ${after.error}`, fix: 'keep the ledger valid YAML' }];
  const before = beforeText !== undefined ? ledgerEntries(beforeText).entries ?? new Map<string, string>() : new Map<string, string>();
  const out: ProposalProblem[] = [];
  for (const [key, word] of before) {
    if (!after.entries!.has(key)) out.push({ severity: 'error', code: 'ledger-entry-removed', message: `the edit removes ${key} (${word}) from ${rel}`, fix: `keep the entry; the ledger only moves forward` });
  }
  for (const [key, word] of after.entries!) {
    // Retrospectives use optional/completed; epics use contexted: only refuse moves backwards there.
    const known = statusOf(word) !== undefined;
    const prev = before.get(key);
    if (!known) {
      if (prev !== undefined && prev !== word && statusOf(prev) === 'completed') out.push({ severity: 'error', code: 'status-transition', message: `${key} in ${rel}: ${prev} → ${word} reopens finished work`, fix: 'leave it done; add a follow-up story instead' });
      continue;
    }
    const p = storyStep(rel, prev && statusOf(prev) ? prev : undefined, word, `${key} in ${rel}:`, undefined, /^epic-|retrospective$/.test(key) ? undefined : key);
    if (p && !(p.code === 'story-done-without-review' && /^epic-|retrospective$/.test(key))) out.push(p);
  }
  return out;
}
