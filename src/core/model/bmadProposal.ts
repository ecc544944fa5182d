/**
 * Proposed edits of BMAD's own state outside frontmatter: a story file's `Status:` line and
 * task checkboxes, and the sprint ledger (`sprint-status.yaml`, `development_status:`). A
 * stand-in until the BMAD module exports its own ledger/story rules: the same status machine
 * (transitions.ts) over BMAD's words, plus the two rules agents break most (done with tasks
 * open, done without review). Pure.
 */
import { parse as parseYaml } from 'yaml';
import { BMAD_STATUS_MAP } from '../bmad/artifacts';
import { ledgerRank } from '../bmad/ledger';
import { normalizeStoryStatus } from '../bmad/story';
import { transitionRefusal } from './transitions';
import type { ProposalProblem } from './proposal';
import { quoted } from './text';

const STATUS_LINE = /^(?:\*\*)?Status(?:\*\*)?:\s*(?:\*\*)?\s*([A-Za-z][\w-]*)/m;
const STORY_HEADING = /^#\s+Story\b/m;

/** The `Status:` word of a story file (within its first 60 lines), or undefined. */
export function storyStatus(text: string): { word: string; line: number } | undefined {
  const head = text.split('\n', 60).join('\n');
  const m = STATUS_LINE.exec(head);
  if (!m) return undefined;
  const body = { word: m[1], line: head.slice(0, m.index).split('\n').length };
  // A frontmatter `status:` kept beside the Status line, saying otherwise: the story stands at the
  // statement further along (as the sprint reads it), so making the file agree with itself is no move.
  const fm = text.startsWith('---') ? /^---\r?\n(?:(?!---\s*$).*\r?\n)*?status\s*:\s*["']?([A-Za-z][\w -]*?)["']?\s*(?:#.*)?\r?$/im.exec(head) : null;
  if (!fm || fm.index !== 0 || m.index < fm[0].length) return body;
  const rank = (w: string) => ledgerRank('story', normalizeStoryStatus(w).status ?? '');
  return rank(fm[1]) > rank(body.word) ? { word: fm[1], line: head.slice(0, fm.index + fm[0].length).split('\n').length } : body;
}

/** True for a BMAD story file: a `# Story` heading and a `Status:` line near the top. */
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

/** Rules for a story's status word moving from `from` to `to` (BMAD words). */
function storyStep(rel: string, from: string | undefined, to: string, what: string): ProposalProblem | undefined {
  const a = statusOf(to);
  if (!a) return { severity: 'error', code: 'status-unknown', message: `${what} status ${quoted(to)} is not a BMAD status`, fix: `use one of ${BMAD_WORDS}` };
  if (from === undefined || from.toLowerCase() === to.toLowerCase()) return undefined;
  const b = statusOf(from);
  const why = transitionRefusal(b, a);
  if (why) {
    const fix = b === 'completed' ? 'leave it done and open a follow-up story for the new work' : b === 'created' ? `move it to in-progress first (the dev-story workflow starts it), then review, then done` : undefined;
    return { severity: 'error', code: 'status-transition', message: `${what} status ${from} → ${to}: ${why}`, fix };
  }
  if (to.toLowerCase() === 'done' && !['review', 'in-review', 'ready-for-review'].includes(from.toLowerCase())) {
    return { severity: 'error', code: 'story-done-without-review', message: `${what} goes ${from} → done without review`, fix: `set it to review first; the code-review workflow moves a reviewed story to done (${rel})` };
  }
  return undefined;
}

/** Judges a proposed story text against the current one (undefined for a new file). */
export function judgeStoryChange(beforeText: string | undefined, afterText: string, rel: string): ProposalProblem[] {
  const out: ProposalProblem[] = [];
  const before = beforeText !== undefined ? storyStatus(beforeText) : undefined;
  const after = storyStatus(afterText);
  if (!after) {
    if (before) out.push({ severity: 'error', code: 'state-removed', message: `the edit removes the Status: line of story ${rel}`, fix: `keep the Status: line (${BMAD_WORDS})` });
    return out;
  }
  const step = storyStep(rel, before?.word, after.word, `story ${rel}`);
  if (step) out.push({ ...step, line: after.line });
  if (after.word.toLowerCase() === 'done' && (before?.word.toLowerCase() !== 'done' || beforeText === undefined)) {
    const open = openTaskCount(afterText);
    if (open) out.push({ severity: 'error', code: 'story-done-tasks-open', message: `story ${rel} is set to done with ${open} task${open > 1 ? 's' : ''} still open (- [ ])`, fix: 'finish and tick the tasks ([x]) first, or move the unfinished ones to a follow-up story', line: after.line });
  }
  return out;
}

function ledgerEntries(text: string): { entries?: Map<string, string>; error?: string } {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 50 });
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
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
    const p = storyStep(rel, prev && statusOf(prev) ? prev : undefined, word, `${key} in ${rel}:`);
    if (p && !(p.code === 'story-done-without-review' && /^epic-|retrospective$/.test(key))) out.push(p);
  }
  return out;
}
