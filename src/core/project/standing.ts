/**
 * Where the project puts a workflow file whose own frontmatter status says otherwise: work kept for
 * the record (an `archive/` folder, a spec BMAD's quick-spec archived under a dated name) is set
 * aside, and a BMAD document tied to an epic its ledger marks done is finished. One decision, made
 * here: the registry (board, `next`, dashboard, MCP) and the editor's Workflows view and status bar
 * all read it, so no face shows as in progress what another shows as dropped or done. Pure.
 */
import * as path from 'node:path';
import type { Status, WorkflowState } from '../types';
import type { SprintReport } from '../bmad/sprint';
import { retiredFolderOf } from '../bmad/config';
import { setAsideStatus } from '../bmad/story';

/** Why a file stands elsewhere than its own status says. */
export type StandingReason = 'retired-folder' | 'archived-name' | 'epic-done';

export interface WorkflowStanding {
  /** The status the project reads the file at: `archived` (set aside) or `completed` (finished). */
  status: Extract<Status, 'archived' | 'completed'>;
  reason: StandingReason;
  /** One phrase a face can show: `set aside: kept in archive/ for the record`. */
  message: string;
}

/**
 * A file archived under a dated name, as BMAD's quick-spec sets aside an unfinished spec it will not
 * resume (`tech-spec-{slug}-archived-{date}.md`): kept for the record, like a file in `archive/`.
 */
const ARCHIVED_NAME = /-archived-\d{4}-\d{2}-\d{2}\.(?:md|markdown)$/i;

/**
 * The status the project reads `w` at when its own says otherwise; undefined when its own stands.
 * With the sprints of its workspace folder (`ProjectView.sprints`), a BMAD document tied to an epic by
 * its frontmatter (`epic: 18`, as quick-flow's tech spec writes it) whose ledger marks that epic done,
 * every story of it done or set aside, is finished whatever status it kept (`ready-for-dev` is where
 * the spec's own workflow stops). Else work in a folder kept for the record (`archive/`, `old/`,
 * `legacy/`…, as the sprint reader sets those folders' ledgers aside) or archived under a dated name
 * is set aside; finished or archived work keeps its status.
 */
export function workflowStanding(w: WorkflowState, sprints?: readonly SprintReport[]): WorkflowStanding | undefined {
  if (sprints?.length && w.status !== 'completed') {
    const epic = epicDoneFor(w, sprints);
    if (epic !== undefined) return { status: 'completed', reason: 'epic-done', message: `finished: epic ${epic} is done in the sprint ledger` };
  }
  if (w.status === 'completed' || w.status === 'archived') return undefined;
  const rel = relOf(w.root, w.file);
  const folder = retiredFolder(rel);
  if (folder !== undefined) return { status: 'archived', reason: 'retired-folder', message: `set aside: kept in ${folder}/ for the record` };
  if (ARCHIVED_NAME.test(rel)) return { status: 'archived', reason: 'archived-name', message: 'set aside: archived under a dated name' };
  return undefined;
}

/** Folders (relative paths) → their retired folder or '' for none: the files of one folder share it (10,000 files, few folders). */
const folderVerdicts = new Map<string, string>();
const MAX_FOLDERS = 10_000;

/** The first folder of `rel` kept for the record (config.ts `retiredFolderOf`), if any, once per folder. */
function retiredFolder(rel: string): string | undefined {
  const cut = Math.max(rel.lastIndexOf('/'), rel.lastIndexOf('\\'));
  if (cut < 0) return undefined;
  const dir = rel.slice(0, cut);
  let verdict = folderVerdicts.get(dir);
  if (verdict === undefined) {
    verdict = retiredFolderOf(rel) ?? '';
    if (folderVerdicts.size >= MAX_FOLDERS) folderVerdicts.clear();
    folderVerdicts.set(dir, verdict);
  }
  return verdict || undefined;
}

/** `file` relative to `root`, `/`-separated (the registry's item `rel`, and what the standing rules read). */
export function relOf(root: string, file: string): string {
  // The common case (a file under its root) without path.relative's normalising.
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const rel = file.startsWith(prefix) && !file.includes(`${path.sep}..`) ? file.slice(prefix.length) : path.relative(root, file);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/** The epic id `w` names whose ledger marks it done with every story done or set aside; else undefined. */
function epicDoneFor(w: WorkflowState, sprints: readonly SprintReport[]): string | undefined {
  if (w.dialect !== 'bmad') return undefined;
  const raw = w.data.epic;
  const named = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim().replace(/^epic[-_ ]?/i, '') : undefined;
  if (!named) return undefined;
  for (const sprint of sprints) {
    if (!w.file.startsWith(sprint.root + path.sep)) continue;
    const epic = sprint.epics.find((e) => e.id.toLowerCase() === named.toLowerCase());
    if (epic) return epicFinished(epic) ? epic.id : undefined;
  }
  return undefined;
}

/** The ledger marks the epic done and every story of it is done or set aside. */
function epicFinished(epic: SprintReport['epics'][number]): boolean {
  return /^(?:done|completed?)$/i.test(epic.ledgerStatus?.trim() ?? '') && epic.stories.length > 0 && epic.stories.every((st) => st.status === 'done' || setAsideStatus(st.status) !== undefined);
}

/**
 * All `workflowStanding` reads of a folder's sprints, as a string: each sprint's root and its epics,
 * finished or not. Two reads of the same ledgers give the same key (a face that keeps standings keeps
 * them over the project view's re-reads); any change that can move a file's standing changes it.
 */
export function standingKey(sprints: readonly SprintReport[] | undefined): string {
  if (!sprints?.length) return '';
  return sprints.map((sp) => `${sp.root}\0${sp.epics.map((e) => `${e.id}${epicFinished(e) ? '+' : '-'}`).join(',')}`).join('\n');
}
