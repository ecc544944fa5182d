// BMAD v7's ticket tree of every workspace folder (TicketTreeModel): the core's reader, `next`
// groups, checks and migration check, re-read when a `tickets.toml`, a ticket's leaf file or plan,
// a container file or the BMAD config changes, with one change event. The Sprint view, the status
// bar, hovers, diagnostics and the dashboard read it beside the v6 sprint (sprintModel.ts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, migrateCheck, nextGroups, readTicketTree, treeProblems, treeStatus } from '../core/index';
import type { Epic, MigrationReport, NextGroups, NextItem, Problem, Ticket, TicketTree, TreeStatus } from '../core/index';
import { Disposable } from './disposable';
import type { ExtensionModel } from './model';

const IGNORE = /[\\/](node_modules|\.git|\.waymark)[\\/]/;
/** A file that can create a tree where none was: a breakdown, or a BMAD config layer. */
const TREE_MARKERS = /(?:^|[\\/])(?:tickets\.toml|_bmad[\\/](?:custom[\\/])?[^\\/]*\.toml)$/i;
const DEBOUNCE_MS = 250;

/** One folder's tree with everything the surfaces show of it, computed once per read. */
export interface TreeReport {
  root: string;
  tree: TicketTree;
  next: NextGroups;
  status: TreeStatus;
  /** The tree's problems and the migration check's, on their files and lines. */
  problems: Problem[];
  migration?: MigrationReport;
  /** Each ticket's place in `next` (its group and what it waits on), by key. */
  nextOf: Map<string, { group: keyof NextGroups; item: NextItem }>;
}

export const NEXT_GROUP_LABELS: Record<keyof NextGroups, string> = {
  readyToStart: 'Ready to start',
  readyToRefine: 'Ready to refine',
  inProgress: 'In progress',
  blocked: 'Blocked',
};

/** The ticket tree of every workspace folder that has one, with one change event. */
export class TicketTreeModel extends Disposable {
  private readonly byRoot = new Map<string, TreeReport>();
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  private timer?: NodeJS.Timeout;
  private readonly dirtyRoots = new Set<string>();
  /** Number of reads, for tests and the log. */
  loads = 0;

  constructor(private readonly c: ExtensionModel) {
    super();
    const w = this.register(vscode.workspace.createFileSystemWatcher('**/*.{md,toml}'));
    this.register(w.onDidChange((u) => this.queue(u)));
    this.register(w.onDidCreate((u) => this.queue(u)));
    this.register(w.onDidDelete((u) => this.queue(u)));
    this.register(c.onDidChange((e) => (e.what === 'roots' || e.what === 'settings') && this.reloadAll()));
    this.register({ dispose: () => this.timer && clearTimeout(this.timer) });
    this.reloadAll();
  }

  reports(): TreeReport[] {
    return [...this.byRoot.values()].sort((a, b) => a.root.localeCompare(b.root));
  }

  reportFor(file: string): TreeReport | undefined {
    const root = this.c.rootFor(file);
    return root ? this.byRoot.get(root) : undefined;
  }

  problems(): Problem[] {
    return this.reports().flatMap((r) => r.problems);
  }

  /** The ticket a file is (its leaf file or its plan), or the one whose `[[entry]]` holds `line` of a `tickets.toml`. */
  ticketAt(file: string, line?: number): { report: TreeReport; ticket: Ticket } | undefined {
    const report = this.reportFor(file);
    if (!report) return undefined;
    const abs = path.resolve(file);
    const own = allTickets(report).find((t) => t.file === abs || t.plan === abs);
    if (own) return { report, ticket: own };
    if (line === undefined || path.basename(abs) !== 'tickets.toml') return undefined;
    let best: Ticket | undefined;
    for (const t of report.tree.tickets) {
      const at = t.entryPos;
      if (at && at.file === abs && at.line <= line && (!best || at.line > best.entryPos!.line)) best = t;
    }
    return best ? { report, ticket: best } : undefined;
  }

  /** The epic a container file is, or the one whose `[[epic]]` table in the initiative's `tickets.toml` holds `line`. */
  epicAt(file: string, line?: number): { report: TreeReport; epic: Epic } | undefined {
    const report = this.reportFor(file);
    if (!report) return undefined;
    const abs = path.resolve(file);
    const own = report.tree.epics.find((e) => e.file === abs);
    if (own) return { report, epic: own };
    if (line === undefined) return undefined;
    let best: Epic | undefined;
    for (const e of report.tree.epics) {
      const at = e.entryPos;
      if (at && at.file === abs && at.line <= line && (!best || at.line > best.entryPos!.line)) best = e;
    }
    return best ? { report, epic: best } : undefined;
  }

  reloadAll(): void {
    for (const r of this.c.roots) this.dirtyRoots.add(r);
    for (const r of [...this.byRoot.keys()]) if (!this.c.roots.includes(r)) this.byRoot.delete(r);
    this.flushSoon(0);
  }

  private queue(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || IGNORE.test(uri.fsPath)) return;
    const root = this.c.rootFor(uri.fsPath);
    if (!root) return;
    const known = this.byRoot.get(root);
    const inTree = known && (uri.fsPath.startsWith(known.tree.folder + path.sep) || uri.fsPath.startsWith(known.tree.outputFolder + path.sep));
    if (!inTree && !TREE_MARKERS.test(uri.fsPath)) return;
    this.dirtyRoots.add(root);
    this.flushSoon(DEBOUNCE_MS);
  }

  private flushSoon(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  /** Re-reads the trees of the folders that changed (synchronous reads of small files). */
  flush(): void {
    this.timer = undefined;
    const roots = [...this.dirtyRoots];
    this.dirtyRoots.clear();
    for (const root of roots) {
      try {
        const report = readReport(root);
        if (report) this.byRoot.set(root, report);
        else this.byRoot.delete(root);
        this.loads++;
      } catch (e) {
        this.c.log.error(`[tickets] ${root}: ${errorMessage(e)}`);
      }
    }
    if (roots.length && !this.isDisposed) this.emitter.fire();
  }
}

/** The tree of one folder with its next groups, status, problems and migration check; undefined without a tree. */
export function readReport(root: string): TreeReport | undefined {
  const tree = readTicketTree(root);
  if (!tree) return undefined;
  const next = nextGroups(tree);
  const nextOf = new Map<string, { group: keyof NextGroups; item: NextItem }>();
  for (const group of Object.keys(NEXT_GROUP_LABELS) as (keyof NextGroups)[]) for (const item of next[group]) nextOf.set(item.ticket.key, { group, item });
  const migration = tree.archiveV6 ? migrateCheck(root) : undefined;
  return { root, tree, next, status: treeStatus(tree), problems: [...treeProblems(tree), ...(migration?.problems ?? [])], migration, nextOf };
}

/** The initiative's tickets, then the backlog's leaves. */
export function allTickets(report: TreeReport): Ticket[] {
  return report.tree.backlog?.length ? [...report.tree.tickets, ...report.tree.backlog] : report.tree.tickets;
}
