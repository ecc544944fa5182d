/**
 * The sprint as one model, and the drift between its ledgers: `sprint-status.yaml`, the story
 * files, the epics document and the gates. Pure: it takes parsed parts and returns plain data
 * and problems on exact lines, each with a quick fix where one is safe. A clean story (file and
 * ledger agree, words in the vocabulary, tasks matching the status) gets no problem at all.
 */
import type { Problem, Range } from '../types';
import { sha256 } from '../model/hash';
import { LEDGER_ORDER, ledgerRank, storyOrder, type Ledger } from './ledger';
import { normalizeStoryStatus, taskProgress, type StoryFile } from './story';
import type { PlannedEpic } from './epics';
import type { StoryGate } from './qaGates';

export interface SprintStory {
  key: string;
  epic: number;
  /** `3`, `6a`. */
  story: string;
  title?: string;
  /** Status in `sprint-status.yaml` (legacy words mapped), and as written. */
  ledgerStatus?: string;
  ledgerRaw?: string;
  ledgerLine?: number;
  /** The story file, its status as written and mapped to the ledger vocabulary. */
  file?: string;
  fileStatus?: string;
  fileStatusMapped?: string;
  fileStatusLine?: number;
  tasks: { done: number; total: number; reviewOpen: number };
  gate?: { verdict?: string; open: boolean; file: string; expired: boolean };
  planned?: { file: string; line: number };
  /** The one status to show: the ledger's, else the file's. */
  status: string;
  /** SHA-256 over ledger status, file status and task boxes: `--expect-hash` compares it. */
  stateHash: string;
  problems: Problem[];
}

export interface SprintEpic {
  epic: number;
  title?: string;
  ledgerStatus?: string;
  ledgerLine?: number;
  retrospective?: string;
  stories: SprintStory[];
  problems: Problem[];
}

export interface SprintRecommendation {
  /** What BMAD would run next. */
  action: 'dev-story' | 'code-review' | 'create-story' | 'retrospective';
  storyKey?: string;
  reason: string;
}

export interface SprintParts {
  root: string;
  ledger?: Ledger;
  stories: StoryFile[];
  epics: Map<number, PlannedEpic>;
  gates: StoryGate[];
  now: Date;
  /** Days after which an unchanged ledger with work in progress is stale. */
  staleDays: number;
}

export interface SprintModel {
  epics: SprintEpic[];
  stories: SprintStory[];
  problems: Problem[];
  next?: SprintRecommendation;
  actionItems: { epic?: string; action?: string; owner?: string; status?: string }[];
  counts: Record<string, number>;
}

function at(line: number, start = 0, end = start): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

const idOf = (epic: number, story: string) => `${epic}.${story}`;

/** BMAD's story words, for messages. */
const STORY_WORDS = LEDGER_ORDER.story.join(', ');

/** Combines the parts into the sprint model and its drift problems. */
export function buildSprint(parts: SprintParts): SprintModel {
  const { ledger, now } = parts;
  const problems: Problem[] = [...(ledger?.problems ?? [])];
  // Stories by key; `N.M` ids can be shared (sub-epic keys `3-5-0-slug` read as story 3.5 by
  // BMAD's grammar), so an id maps to a list and a file or plan joins by exact key first.
  const byKey = new Map<string, SprintStory>();
  const byId = new Map<string, SprintStory[]>();
  const fileOf = new Map<SprintStory, StoryFile>();
  const epics = new Map<number, SprintEpic>();
  const epicOf = (n: number): SprintEpic => {
    let e = epics.get(n);
    if (!e) {
      e = { epic: n, stories: [], problems: [] };
      epics.set(n, e);
    }
    return e;
  };
  const newStory = (epic: number, story: string, key: string): SprintStory => {
    const s: SprintStory = { key, epic, story, tasks: { done: 0, total: 0, reviewOpen: 0 }, status: 'backlog', stateHash: '', problems: [] };
    byKey.set(key, s);
    const id = idOf(epic, story);
    const list = byId.get(id);
    if (list) list.push(s);
    else byId.set(id, [s]);
    epicOf(epic).stories.push(s);
    return s;
  };
  /** The story a file or plan with this key and id belongs to: same key, else the only story with that id. */
  const match = (key: string | undefined, epic: number, story: string): SprintStory | undefined => {
    if (key && byKey.has(key)) return byKey.get(key);
    const list = byId.get(idOf(epic, story));
    return list && list.length === 1 ? list[0] : undefined;
  };
  const lf = ledger?.file ?? '';
  // Ledger entries.
  if (ledger) {
    for (const e of ledger.entries) {
      const range = at(e.line, e.valueStart, e.valueEnd);
      if (e.kind === 'unknown') {
        problems.push({ file: lf, range: at(e.line, e.keyStart, e.keyStart + e.key.length), severity: 'warning', code: 'ledger-unknown-key', message: `'${e.key}' is not a key BMAD reads (epic-N, N-M-slug, N-Ma-slug, epic-N-retrospective); sprint tools skip it. Rename it or remove it.` });
        continue;
      }
      if (!e.valid) {
        const sug: { status?: string; suggestion?: string } = e.kind === 'story' ? normalizeStoryStatus(e.raw) : {};
        const value = sug.status ?? sug.suggestion;
        problems.push({
          file: lf, range, severity: 'warning', code: 'ledger-unknown-status',
          message: `'${e.raw}' is not a ${e.kind} status BMAD knows (${LEDGER_ORDER[e.kind].join(', ')}).${value ? ` Did you mean ${value}?` : ''}`,
          data: value ? { fix: 'setLedgerValue', key: e.key, value } : { key: e.key },
        });
      } else if (e.legacy) {
        problems.push({ file: lf, range, severity: 'info', code: 'ledger-legacy-status', message: `'${e.raw}' is read as '${e.status}' (an older or differently written BMAD word). Write '${e.status}' so every tool reads it the same.`, data: { fix: 'setLedgerValue', key: e.key, value: e.status } });
      }
      if (e.kind === 'epic') {
        const ep = epicOf(e.epic);
        ep.ledgerStatus = e.status;
        ep.ledgerLine = e.line;
      } else if (e.kind === 'retro') {
        epicOf(e.epic).retrospective = e.status;
      } else {
        const s = newStory(e.epic, e.story!, e.key);
        s.ledgerStatus = e.status;
        s.ledgerRaw = e.raw;
        s.ledgerLine = e.line;
      }
    }
  }
  // Story files: the file named by the ledger key wins; another file for the same story is reported.
  const subNumbered = (f: StoryFile) => Number(/^\d+-\d+[a-z]?-\d/.test(f.key ?? ''));
  const sortedFiles = [...parts.stories].sort((a, b) => Number(!(a.key && byKey.has(a.key))) - Number(!(b.key && byKey.has(b.key))) || Number(a.status === undefined) - Number(b.status === undefined) || subNumbered(a) - subNumbered(b) || a.file.localeCompare(b.file));
  for (const f of sortedFiles) {
    if (f.epic === undefined || f.story === undefined) continue;
    let s = match(f.key, f.epic, f.story);
    if (s && fileOf.has(s)) {
      const keep = fileOf.get(s)!;
      problems.push({ file: f.file, range: at(f.titleLine ?? 0), severity: 'info', code: 'story-file-duplicate', message: `Story ${s.key} has another file, ${keep.file}, which Waymark reads. Merge or rename this one if it is the same story.` });
      continue;
    }
    if (!s) s = newStory(f.epic, f.story, f.key ?? idOf(f.epic, f.story));
    fileOf.set(s, f);
    s.file = f.file;
    s.title = f.title ?? s.title;
    s.tasks = taskProgress(f.tasks);
    if (f.status !== undefined) {
      s.fileStatus = f.status;
      s.fileStatusLine = f.statusLine;
      s.fileStatusMapped = normalizeStoryStatus(f.status).status;
    }
  }
  // Planned stories from the epics document.
  for (const pe of parts.epics.values()) {
    const ep = epicOf(pe.epic);
    ep.title = pe.title || ep.title;
    for (const ps of pe.stories) {
      const existing = match(ps.key, ps.epic, ps.story) ?? byId.get(idOf(ps.epic, ps.story))?.[0];
      if (existing) {
        existing.planned = { file: ps.file, line: ps.line };
        existing.title = existing.title ?? ps.title;
        continue;
      }
      const s = newStory(ps.epic, ps.story, ps.key);
      s.title = ps.title;
      s.planned = { file: ps.file, line: ps.line };
      if (ledger) s.problems.push({ file: ps.file, range: at(ps.line, 0, 0), severity: 'warning', code: 'epics-story-not-in-ledger', message: `Story ${ps.epic}.${ps.story} (${ps.title}) is planned here but sprint-status.yaml has no entry for it. Re-run sprint planning, or add '${ps.key}: backlog'.`, data: { key: ps.key } });
    }
  }
  // Gates.
  for (const g of parts.gates) {
    if (g.epic === undefined || g.story === undefined) continue;
    const s = match(undefined, g.epic, g.story);
    if (!s) continue;
    s.gate = { verdict: g.verdict, open: g.open, file: g.file, expired: g.expired };
  }
  // Per-story drift.
  for (const s of byKey.values()) {
    const f = fileOf.get(s);
    s.status = s.ledgerStatus ?? s.fileStatusMapped ?? (s.file ? 'ready-for-dev' : 'backlog');
    storyDrift(s, f, lf, ledger !== undefined);
    s.stateHash = sha256(JSON.stringify([s.key, s.ledgerRaw ?? null, s.fileStatus ?? null, f ? f.tasks.map((t) => (t.checked ? 1 : 0)).join('') : null]));
  }
  // Per-epic drift.
  for (const ep of epics.values()) {
    ep.stories.sort((a, b) => storyOrder(a, b) || a.key.localeCompare(b.key));
    if (ep.ledgerStatus === undefined || ep.ledgerLine === undefined) {
      if (ledger && ep.stories.some((s) => s.ledgerStatus !== undefined)) {
        const first = ep.stories.find((s) => s.ledgerLine !== undefined)!;
        problems.push({ file: lf, range: at(first.ledgerLine!), severity: 'warning', code: 'ledger-epic-missing', message: `Stories of epic ${ep.epic} are listed but there is no 'epic-${ep.epic}' entry. Add 'epic-${ep.epic}: ${ep.stories.some((s) => ledgerRank('story', s.ledgerStatus ?? '') > 0) ? 'in-progress' : 'backlog'}' above them.` });
      }
      continue;
    }
    const ranked = ep.stories.filter((s) => s.ledgerStatus !== undefined);
    const open = ranked.filter((s) => s.ledgerStatus !== 'done');
    const started = ranked.filter((s) => ledgerRank('story', s.ledgerStatus!) >= 2);
    const entry = ledger!.entries.find((e) => e.kind === 'epic' && e.epic === ep.epic)!;
    const range = at(ep.ledgerLine, entry.valueStart, entry.valueEnd);
    if (ep.ledgerStatus === 'done' && open.length) {
      ep.problems.push({ file: lf, range, severity: 'warning', code: 'epic-done-stories-open', message: `epic-${ep.epic} is done but ${open.length} of its stories are not (${open.slice(0, 4).map((s) => `${s.key}: ${s.ledgerStatus}`).join(', ')}${open.length > 4 ? ', …' : ''}). Finish them or set the epic to in-progress.`, data: { fix: 'setLedgerValue', key: entry.key, value: 'in-progress' } });
    } else if (ep.ledgerStatus === 'backlog' && started.length) {
      ep.problems.push({ file: lf, range, severity: 'warning', code: 'epic-backlog-story-started', message: `epic-${ep.epic} is backlog but ${started[0].key} is ${started[0].ledgerStatus}. BMAD moves an epic to in-progress when its first story starts.`, data: { fix: 'setLedgerValue', key: entry.key, value: 'in-progress' } });
    }
    problems.push(...ep.problems);
  }
  // Stale ledger.
  const active = [...byKey.values()].filter((s) => s.ledgerStatus === 'in-progress' || s.ledgerStatus === 'review');
  const stamp = ledger?.lastUpdated ?? ledger?.generated;
  if (ledger && stamp?.date && active.length) {
    const days = (now.getTime() - stamp.date.getTime()) / 86_400_000;
    if (days > parts.staleDays) {
      problems.push({ file: lf, range: at(stamp.line, stamp.valueStart, stamp.valueEnd), severity: 'info', code: 'ledger-stale', message: `${stamp.key} is ${Math.floor(days)} days old while ${active.length} stor${active.length === 1 ? 'y is' : 'ies are'} in progress or review (${active[0].key}…). Check the ledger still says where work stands.` });
    }
  }
  const stories = [...byKey.values()].sort((a, b) => storyOrder(a, b) || a.key.localeCompare(b.key));
  for (const s of stories) problems.push(...s.problems);
  const sortedEpics = [...epics.values()].sort((a, b) => a.epic - b.epic);
  const counts: Record<string, number> = Object.create(null);
  for (const s of stories) counts[s.status] = (counts[s.status] ?? 0) + 1;
  return { epics: sortedEpics, stories, problems, next: recommend(stories, sortedEpics), actionItems: ledger?.actionItems.map(({ line: _l, ...rest }) => rest) ?? [], counts };
}

function storyDrift(s: SprintStory, f: StoryFile | undefined, lf: string, hasLedger: boolean): void {
  const out = s.problems;
  const ledgerRankOf = s.ledgerStatus !== undefined ? ledgerRank('story', s.ledgerStatus) : -1;
  const statusRange = f && f.statusLine !== undefined ? at(f.statusLine, f.statusStart ?? 0, f.statusEnd ?? 0) : f ? at(f.titleLine ?? 0) : undefined;
  // Ledger story without a file.
  if (hasLedger && !f && ledgerRankOf >= 1 && s.ledgerLine !== undefined) {
    out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: s.ledgerStatus === 'done' ? 'info' : 'warning', code: 'ledger-story-no-file', message: `${s.key} is ${s.ledgerStatus} but no story file ${s.key}.md was found. Create it (BMAD create-story) or set it back to backlog.`, data: { key: s.key } });
  }
  if (!f) return;
  // A story file the ledger does not list.
  if (hasLedger && s.ledgerStatus === undefined) {
    out.push({ file: f.file, range: at(f.titleLine ?? f.statusLine ?? 0), severity: 'warning', code: 'story-not-in-ledger', message: `Story ${s.epic}.${s.story} has a file but no entry in sprint-status.yaml. Add '${s.key}: ${s.fileStatusMapped ?? 'ready-for-dev'}' under development_status.`, data: { key: s.key, value: s.fileStatusMapped ?? 'ready-for-dev' } });
  }
  if (f.status === undefined) {
    if (hasLedger && s.ledgerStatus !== undefined) out.push({ file: f.file, range: at(f.titleLine ?? 0), severity: 'warning', code: 'story-status-missing', message: `This story file has no 'Status:' line; the ledger says ${s.ledgerStatus}. Add 'Status: ${s.ledgerStatus}' under the title.`, data: { fix: 'setStoryStatus', key: s.key, value: s.ledgerStatus } });
  } else {
    const norm = normalizeStoryStatus(f.status);
    if (!norm.status && s.ledgerRaw !== undefined && s.ledgerRaw.trim().toLowerCase() === f.status.trim().toLowerCase() && ledgerRankOf < 0) {
      // The ledger says the same word and is reported there.
    } else if (!norm.status) {
      const value = norm.suggestion ?? (s.ledgerStatus && ledgerRankOf >= 0 ? s.ledgerStatus : undefined);
      out.push({
        file: f.file, range: statusRange!, severity: 'warning', code: 'story-unknown-status',
        message: `Status '${f.status}' is not a BMAD story status (${STORY_WORDS})${s.ledgerStatus ? `; the ledger says ${s.ledgerStatus}` : ''}.${value ? ` Did you mean ${value}?` : ''}`,
        data: value ? { fix: 'setStoryStatus', key: s.key, value } : { key: s.key },
      });
    } else if (s.ledgerStatus !== undefined && ledgerRankOf >= 0 && norm.status !== s.ledgerStatus) {
      const fr = ledgerRank('story', norm.status);
      const ahead = fr > ledgerRankOf ? 'file' : 'ledger';
      const codeReview = (norm.status === 'in-progress' && s.ledgerStatus === 'review') || (norm.status === 'review' && s.ledgerStatus === 'in-progress');
      out.push({
        file: f.file, range: statusRange!, severity: codeReview ? 'info' : 'warning', code: 'story-status-drift',
        message: `Status '${f.status}' here, '${s.ledgerRaw}' in sprint-status.yaml: the ${ahead} is ahead.${codeReview ? ' (Code review moves review back to in-progress when it asks for changes.)' : ''} Make them agree: waymark story set-status ${s.key} ${ahead === 'file' ? norm.status : s.ledgerStatus}.`,
        data: { fix: 'setStoryStatus', key: s.key, value: ahead === 'file' ? norm.status : s.ledgerStatus, fileStatus: norm.status, ledgerStatus: s.ledgerStatus, ahead },
      });
      if (s.ledgerLine !== undefined) {
        out.push({ file: lf, range: at(s.ledgerLine, 0, 0), severity: 'info', code: 'story-status-drift', message: `${s.key} is ${s.ledgerRaw} here but '${f.status}' in its story file (the ${ahead} is ahead).`, data: { fix: 'setStoryStatus', key: s.key, value: ahead === 'file' ? norm.status : s.ledgerStatus, ahead } });
      }
    } else if (!norm.exact && norm.status && (!s.ledgerStatus || norm.status === s.ledgerStatus) && !isV4Word(f.status)) {
      out.push({ file: f.file, range: statusRange!, severity: 'info', code: 'story-legacy-status', message: `'${f.status}' is read as ${norm.status}. Write '${norm.status}' so every BMAD tool reads it the same.`, data: { fix: 'setStoryStatus', key: s.key, value: norm.status } });
    }
  }
  // Done with open tasks.
  const isDone = s.ledgerStatus === 'done' || (s.ledgerStatus === undefined && normalizeStoryStatus(f.status ?? '').status === 'done');
  const open = f.tasks.filter((t) => !t.checked);
  if (isDone && open.length) {
    const none = f.tasks.every((t) => !t.checked);
    out.push({
      file: f.file, range: at(open[0].line, open[0].boxColumn, open[0].boxColumn + 3), severity: 'warning', code: 'story-done-tasks-open',
      message: none ? `The story is done but not one of its ${f.tasks.length} tasks is checked. Tick the tasks that were done, or reopen the story.` : `The story is done but ${open.length} of ${f.tasks.length} tasks are unchecked (first: ${/^\W*(task\s*)?\d/i.test(open[0].text) ? '' : `${open[0].number} `}${truncate(open[0].text)}). Tick them or reopen the story.`,
      data: { key: s.key, open: open.length, total: f.tasks.length },
    });
  }
  // Gates.
  if (s.gate && isDone && !s.gate.open) {
    const why = s.gate.expired ? 'has expired' : s.gate.verdict === 'WAIVED' ? 'is WAIVED without an active waiver' : `is ${s.gate.verdict ?? 'unreadable'}`;
    out.push({ file: f.file, range: statusRange ?? at(0), severity: 'error', code: 'story-gate-failed', message: `The story is done but its QA gate ${why} (${s.gate.file}). Fix and re-review, or record a waiver.`, data: { key: s.key, gate: s.gate.file } });
  }
}

function isV4Word(w: string): boolean {
  return /^(Draft|Approved|InProgress|Review|Done)$/.test(w.trim());
}

function truncate(t: string): string {
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}

/** BMAD's own "what next" order: in-progress, review, ready-for-dev, first backlog, an optional retro. */
export function recommend(stories: SprintStory[], epics: SprintEpic[]): SprintRecommendation | undefined {
  const withLedger = stories.filter((s) => s.ledgerStatus !== undefined);
  const pool = withLedger.length ? withLedger : stories;
  const first = (st: string) => pool.find((s) => s.status === st);
  let s = first('in-progress');
  if (s) return { action: 'dev-story', storyKey: s.key, reason: 'resume the in-progress story' };
  s = first('review');
  if (s) return { action: 'code-review', storyKey: s.key, reason: 'review the completed implementation' };
  s = first('ready-for-dev');
  if (s) return { action: 'dev-story', storyKey: s.key, reason: 'start the next ready story' };
  s = first('backlog');
  if (s) return { action: 'create-story', storyKey: s.key, reason: 'create the first backlog story' };
  const retro = epics.find((e) => e.retrospective === 'optional');
  if (retro) return { action: 'retrospective', reason: `all stories done; epic-${retro.epic}-retrospective is still open` };
  return undefined;
}
