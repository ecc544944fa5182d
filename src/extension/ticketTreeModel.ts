// BMAD v7's ticket tree of every workspace folder (TicketTreeModel): the core's reader, `next`
// groups, checks and migration check, re-read when a `tickets.toml`, a ticket's leaf file or plan,
// a container file or the BMAD config changes, with one change event. The Sprint view, the status
// bar, hovers, diagnostics and the dashboard read it beside the v6 sprint (sprintModel.ts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { migrateCheck, nextGroups, readTicketTree, treeProblems, treeStatus } from '../core/index';
import type { Epic, MigrationReport, NextGroups, NextItem, Problem, Ticket, TicketTree, TreeStatus } from '../core/index';
import { RootReports } from './rootReports';
import type { ExtensionModel } from './model';

/** A file that can create a tree where none was: a breakdown, or a BMAD config layer. */
const TREE_MARKERS = /(?:^|[\\/])(?:tickets\.toml|_bmad[\\/](?:custom[\\/])?[^\\/]*\.toml)$/i;

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
export class TicketTreeModel extends RootReports<TreeReport> {
  constructor(c: ExtensionModel) {
    super(c, '**/*.{md,toml}', /\.(md|toml)$/i, 'tickets');
  }

  protected concerns(file: string, root: string): boolean {
    const known = this.byRoot.get(root);
    const inTree = known && (file.startsWith(known.tree.folder + path.sep) || file.startsWith(known.tree.outputFolder + path.sep));
    return !!inTree || TREE_MARKERS.test(file);
  }

  protected read(root: string): TreeReport | undefined {
    return readReport(root);
  }

  /** The folder the tree was read from, its epics' folders and those of every ticket's file and plan. */
  protected override folders(r: TreeReport): string[] {
    const out = new Set([r.tree.folder, ...r.tree.epics.map((e) => e.folder)]);
    for (const t of allTickets(r)) for (const f of [t.file, t.plan]) if (f) out.add(path.dirname(f));
    return [...out];
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
