/**
 * Reads BMAD v7's ticket tree from disk: the config layers for `core.output_folder` and the active
 * initiative, the store kind, the initiative's and epics' `tickets.toml`, leaf files and plans.
 * It follows `tickets.py`'s rules; where tickets.py refuses the whole tree, this records an error
 * problem on the file and line, keeps reading what it can, and sets `tree.fatal`.
 */
import * as path from 'node:path';
import type { Problem, ProblemCode } from '../../types';
import { loadBmadConfig } from '../config';
import { recordingList, recordingProbe, recordingRead } from '../sprintCache';
import { isTable, parseToml, TomlError, type TomlDoc, type TomlTable, type TomlValue } from './toml';
import { pyFlag, pyRepr, pyStr, readLeafFrontmatter, type FmValue } from './frontmatter';
import {
  CONTAINER_STATUSES,
  LEAF_TYPES,
  PLAN_STATUSES,
  TRACKER_STATES,
  type ContainerStatus,
  type Epic,
  type PlanStatus,
  type ReadTreeOptions,
  type SourcePos,
  type Ticket,
  type TicketId,
  type TicketState,
  type TicketTree,
  type TrackerState,
} from './types';

const MAX_FILE = 4 * 1024 * 1024;
const BREAKDOWN = 'tickets.toml';
const LEAF_NAME = /^(story|spike|bug)-(.+)\.md$/;
const ID_RE = /^[0-9A-Za-z]+$/;
const CROSS_RE = /^([0-9A-Za-z]+)\.([0-9A-Za-z]+)$/;
const EPIC_RE = /^epic-[^/]+$/;

export const STATE_OF: Record<PlanStatus | '', Exclude<TicketState, 'planned'>> = {
  '': 'backlog',
  draft: 'backlog',
  'ready-for-dev': 'backlog',
  'in-progress': 'in-progress',
  blocked: 'in-progress',
  'in-review': 'review',
  built: 'review',
  done: 'done',
  dropped: 'dropped',
};

/** An id as tickets.py compares it: a number, or letters and digits; digits alone are the number. */
export function normId(v: unknown): TicketId | null {
  if (typeof v === 'boolean') return null;
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (typeof v === 'string' && ID_RE.test(v)) return /^\d+$/.test(v) ? Number(v) : v;
  return null;
}

/** A problem found while reading; `fatal` ones are those tickets.py stops on. */
interface Fault { code: ProblemCode; file: string; line: number; message: string; fatal: boolean; data?: Record<string, unknown> }

/** A ticket while it is read; the tree hands out the same object. */
type Row = Ticket;

/** What reading needs of a ticket and the tree does not show, kept beside it (no copy at the end). */
interface RowState {
  rawAfter: unknown[];
  entryAfter: unknown[] | null;
  entryHitl?: boolean;
  planName?: string;
  folderPath: string;
}

interface Breakdown { doc?: TomlDoc; entries: TomlTable[]; epics: TomlTable[]; file: string; hasEpicKey: boolean }

interface Ctx { faults: Fault[]; breakdowns: Map<string, Breakdown>; rows: Map<Row, RowState> }

function st(ctx: Ctx, r: Row): RowState {
  return ctx.rows.get(r) as RowState;
}

function fault(ctx: Ctx, f: Fault): void {
  ctx.faults.push(f);
}

// File system reads go through sprintCache's recorders, so a stored answer built on the tree knows its inputs.
const isDirectory = (p: string) => recordingProbe(p, 'd');
const isRegularFile = (p: string) => recordingProbe(p, 'f');

function readText(file: string): string | undefined {
  const t = recordingRead(file, MAX_FILE);
  return t === undefined ? undefined : t.charCodeAt(0) === 0xfeff ? t.slice(1) : t;
}

function listDirs(dir: string, prefix: string): string[] {
  return recordingList(dir).filter((e) => e.isDirectory() && e.name.startsWith(prefix)).map((e) => e.name).sort(pyCompare);
}

function listMd(dir: string): string[] {
  return recordingList(dir).filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.md')).map((e) => e.name).sort(pyCompare);
}

/** Python's default string order (code points), not locale order. */
function pyCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function keyLine(doc: TomlDoc | undefined, t: TomlTable, key: string): number {
  return doc?.keyPos.get(t)?.get(key)?.line ?? doc?.tablePos.get(t)?.line ?? 0;
}

function loadBreakdown(ctx: Ctx, folder: string): Breakdown {
  const cached = ctx.breakdowns.get(folder);
  if (cached) return cached;
  const file = path.join(folder, BREAKDOWN);
  const out: Breakdown = { entries: [], epics: [], file, hasEpicKey: false };
  ctx.breakdowns.set(folder, out);
  const text = readText(file); // undefined unless a readable regular file
  if (text === undefined) return out;
  const where = `${path.basename(folder)}/${BREAKDOWN}`;
  try {
    out.doc = parseToml(text);
  } catch (e) {
    if (e instanceof TomlError) {
      fault(ctx, { code: 'tree-toml', file, line: e.line, message: `${where}: ${e.message}`, fatal: true });
      return out;
    }
    throw e;
  }
  const data = out.doc.data;
  out.hasEpicKey = 'epic' in data;
  for (const table of ['entry', 'epic'] as const) {
    const rows = data[table] ?? [];
    if (!Array.isArray(rows) || !rows.every(isTable)) {
      fault(ctx, { code: 'tree-key-type', file, line: keyLine(out.doc, data, table), message: `${where}: write \`[[${table}]]\` tables, one per ${table}`, fatal: true });
      continue;
    }
    for (const r of rows as TomlTable[]) {
      let ok = true;
      for (const key of ['covers', 'after', 'references', 'notes']) {
        if (key in r && !Array.isArray(r[key])) {
          fault(ctx, { code: 'tree-key-type', file, line: keyLine(out.doc, r, key), message: `${where}: \`${key}\` must be a list`, fatal: true, data: { key } });
          r[key] = [];
        }
      }
      const id = normId(r.id);
      if (id === null) {
        fault(ctx, { code: 'tree-key-type', file, line: keyLine(out.doc, r, 'id'), message: `${where}: every ${table} needs an \`id\`: a number, or letters and digits`, fatal: true, data: { key: 'id' } });
        ok = false;
      } else r.id = id;
      if (ok && table === 'epic') {
        if (typeof r.slug !== 'string' || !r.slug) {
          fault(ctx, { code: 'tree-key-type', file, line: keyLine(out.doc, r, 'slug'), message: `${where}: epic ${pyStr(r.id)} needs a \`slug\``, fatal: true, data: { key: 'slug' } });
          ok = false;
        }
        const after = Array.isArray(r.after) ? r.after : [];
        for (const a of after) {
          if (!isTable(a) || (normId(a.epic) === null && typeof a.epic !== 'string')) {
            fault(ctx, { code: 'tree-key-type', file, line: keyLine(out.doc, r, 'after'), message: `${where}: an epic's \`after\` takes tables: [{ epic = <id or slug>, needs = "..." }]`, fatal: true, data: { key: 'after' } });
            r.after = after.filter((x) => isTable(x) && (normId(x.epic) !== null || typeof x.epic === 'string'));
            break;
          }
        }
      }
      if (ok) (table === 'entry' ? out.entries : out.epics).push(r);
    }
  }
  return out;
}

function epicFolders(dir: string): string[] {
  return listDirs(dir, 'epic-').filter((name) => isRegularFile(path.join(dir, name, `${name}.md`)) || isRegularFile(path.join(dir, name, BREAKDOWN))).map((name) => path.join(dir, name));
}

function strOr(v: FmValue | TomlValue | undefined): string {
  return v === undefined || v === '' || v === false || v === 0 ? '' : pyStr(v);
}

function oneOf<T extends string>(ctx: Ctx, v: FmValue | undefined, allowed: readonly T[], file: string, line: number, where: string, field: string, code: ProblemCode): T | '' {
  if (v === undefined || v === '') return '';
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  fault(ctx, { code, file, line, message: `${where}: ${field} ${pyRepr(v)} is not one of ${allowed.join(', ')}`, fatal: true, data: { field, value: v, allowed: [...allowed] } });
  return '';
}

function pos(file: string, line: number): SourcePos {
  return { file, line, character: 0 };
}

function loadFolder(ctx: Ctx, folder: string, backlog: boolean): Row[] {
  const where = path.basename(folder);
  const bd = loadBreakdown(ctx, folder);
  const rows = new Map<TicketId, Row>();
  for (const e of bd.entries) {
    const n = e.id as TicketId;
    const kind = e.type;
    const line = bd.doc?.tablePos.get(e)?.line ?? 0;
    if (typeof kind !== 'string' || !(LEAF_TYPES as readonly string[]).includes(kind)) {
      fault(ctx, { code: 'tree-key-type', file: bd.file, line: keyLine(bd.doc, e, 'type'), message: `${where}/${BREAKDOWN}: entry ${pyStr(n)} type ${pyRepr(kind ?? null)} is not one of ${LEAF_TYPES.join(', ')}`, fatal: true, data: { key: 'type' } });
      continue;
    }
    if (rows.has(n)) {
      fault(ctx, { code: 'tree-duplicate-id', file: bd.file, line: keyLine(bd.doc, e, 'id'), message: `${where}/${BREAKDOWN}: two entries with id ${pyStr(n)}`, fatal: true, data: { id: n } });
      continue;
    }
    const rawAfter = Array.isArray(e.after) ? e.after : e.after === undefined || e.after === '' ? [] : null;
    if (rawAfter === null) fault(ctx, { code: 'tree-key-type', file: bd.file, line: keyLine(bd.doc, e, 'after'), message: `${where}/${BREAKDOWN} entry ${pyStr(n)}: after must be a list`, fatal: true });
    const entryRow: Row = {
      kind: 'ticket', key: '', ref: '', epic: where, id: n, type: kind, title: strOr(e.title), status: '', trackerStatus: '', trackerId: '', state: 'planned',
      assignee: '', blockedAt: '', blockedReason: '', refined: false, refine: kind === 'bug' || pyFlag(e.refine ?? false), hitl: pyFlag(e.hitl ?? false),
      covers: (Array.isArray(e.covers) ? e.covers : []).map(pyStr), estimate: (e.estimate as string | number | undefined) ?? '', risk: strOr(e.risk),
      description: strOr(e.description), verify: strOr(e.verify), unknown: strOr(e.unknown),
      references: (Array.isArray(e.references) ? e.references : []).map(pyStr), notes: (Array.isArray(e.notes) ? e.notes : []).map(pyStr),
      after: [], afterRefs: [], gatedBy: [], drift: false, backlog, planPath: '', entryPos: pos(bd.file, line),
      afterPos: pos(bd.file, keyLine(bd.doc, e, 'after')), coversPos: pos(bd.file, keyLine(bd.doc, e, 'covers')),
    };
    rows.set(n, entryRow);
    ctx.rows.set(entryRow, { rawAfter: rawAfter ?? [], entryAfter: null, folderPath: folder });
  }
  const unlisted = new Map<TicketId, Row>();
  const stray: Row[] = [];
  const plans: { name: string; file: string; data: Record<string, FmValue>; lines: Map<string, number> }[] = [];
  const seen = new Map<TicketId, string>();
  for (const name of listMd(folder)) {
    const file = path.join(folder, name);
    const text = readText(file);
    if (text === undefined) continue;
    let fm = readLeafFrontmatter(text, true);
    if (!fm.lines.size && text.startsWith('---') && LEAF_NAME.test(name)) {
      fault(ctx, { code: 'tree-frontmatter', file, line: 0, message: `${where}/${name}: frontmatter does not close`, fatal: true });
      continue;
    }
    const type = fm.data.type;
    if (typeof type !== 'string' || !(LEAF_TYPES as readonly string[]).includes(type)) {
      if ('ticket' in fm.data) plans.push({ name, file, data: fm.data, lines: fm.lines });
      continue;
    }
    fm = readLeafFrontmatter(text, false);
    if (fm.blockListLine !== undefined) {
      fault(ctx, { code: 'tree-frontmatter', file, line: fm.blockListLine, message: `${where}/${name}: frontmatter lists must be inline: \`key: [a, b]\``, fatal: true });
    }
    const d = fm.data;
    const line = (k: string) => fm.lines.get(k) ?? 0;
    const status = oneOf(ctx, d.status, PLAN_STATUSES, file, line('status'), `${where}/${name}`, 'status', 'tree-unknown-status');
    const trackerStatus = oneOf(ctx, d.tracker_status, TRACKER_STATES, file, line('tracker_status'), `${where}/${name}`, 'tracker_status', 'tree-unknown-status');
    const n = normId(d.id);
    if (n !== null) {
      const other = seen.get(n);
      if (other !== undefined) {
        fault(ctx, { code: 'tree-duplicate-id', file, line: line('id'), message: `${other} and ${name} share the id ${pyStr(n)}`, fatal: true, data: { id: n } });
        continue;
      }
      seen.set(n, name);
    }
    let row = n !== null ? rows.get(n) : undefined;
    if (!row) {
      row = {
        kind: 'ticket', key: '', ref: '', epic: where, id: n, type, title: '', status: '', trackerStatus: '', trackerId: '', state: 'backlog', assignee: '',
        blockedAt: '', blockedReason: '', refined: false, refine: true, hitl: false, covers: [], estimate: '', risk: '', description: '', verify: '', unknown: '',
        references: [], notes: [], after: [], afterRefs: [], gatedBy: [], drift: false, backlog, planPath: '',
      };
      ctx.rows.set(row, { rawAfter: [], entryAfter: null, folderPath: folder });
      if (n === null) stray.push(row);
      else unlisted.set(n, row);
    } else {
      const rs = st(ctx, row);
      rs.entryAfter = rs.rawAfter;
      rs.entryHitl = row.hitl;
    }
    row.file = file;
    row.type = type;
    row.trackerId = strOr(d.tracker_id);
    row.title = strOr(d.title) || row.title;
    row.status = status;
    row.trackerStatus = trackerStatus;
    row.state = trackerStatus || STATE_OF[status];
    row.assignee = strOr(d.assignee);
    row.refined = pyFlag(d.refined ?? false);
    row.refine = row.refine || type === 'bug';
    row.hitl = pyFlag(d.hitl ?? false);
    if (Array.isArray(d.covers)) {
      row.covers = d.covers.map(pyStr);
      row.coversPos = pos(file, line('covers'));
    }
    if (d.estimate !== undefined) row.estimate = d.estimate as string | number;
    row.blockedAt = d.blocked_at === undefined ? '' : pyStr(d.blocked_at);
    row.blockedReason = strOr(d.blocked_reason);
    if (d.status !== undefined) row.statusPos = pos(file, line('status'));
    const after = d.after;
    if (after === undefined || after === '') st(ctx, row).rawAfter = [];
    else if (Array.isArray(after)) st(ctx, row).rawAfter = after;
    else {
      fault(ctx, { code: 'tree-key-type', file, line: line('after'), message: `${where}/${name}: after must be a list`, fatal: true });
      st(ctx, row).rawAfter = [];
    }
    row.afterPos = pos(file, line('after'));
  }
  const unlistedSorted = [...unlisted.keys()].sort((a, b) => (typeof a === 'string' ? 1 : 0) - (typeof b === 'string' ? 1 : 0) || (a < b ? -1 : a > b ? 1 : 0));
  const out = [...rows.values(), ...unlistedSorted.map((k) => unlisted.get(k) as Row), ...stray];
  // Plans set the status fields of the one row their `ticket` names.
  for (const p of plans) {
    let ticket: FmValue = p.data.ticket;
    let row: Row | undefined;
    const id = normId(ticket);
    if (id !== null) {
      ticket = id;
      row = out.find((r) => r.id === id);
    }
    if (!row && typeof ticket === 'string' && ticket) row = out.find((r) => r.file !== undefined && path.basename(r.file) === `${ticket as string}.md`);
    const tline = p.lines.get('ticket') ?? 0;
    if (!row) {
      fault(ctx, { code: 'tree-plan-ticket', file: p.file, line: tline, message: `${where}/${p.name}: ticket ${pyRepr(ticket)} names no entry or leaf file in ${where}; skipped`, fatal: false, data: { ticket } });
      continue;
    }
    const rs = st(ctx, row);
    if (rs.planName !== undefined) {
      fault(ctx, { code: 'tree-two-plans', file: p.file, line: tline, message: `${where}/${rs.planName} and ${p.name} are both plans for ticket ${pyRepr(ticket)}`, fatal: true, data: { other: row.plan } });
      continue;
    }
    const field = (k: string) => strOr(p.data[k]);
    let status = field('status');
    let blockedReason = field('blocked_reason');
    if (status && !(PLAN_STATUSES as readonly string[]).includes(status)) {
      fault(ctx, {
        code: 'tree-plan-status', file: p.file, line: p.lines.get('status') ?? 0,
        message: `${where}/${p.name}: status ${pyRepr(status)} is not one of ${PLAN_STATUSES.join(', ')}; the ticket reads as blocked until the plan is fixed`,
        fatal: false, data: { value: status, allowed: [...PLAN_STATUSES] },
      });
      blockedReason = `${p.name} has an unknown status ${pyRepr(status)}`;
      status = 'blocked';
    }
    rs.planName = p.name;
    row.plan = p.file;
    row.status = status as PlanStatus | '';
    row.assignee = field('assignee');
    row.blockedAt = field('blocked_at');
    row.blockedReason = blockedReason;
    row.state = row.trackerStatus || STATE_OF[row.status];
    row.statusPos = p.lines.has('status') ? pos(p.file, p.lines.get('status') as number) : pos(p.file, 0);
  }
  return out;
}

function readContainer(ctx: Ctx, folder: string): { status: ContainerStatus | ''; trackerId: string; rawAfter: unknown[]; title: string; file?: string; afterLine: number; statusLine: number } {
  const name = path.basename(folder);
  const file = path.join(folder, `${name}.md`);
  const text = readText(file);
  if (text === undefined) {
    fault(ctx, { code: 'tree-container', file: path.join(folder, BREAKDOWN), line: 0, message: `${name}: no ${name}.md`, fatal: true });
    return { status: '', trackerId: '', rawAfter: [], title: '', afterLine: 0, statusLine: 0 };
  }
  const fm = readLeafFrontmatter(text, false);
  if (fm.blockListLine !== undefined) fault(ctx, { code: 'tree-frontmatter', file, line: fm.blockListLine, message: `${name}: frontmatter lists must be inline: \`key: [a, b]\``, fatal: true });
  const d = fm.data;
  const line = (k: string) => fm.lines.get(k) ?? 0;
  if (d.type !== 'initiative' && d.type !== 'epic') {
    fault(ctx, { code: 'tree-container', file, line: line('type'), message: `${name}/${name}.md: type ${pyRepr(d.type ?? null)} is not one of initiative, epic`, fatal: true });
  }
  const status = oneOf(ctx, d.status, CONTAINER_STATUSES, file, line('status'), `${name}/${name}.md`, 'status', 'tree-unknown-status');
  let rawAfter: unknown[] = [];
  if (Array.isArray(d.after)) rawAfter = d.after;
  else if (d.after !== undefined && d.after !== '') fault(ctx, { code: 'tree-key-type', file, line: line('after'), message: `${name}.md: after must be a list`, fatal: true });
  return { status, trackerId: strOr(d.tracker_id), rawAfter, title: strOr(d.title), file, afterLine: line('after'), statusLine: line('status') };
}

/** What tickets.py calls the folder a command runs on, found from the config when not given. */
export interface TreeLocation {
  root: string;
  outputFolder: string;
  /** The store root: `[tickets] root` of the store config, else the output folder. */
  storeRoot: string;
  folder?: string;
  store: string;
  activeInitiative?: string;
  /** Why no folder was found. */
  reason?: string;
}

function configLayers(root: string, installDir: string | undefined): TomlTable[] {
  const dir = installDir ? path.resolve(root, installDir) : path.join(root, '_bmad');
  const out: TomlTable[] = [];
  for (const rel of ['config.toml', path.join('custom', 'config.toml'), path.join('custom', 'config.user.toml')]) {
    const text = readText(path.join(dir, rel));
    if (text === undefined) continue;
    try {
      out.push(parseToml(text).data);
    } catch {
      // loadBmadConfig reports a broken config layer; here it only names no initiative.
    }
  }
  return out;
}

/** Where the tree is for a project: the store, the active initiative and its folder. */
export function locateTree(root: string, options: ReadTreeOptions = {}): TreeLocation {
  const absRoot = path.resolve(root);
  const cfg = options.config?.root === absRoot ? options.config : loadBmadConfig(absRoot, { installDir: options.installDir });
  let active: string | undefined;
  for (const layer of configLayers(absRoot, options.installDir)) {
    const core = layer.core;
    const bmm = isTable(layer.modules) && isTable(layer.modules.bmm) ? layer.modules.bmm : undefined;
    const v = isTable(core) && typeof core.active_initiative === 'string' && core.active_initiative.trim() ? core.active_initiative : bmm && typeof bmm.active_initiative === 'string' && bmm.active_initiative.trim() ? bmm.active_initiative : undefined;
    if (v !== undefined) active = v.trim();
  }
  const storeCfg = readStoreConfig(absRoot, options.installDir);
  const rootSetting = typeof storeCfg.root === 'string' && storeCfg.root ? storeCfg.root.replace('{project-root}', absRoot).replace('{output_folder}', cfg.outputFolder) : undefined;
  const storeRoot = rootSetting ? path.resolve(absRoot, rootSetting) : cfg.outputFolder;
  const store = typeof storeCfg.store === 'string' && storeCfg.store ? storeCfg.store : 'repo';
  const base: TreeLocation = { root: absRoot, outputFolder: cfg.outputFolder, storeRoot, store, activeInitiative: active };
  if (options.folder) {
    const candidates = path.isAbsolute(options.folder) ? [options.folder] : [path.resolve(absRoot, options.folder), path.join(storeRoot, options.folder), path.join(cfg.outputFolder, options.folder)];
    const hit = candidates.find((c) => isDirectory(c));
    return hit ? { ...base, folder: hit } : { ...base, reason: `not a folder: ${options.folder}` };
  }
  if (active) {
    const f = [path.join(storeRoot, active), path.join(cfg.outputFolder, active)].find((c) => isDirectory(c));
    if (f) return { ...base, folder: f };
  }
  const initiatives = [storeRoot, cfg.outputFolder].flatMap((dir) => listDirs(dir, 'initiative-').map((n) => path.join(dir, n))).filter((d) => isRegularFile(path.join(d, BREAKDOWN)) || isRegularFile(path.join(d, `${path.basename(d)}.md`)));
  if (initiatives.length) return { ...base, folder: initiatives[0], reason: initiatives.length > 1 && !active ? `${initiatives.length} initiatives and no core.active_initiative; reading ${path.basename(initiatives[0])}` : undefined };
  return { ...base, reason: active ? `active initiative folder not found: ${path.join(storeRoot, active)}` : 'no initiative-* folder with a tickets.toml' };
}

/** The `[tickets]` table of `_bmad/custom/ticketing-store-config.toml`, empty when there is none. */
export function readStoreConfig(root: string, installDir?: string): TomlTable {
  const dir = installDir ? path.resolve(root, installDir) : path.join(root, '_bmad');
  const text = readText(path.join(dir, 'custom', 'ticketing-store-config.toml'));
  if (text === undefined) return Object.create(null) as TomlTable;
  try {
    const t = parseToml(text).data.tickets;
    return isTable(t) ? t : (Object.create(null) as TomlTable);
  } catch {
    return Object.create(null) as TomlTable;
  }
}

/**
 * The ticket tree of a project: the folder named in `options.folder`, else the active initiative
 * (`core.active_initiative`, older `modules.bmm.active_initiative`) under the store root, else the
 * first `initiative-*` folder there. Undefined when the project has no v7 tree.
 * Never throws on bad files: what `tickets.py` refuses is in `tree.fatal` and `tree.problems`.
 */
export function readTicketTree(root: string, options: ReadTreeOptions = {}): TicketTree | undefined {
  const loc = locateTree(root, options);
  if (!loc.folder) return undefined;
  const tree = readTreeAt(loc.folder, { root: loc.root, outputFolder: loc.outputFolder, store: loc.store });
  if (!options.folder) {
    const backlogDir = path.join(loc.storeRoot, 'backlog');
    if (isDirectory(backlogDir) && path.resolve(backlogDir) !== path.resolve(loc.folder)) {
      const b = readTreeAt(backlogDir, { root: loc.root, outputFolder: loc.outputFolder, store: loc.store });
      tree.backlog = b.tickets;
      tree.problems.push(...b.problems);
      if (!tree.fatal && b.fatal) tree.fatal = b.fatal;
    }
  }
  if (loc.reason) tree.problems.push({ file: path.join(loc.folder, BREAKDOWN), range: lineRange(0), severity: 'info', code: 'tree-initiative', message: loc.reason });
  return tree;
}

/** True when the project has a v7 ticket tree. */
export function hasTicketTree(root: string, options: ReadTreeOptions = {}): boolean {
  return locateTree(root, options).folder !== undefined;
}

function lineRange(line: number) {
  return { start: { line, character: 0 }, end: { line, character: Number.MAX_SAFE_INTEGER } };
}

/** Reads the tree at one folder (an initiative, an epic or a backlog folder), as `tickets.py <cmd> <dir>` would. */
export function readTreeAt(folderIn: string, where: { root?: string; outputFolder?: string; store?: string } = {}): TicketTree {
  const folder = path.resolve(folderIn);
  const ctx: Ctx = { faults: [], breakdowns: new Map(), rows: new Map() };
  let epics = epicFolders(folder);
  let scope: string | undefined;
  let initiative: string | undefined;
  let folders: string[];
  if (epics.length || loadBreakdown(ctx, folder).hasEpicKey) {
    initiative = folder;
    folders = [];
  } else if (epicFolders(path.dirname(folder)).includes(folder)) {
    scope = path.basename(folder);
    initiative = path.dirname(folder);
    epics = epicFolders(initiative);
    folders = epics;
  } else {
    scope = path.basename(folder);
    folders = [folder];
  }
  const listed = initiative ? loadBreakdown(ctx, initiative).epics : [];
  const ibd = initiative ? loadBreakdown(ctx, initiative) : undefined;
  const order = listed.map((e) => e.slug as string);
  const rank = (d: string) => (order.includes(path.basename(d)) ? order.indexOf(path.basename(d)) : order.length);
  epics = [...epics].sort((a, b) => rank(a) - rank(b) || pyCompare(path.basename(a), path.basename(b)));
  if (!scope) folders = [...epics, folder];
  else if (initiative) folders = epics;
  const epicIds = new Map<string, TicketId>();
  const epicEntry = new Map<string, TomlTable>();
  for (const e of listed) {
    const slug = e.slug as string;
    const id = e.id as TicketId;
    if ([...epicIds.values()].includes(id)) {
      fault(ctx, { code: 'tree-duplicate-id', file: ibd?.file ?? folder, line: keyLine(ibd?.doc, e, 'id'), message: `${path.basename(initiative as string)}/${BREAKDOWN}: two epics with id ${pyStr(id)}`, fatal: true, data: { id } });
      continue;
    }
    if (epicIds.has(slug)) {
      fault(ctx, { code: 'tree-duplicate-id', file: ibd?.file ?? folder, line: keyLine(ibd?.doc, e, 'slug'), message: `${path.basename(initiative as string)}/${BREAKDOWN}: two epics with slug ${slug}`, fatal: true, data: { slug } });
      continue;
    }
    epicIds.set(slug, id);
    epicEntry.set(slug, e);
  }
  const isBacklog = !initiative;
  const rows: Row[] = folders.flatMap((f) => loadFolder(ctx, f, isBacklog));
  for (const t of rows) t.key = t.id !== null ? `${t.epic}/${pyStr(t.id)}` : `${t.epic}/${path.basename(t.file as string)}`;
  const containers = new Map<string, ReturnType<typeof readContainer> & { folder: string; after: string[] }>();
  for (const f of epics) containers.set(path.basename(f), { ...readContainer(ctx, f), folder: f, after: [] });
  resolveAfter(ctx, rows, containers, epicIds);
  const cycle = findCycle(rows, containers);
  if (cycle) {
    const first = rows.find((r) => r.key === cycle[0]);
    const file = first?.afterPos?.file ?? first?.entryPos?.file ?? containers.get(cycle[0])?.file ?? folder;
    fault(ctx, { code: 'tree-cycle', file, line: first?.afterPos?.line ?? containers.get(cycle[0])?.afterLine ?? 0, message: `cycle through ${cycle.join(' -> ')}`, fatal: true, data: { cycle } });
  }
  // The initiative's declared epic order.
  const declared = new Map<string, { epic: string; needs: string }[]>();
  if (initiative) {
    const bySlugId = new Map<TicketId, string>([...epicIds].map(([s, i]) => [i, s]));
    for (const e of listed) {
      const slug = e.slug as string;
      const edges: { epic: string; needs: string }[] = [];
      declared.set(slug, edges);
      for (const a of (Array.isArray(e.after) ? e.after : []) as TomlTable[]) {
        const nid = normId(a.epic);
        const needed = (nid !== null ? bySlugId.get(nid) : undefined) ?? (typeof a.epic === 'string' ? a.epic : pyStr(a.epic));
        if (!order.includes(needed)) {
          fault(ctx, { code: 'tree-after-unknown', file: ibd?.file ?? folder, line: keyLine(ibd?.doc, e, 'after'), message: `${path.basename(initiative)}/${BREAKDOWN}: ${slug} is after ${pyRepr(a.epic)}, which is no epic listed`, fatal: true, data: { after: a.epic } });
          continue;
        }
        edges.push({ epic: needed, needs: typeof a.needs === 'string' ? a.needs : a.needs === undefined ? '' : pyStr(a.needs) });
      }
    }
  }
  const tree: TicketTree = {
    root: where.root ?? folder,
    outputFolder: where.outputFolder ?? path.dirname(initiative ?? folder),
    folder,
    scope,
    store: where.store ?? 'repo',
    epics: [],
    tickets: [],
    backlog: [],
    problems: [],
    unpinnedAfter: [],
    undeclaredAfter: [],
    orderConflict: [],
  };
  if (initiative) {
    const iname = path.basename(initiative);
    const ifile = path.join(initiative, `${iname}.md`);
    const itext = isRegularFile(ifile) ? readText(ifile) : undefined;
    const ifm = itext !== undefined ? readLeafFrontmatter(itext, true).data : {};
    tree.initiative = { kind: 'initiative', slug: iname, title: strOr(ifm.title) || iname, status: typeof ifm.status === 'string' && (CONTAINER_STATUSES as readonly string[]).includes(ifm.status) ? (ifm.status as ContainerStatus) : '', folder: initiative, file: itext !== undefined ? ifile : undefined };
    if (isDirectory(path.join(initiative, 'archive-v6'))) tree.archiveV6 = path.join(initiative, 'archive-v6');
    if (isDirectory(path.join(initiative, 'migration-v6-v7'))) tree.migrationDir = path.join(initiative, 'migration-v6-v7');
  }
  const keysOf = new Map<string, string[]>();
  for (const r of rows) {
    const list = keysOf.get(r.epic);
    if (list) list.push(r.key);
    else keysOf.set(r.epic, [r.key]);
  }
  for (const [slug, c] of containers) {
    const e = epicEntry.get(slug);
    const epic: Epic = {
      kind: 'epic', slug, id: epicIds.get(slug), title: c.title || (e && typeof e.title === 'string' ? e.title : slug), status: c.status, trackerId: c.trackerId,
      folder: c.folder, file: c.file, after: declared.get(slug) ?? [], gatedBy: c.after, tickets: keysOf.get(slug) ?? [],
      entryPos: e && ibd ? pos(ibd.file, ibd.doc?.tablePos.get(e)?.line ?? 0) : undefined,
      statusPos: c.file ? pos(c.file, c.statusLine) : undefined,
    };
    tree.epics.push(epic);
  }
  const stems = leafStems(rows);
  for (const r of rows) {
    r.epicId = epicIds.get(r.epic);
    r.planPath = r.plan ?? path.join(st(ctx, r).folderPath, `${stems.get(r) as string}-plan.md`);
  }
  tree.tickets = rows;
  for (const t of tree.tickets) {
    t.ref = rowRef(t, tree, epicIds);
    t.afterRefs = t.after.map((k) => refFor(k, t.epic, epicIds));
  }
  crossEpic(tree, declared, order, epicIds);
  const seenMsg = new Set<string>();
  for (const f of ctx.faults) {
    const k = `${f.file}\0${f.line}\0${f.message}`;
    if (seenMsg.has(k)) continue;
    seenMsg.add(k);
    if (f.fatal && tree.fatal === undefined) tree.fatal = f.message;
    tree.problems.push({ file: f.file, range: lineRange(f.line), severity: f.fatal ? 'error' : 'warning', code: f.code, message: f.message, ...(f.data ? { data: f.data } : {}) });
  }
  return tree;
}

function titleSlug(title: string): string {
  const ascii = title.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
  const s = ascii.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  return s || 'untitled';
}

/**
 * Each ticket's leaf stem (the file's, else `<type>-<slug of the title>`, with `-<id>` when a file or
 * an earlier entry of its folder already has that name), as tickets.py names a plan that is not there yet.
 */
function leafStems(rows: Row[]): Map<Row, string> {
  const out = new Map<Row, string>();
  const files = new Map<string, Set<string>>();
  for (const o of rows) if (o.file) (files.get(o.epic) ?? files.set(o.epic, new Set()).get(o.epic) as Set<string>).add(path.basename(o.file).slice(0, -3));
  const earlier = new Map<string, Set<string>>();
  for (const t of rows) {
    if (t.file) {
      out.set(t, path.basename(t.file).slice(0, -3));
      continue;
    }
    const stem = `${t.type}-${titleSlug(t.title)}`;
    const before = earlier.get(t.epic) ?? earlier.set(t.epic, new Set()).get(t.epic) as Set<string>;
    out.set(t, before.has(stem) || files.get(t.epic)?.has(stem) ? `${stem}-${pyStr(t.id)}` : stem);
    before.add(stem);
  }
  return out;
}

function resolveAfter(ctx: Ctx, rows: Row[], containers: Map<string, { after: string[]; rawAfter: unknown[]; trackerId: string; file?: string; afterLine: number }>, epicIds: Map<string, TicketId>): void {
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const slugs = new Map<TicketId, string>([...epicIds].map(([s, i]) => [i, s]));
  const ids = new Map<string, string>();
  for (const [slug, c] of containers) if (c.trackerId) ids.set(c.trackerId, slug);
  for (const r of rows) if (r.trackerId) ids.set(r.trackerId, r.key);
  const mates = new Map<string, Row[]>();
  for (const r of rows) {
    const list = mates.get(r.epic);
    if (list) list.push(r);
    else mates.set(r.epic, [r]);
  }
  class Unresolved extends Error {}
  const sibling = (epic: string, ref: unknown, whereText: string): string | undefined => {
    const mine = mates.get(epic) ?? [];
    if (typeof ref === 'number') {
      const hit = mine.find((o) => o.id === ref);
      if (!hit) throw new Unresolved(`${whereText}: after ${pyStr(ref)} names no entry in ${epic}`);
      return hit.key;
    }
    for (const o of mine) if (typeof o.id === 'string' && o.id === ref) return o.key;
    for (const o of mine) if (o.file && (ref === path.basename(o.file) || ref === path.basename(o.file).slice(0, -3))) return o.key;
    return undefined;
  };
  const resolveOne = (epic: string, isTicket: boolean, ref: unknown, whereText: string): string => {
    const text = pyStr(ref);
    let key = isTicket ? sibling(epic, ref, whereText) : undefined;
    const m = CROSS_RE.exec(text);
    const slug = m ? slugs.get(normId(m[1]) as TicketId) : undefined;
    if (key === undefined && m && slug) {
      key = `${slug}/${pyStr(normId(m[2]))}`;
      if (!byKey.has(key)) throw new Unresolved(`${whereText}: after ${pyRepr(ref)} names no entry in ${slug}`);
    }
    if (key === undefined && EPIC_RE.test(text)) {
      if (!containers.has(text)) throw new Unresolved(`${whereText}: after ${pyRepr(ref)} names no epic in this initiative`);
      key = text;
    }
    if (key === undefined) key = ids.get(text);
    if (key === undefined && m) throw new Unresolved(`${whereText}: after ${pyRepr(ref)} names no epic id in this initiative's ${BREAKDOWN}`);
    if (key === undefined && LEAF_NAME.test(text.endsWith('.md') ? text : `${text}.md`)) {
      throw new Unresolved(`${whereText}: after ${pyRepr(ref)} matches no ticket in ${epic}; a file name names a pulled ticket in the same folder only: use the entry's id, or move a backlog ticket into the epic as an entry`);
    }
    if (key === undefined) throw new Unresolved(`${whereText}: after ${pyRepr(ref)} matches no ticket`);
    return key;
  };
  const resolveAll = (epic: string, isTicket: boolean, refs: unknown[], whereText: string, at: { file: string; line: number }): string[] => {
    const keys: string[] = [];
    for (const ref of refs) {
      try {
        const k = resolveOne(epic, isTicket, ref, whereText);
        if (!keys.includes(k)) keys.push(k);
      } catch (e) {
        if (!(e instanceof Unresolved)) throw e;
        fault(ctx, { code: 'tree-after-unknown', file: at.file, line: at.line, message: e.message, fatal: true, data: { after: ref } });
      }
    }
    return keys;
  };
  for (const t of rows) {
    const whereText = t.file ? `${t.epic}/${path.basename(t.file)}` : `${t.epic}/${BREAKDOWN} entry ${pyStr(t.id)}`;
    const at = { file: t.afterPos?.file ?? t.file ?? t.entryPos?.file ?? '', line: t.afterPos?.line ?? 0 };
    const rs = st(ctx, t);
    t.after = resolveAll(t.epic, true, rs.rawAfter, whereText, at);
    t.gatedBy = [];
    if (rs.entryAfter !== null) {
      const entryAt = { file: t.entryPos?.file ?? at.file, line: t.entryPos?.line ?? 0 };
      const planned = resolveAll(t.epic, true, rs.entryAfter, whereText, entryAt);
      t.drift = [...planned].sort().join('\0') !== [...t.after].sort().join('\0') || rs.entryHitl !== t.hitl;
    }
  }
  for (const [slug, c] of containers) {
    const gates = resolveAll(slug, false, c.rawAfter, `${slug}.md`, { file: c.file ?? '', line: c.afterLine });
    c.after = gates;
    for (const t of mates.get(slug) ?? []) t.gatedBy = gates;
  }
}

/** The first cycle tickets.py would name, as keys from its start back to itself. */
function findCycle(rows: Row[], containers: Map<string, { after: string[] }>): string[] | undefined {
  const graph = new Map<string, string[]>(rows.map((t) => [t.key, [...t.after, ...t.gatedBy]]));
  const members = new Map<string, string[]>();
  for (const t of rows) {
    const m = members.get(t.epic);
    if (m) m.push(t.key);
    else members.set(t.epic, [t.key]);
  }
  for (const [slug, c] of containers) members.set(slug, [...(members.get(slug) ?? []), ...c.after]);
  const state = new Map<string, 'active' | 'done'>();
  // Iterative depth-first search, in tickets.py's visiting order.
  for (const startNode of graph.keys()) {
    if (state.get(startNode) === 'done') continue;
    const stack: { node: string; next: number; edges: string[] }[] = [];
    const pathNodes: string[] = [];
    const enter = (node: string): string[] | undefined => {
      const s = state.get(node);
      if (s === 'done') return undefined;
      if (s === 'active') return [...pathNodes, node];
      state.set(node, 'active');
      pathNodes.push(node);
      stack.push({ node, next: 0, edges: graph.get(node) ?? members.get(node) ?? [] });
      return undefined;
    };
    const found = enter(startNode);
    if (found) return found;
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.next < top.edges.length) {
        const c = enter(top.edges[top.next++]);
        if (c) return c;
      } else {
        state.set(top.node, 'done');
        stack.pop();
        pathNodes.pop();
      }
    }
  }
  return undefined;
}

/** What `find` resolves to this ticket in the folder read: `E.N`, the bare id in an epic scope, else the file name. */
function rowRef(t: Ticket, tree: TicketTree, epicIds: Map<string, TicketId>): string {
  const eid = epicIds.get(t.epic);
  if (t.id !== null && eid !== undefined) return `${pyStr(eid)}.${pyStr(t.id)}`;
  if (t.id !== null && t.epic === tree.scope) return pyStr(t.id);
  return t.file ? path.basename(t.file) : '';
}

/** A key as the plan writes it from `epic`: a sibling's id, `E.N` elsewhere, an epic's slug. */
export function refFor(key: string, epic: string | undefined, epicIds: Map<string, TicketId>): string {
  const slash = key.indexOf('/');
  if (slash < 0) return key;
  const slug = key.slice(0, slash);
  const n = key.slice(slash + 1);
  if (normId(n) === null) return key;
  if (slug === epic) return pyStr(normId(n));
  const eid = epicIds.get(slug);
  return eid !== undefined ? `${pyStr(eid)}.${n}` : key;
}

function crossEpic(tree: TicketTree, declared: Map<string, { epic: string; needs: string }[]>, order: string[], epicIds: Map<string, TicketId>): void {
  const inScope = (epic: string) => tree.scope === undefined || tree.scope === epic;
  const byEpic = new Map<string, Ticket[]>();
  for (const t of tree.tickets) {
    const list = byEpic.get(t.epic);
    if (list) list.push(t);
    else byEpic.set(t.epic, [t]);
  }
  for (const [slug, edges] of declared) {
    const mine = byEpic.get(slug) ?? [];
    for (const a of edges) {
      const prefix = `${a.epic}/`;
      const names = (b: string) => b === a.epic || b.startsWith(prefix);
      const pinned = mine.some((t) => t.after.some(names) || t.gatedBy.some(names));
      if (mine.length && !pinned && inScope(slug)) tree.unpinnedAfter.push({ epic: slug, after: a.epic, needs: a.needs });
    }
  }
  const seq = new Map([...declared.keys()].map((k, i) => [k, i]));
  const conflict = (epic: string, needed: string) => {
    if ((seq.get(needed) ?? -1) > (seq.get(epic) ?? -1) && !tree.orderConflict.some((c) => c.epic === epic && c.after === needed) && inScope(epic)) tree.orderConflict.push({ epic, after: needed });
  };
  for (const [slug, edges] of declared) for (const a of edges) conflict(slug, a.epic);
  for (const e of tree.epics) for (const b of e.gatedBy) if (declared.has(e.slug) && declared.has(b.split('/')[0])) conflict(e.slug, b.split('/')[0]);
  const allowedOf = new Map<string, Set<string>>();
  for (const t of tree.tickets) {
    const edges = declared.get(t.epic);
    if (!edges) continue;
    let allowed = allowedOf.get(t.epic);
    if (!allowed) allowedOf.set(t.epic, (allowed = new Set(edges.map((a) => a.epic))));
    for (const b of t.after) {
      const slash = b.indexOf('/');
      const needed = slash < 0 ? b : b.slice(0, slash);
      if (needed === t.epic || !declared.has(needed)) continue;
      conflict(t.epic, needed);
      if (!allowed.has(needed) && inScope(t.epic)) tree.undeclaredAfter.push({ epic: t.epic, after: needed, ref: t.ref, names: refFor(b, t.epic, epicIds) });
    }
  }
  void order;
}

export type { TrackerState };
