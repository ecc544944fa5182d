/**
 * Epics and planned stories from an epics document's headings, with the grammar BMAD's sprint
 * planner uses: `## Epic N: title` and `### Story N.M[a]: title`, fenced code skipped. Planned
 * stories show in the sprint even before their story file or ledger entry exists.
 */

export interface PlannedStory {
  epic: number;
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
  title: string;
  file: string;
  line: number;
  stories: PlannedStory[];
}

const EPIC = /^#{1,3}\s*Epic\s+(\d+)\s*[:.\-–]?\s*(.*?)\s*#*\s*$/i;
const STORY = /^#{2,4}\s*Story\s+(\d+)\.(\d+)([a-z]?)\s*[:.\-–]?\s*(.*?)\s*#*\s*$/i;
const FENCE = /^\s{0,3}(?:```|~~~)/;

/** BMAD's slug for a story title: lower case, runs of non-word characters to one hyphen, at most 60. */
export function storySlug(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}_]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
}

/** Parses one epics document (or one shard). Never throws. */
export function parseEpics(file: string, text: string, into?: Map<number, PlannedEpic>): Map<number, PlannedEpic> {
  const epics = into ?? new Map<number, PlannedEpic>();
  const lines = text.split(/\r?\n/);
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || !line.startsWith('#')) continue;
    let m = EPIC.exec(line);
    if (m) {
      const n = Number(m[1]);
      if (!epics.has(n)) epics.set(n, { epic: n, title: m[2], file, line: i, stories: [] });
      continue;
    }
    m = STORY.exec(line);
    if (m) {
      const n = Number(m[1]);
      let e = epics.get(n);
      if (!e) {
        e = { epic: n, title: '', file, line: i, stories: [] };
        epics.set(n, e);
      }
      const story = `${Number(m[2])}${m[3].toLowerCase()}`;
      if (e.stories.some((s) => s.story === story)) continue;
      e.stories.push({ epic: n, story, title: m[4], key: `${n}-${story}-${storySlug(m[4]) || 'story'}`, file, line: i });
    }
  }
  return epics;
}
