/**
 * Epics and planned stories from an epics document's headings, with the grammar BMAD's sprint
 * planner uses: `## Epic N: title` and `### Story N.M[a]: title`, fenced code skipped. Planned
 * stories show in the sprint even before their story file or ledger entry exists. Epic ids may be
 * lettered (`Epic 3a`), sub-epics (`Epic 0.5`) or module-prefixed (`Epic PM-01`).
 */
import { epicNumber, normEpicId } from './ledger';
import { mayBeFence, splitLines } from '../model/text';

export interface PlannedStory {
  epic: number;
  /** The epic id as written (`3`, `3a`, `pm-01`), lower case. */
  epicId: string;
  /** `3`, `6a`. */
  story: string;
  title: string;
  /** The ledger key BMAD would derive (`1-3-title-slug`). */
  key: string;
  file: string;
  line: number;
}

export interface PlannedEpic {
  epic: number;
  epicId: string;
  title: string;
  file: string;
  line: number;
  stories: PlannedStory[];
}

const ID = '((?:[a-z][a-z0-9]*-)?\\d+[a-z]?(?:[.\\-]\\d+[a-z]?)*)';
const EPIC = new RegExp(`^#{1,3}\\s*Epic\\s+${ID}\\b\\s*[:.\\-–]?\\s*(.*?)\\s*#*\\s*$`, 'i');
const STORY = new RegExp(`^#{2,4}\\s*Story\\s+${ID}\\.(\\d+)([a-z]?)\\b\\s*[:.\\-–]?\\s*(.*?)\\s*#*\\s*$`, 'i');

/**
 * The key of an epic in a map of planned epics: its number when it is only a number (`1`), else
 * its normalized id (`3a`, `0-5`, `pm-1`).
 */
export function epicMapKey(id: string): number | string {
  const n = normEpicId(id);
  return /^\d+$/.test(n) ? Number(n) : n;
}
const FENCE = /^\s{0,3}(?:```|~~~)/;

/** BMAD's slug for a story title: lower case, runs of non-word characters to one hyphen, at most 60. */
export function storySlug(title: string): string {
  return slugWords(title).slice(0, 60).replace(/-+$/, '');
}

/** BMAD's slug of `text` at any length: its letters, digits and `_` in lower case, every other run one `-`. */
export function slugWords(text: string): string {
  const lower = text.toLowerCase();
  // An ASCII title (nearly all of them) needs no Unicode tables: the same classes, in ASCII.
  const notSlug = /^[\x00-\x7f]*$/.test(lower) ? /[^a-z0-9_]+/g : /[^\p{L}\p{N}_]+/gu;
  return lower.replace(notSlug, '-').replace(/^-+|-+$/g, '');
}

/** Parses one epics document (or one shard). Never throws. */
export function parseEpics(file: string, text: string, into?: Map<number | string, PlannedEpic>): Map<number | string, PlannedEpic> {
  const epics = into ?? new Map<number | string, PlannedEpic>();
  const lines = splitLines(text);
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (mayBeFence(line) && FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || !line.startsWith('#')) continue;
    let m = EPIC.exec(line);
    if (m) {
      const id = m[1].toLowerCase().replace(/\./g, '-');
      const k = epicMapKey(id);
      if (!epics.has(k)) epics.set(k, { epic: epicNumber(id), epicId: id, title: m[2], file, line: i, stories: [] });
      continue;
    }
    m = STORY.exec(line);
    if (m) {
      const id = m[1].toLowerCase().replace(/\./g, '-');
      const k = epicMapKey(id);
      let e = epics.get(k);
      if (!e) {
        e = { epic: epicNumber(id), epicId: id, title: '', file, line: i, stories: [] };
        epics.set(k, e);
      }
      const story = `${Number(m[2])}${m[3].toLowerCase()}`;
      if (e.stories.some((s) => s.story === story)) continue;
      e.stories.push({ epic: e.epic, epicId: id, story, title: m[4], key: `${id}-${story}-${storySlug(m[4]) || 'story'}`, file, line: i });
    }
  }
  return epics;
}
