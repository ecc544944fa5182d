// Crash-safe protocol in the editor: commands (checkpoints, orchestrator leases) over
// src/core/protocol, and what the surfaces show of it: who holds a lease on a workflow file
// (tree, status bar, hover: "an agent is writing this file") and the resume tier/degradation.
// Lease files are watched (`.waymark/leases/*.json`, no polling); a timer set to the next expiry
// marks a lease stale when it runs out.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StateCore } from '../core/index';
import { WaymarkError, errorMessage } from '../core/index';
import { createCheckpoint, currentOwner, describeOwner, leaseStatus, listLeases, releaseLease, takeoverLease, resume, type Lease, type LeaseOwner, type LeaseStatus, type ResumeReport } from '../core/index';
import { CONFIG_SECTION, PROTOCOL_COMMANDS } from './constants';

export interface ProtocolDeps {
  roots: string[];
  logger: vscode.LogOutputChannel;
  core: StateCore;
  /** False in an untrusted workspace: every command here writes. */
  canWrite?: () => boolean;
}

interface Args {
  root?: string;
  file?: string;
  message?: string;
  reason?: string;
  quiet?: boolean;
  /** Release: also a lease someone else holds (asked for in the UI). */
  force?: boolean;
}

/** A lease covering a workflow file, as the surfaces show it. */
export interface LeaseHolder {
  lease: Lease;
  /** `file` (a lease on this workflow) or `workspace` (the whole folder). */
  scope: 'file' | 'workspace';
  root: string;
  stale: boolean;
  staleReason?: 'expired' | 'dead-process';
  /** Held by this editor (same agent, session and host as our writes). */
  mine: boolean;
  /** `agent-1 (session s1, pid 42, on host)`. */
  who: string;
}

const changed = new vscode.EventEmitter<void>();
/** Fired when a lease appears, changes hands, is released or runs out. */
export const onDidChangeLeases: vscode.Event<void> = changed.event;

let monitor: LeaseMonitor | undefined;

/** The owner this editor acquires and takes over leases as (the `waymark.actor` setting). */
export function editorOwner(): LeaseOwner {
  return currentOwner({ agent: vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('actor', 'vscode') || 'vscode' });
}

function sameOwner(a: LeaseOwner, b: LeaseOwner): boolean {
  return a.agent === b.agent && (a.session ?? '') === (b.session ?? '') && a.host === b.host;
}

/**
 * Leases covering `file` (its own, then the workspace's), live ones first. Empty when the
 * protocol features are not loaded or nobody holds one.
 */
export function leaseHolders(file: string): LeaseHolder[] {
  return monitor?.holders(file) ?? [];
}

/** Live leases on `file` held by someone other than this editor. */
export function foreignHolders(file: string): LeaseHolder[] {
  return leaseHolders(file).filter((h) => !h.stale && !h.mine);
}

/** Where to continue `file`, from every tier (no side effects: the orchestrator TTL is not run). */
export async function resumeReport(file: string, root?: string): Promise<ResumeReport | undefined> {
  const r = root ?? monitor?.rootFor(file);
  if (!r) return undefined;
  try {
    return await resume(r, file, { expire: false });
  } catch (e) {
    monitor?.deps.logger.warn(`[protocol] resume ${file}: ${errorMessage(e)}`);
    return undefined;
  }
}

const DEGRADATION_MEANING: Record<string, string> = {
  full: 'frontmatter, checkpoint and orchestrator state all know this file',
  standard: 'two of frontmatter, checkpoint and orchestrator state know this file',
  minimal: 'only one source knows this file',
  none: 'nothing knows where this file stands',
};

/** One Markdown line: `Resume: tier 1 (frontmatter) · degradation minimal — …`. */
export function resumeLine(r: ResumeReport): string {
  const where = r.done ? 'every step done' : r.step ? `continue at \`${r.step}\`` : 'no step';
  return `$(debug-start) Resume: ${where} · tier ${r.tier} (${r.source}) · degradation **${r.degradation}** (${DEGRADATION_MEANING[r.degradation] ?? r.degradation})`;
}

function when(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : iso;
}

/** Markdown lines for tooltips and hovers: who holds it, since when, and Take over / Release links. */
export function leaseMarkdown(file: string, holders: LeaseHolder[]): string[] {
  const out: string[] = [];
  for (const h of holders) {
    const arg = encodeURIComponent(JSON.stringify([{ file: h.scope === 'file' ? file : undefined, root: h.root }]));
    const what = h.scope === 'workspace' ? 'the whole workspace' : 'this file';
    const take = `[$(key) Take over](command:${PROTOCOL_COMMANDS.leaseTakeOver}?${arg})`;
    const release = `[$(unlock) Release](command:${PROTOCOL_COMMANDS.leaseRelease}?${arg})`;
    if (h.stale) {
      out.push(`$(history) A stale lease of ${escapeMd(h.who)} on ${what} (${h.staleReason === 'dead-process' ? 'its process is gone' : `expired ${when(h.lease.expiresAt)}`}); the next writer breaks it. ${release}`);
    } else if (h.mine) {
      out.push(`$(key) You hold the lease on ${what} as ${escapeMd(h.who)} since ${when(h.lease.acquiredAt)} (expires ${when(h.lease.expiresAt)}). ${release}`);
    } else {
      const from = h.lease.takenOverFrom ? ` (taken over from ${escapeMd(h.lease.takenOverFrom.agent)})` : '';
      out.push(
        `$(lock) **An agent is writing ${what}**: ${escapeMd(h.who)}${from} holds the lease since ${when(h.lease.acquiredAt)} (expires ${when(h.lease.expiresAt)})${h.lease.note ? `, note: ${escapeMd(h.lease.note)}` : ''}. Changes from here are refused until it is released or taken over. ${take} · ${release}`,
      );
    }
  }
  return out;
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]<>|]/g, (c) => `\\${c}`);
}

/** Keeps every root's leases in memory, re-read when a lease file changes. */
class LeaseMonitor implements vscode.Disposable {
  private readonly byRoot = new Map<string, { leases: LeaseStatus[]; key: string }>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly disposables: vscode.Disposable[] = [];
  private expiryTimer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private readonly dirty = new Set<string>();
  /** Re-reads done (for tests and the log). */
  reads = 0;

  constructor(readonly deps: ProtocolDeps) {
    this.sync();
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.sync()),
      // The container replaces its core (and its roots) after folder changes: follow it.
      deps.core.onDidChange(() => this.sync()),
    );
  }

  rootFor(file: string): string | undefined {
    let best: string | undefined;
    for (const r of this.deps.roots) if ((file === r || file.startsWith(r + path.sep)) && (!best || r.length > best.length)) best = r;
    return best;
  }

  /** Watches the lease folder of every root (and forgets removed ones). */
  sync(): void {
    const roots = new Set(this.deps.roots);
    let fire = false;
    for (const [root, w] of this.watchers) {
      if (roots.has(root)) continue;
      w.dispose();
      this.watchers.delete(root);
      fire = this.byRoot.delete(root) || fire;
    }
    for (const root of roots) {
      if (this.watchers.has(root)) continue;
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '.waymark/leases/*.json'));
      const on = () => this.schedule(root);
      this.watchers.set(root, vscode.Disposable.from(w, w.onDidCreate(on), w.onDidChange(on), w.onDidDelete(on)));
      fire = this.read(root) || fire;
    }
    if (fire) this.changedNow();
  }

  private schedule(root: string): void {
    this.dirty.add(root);
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      const roots = [...this.dirty];
      this.dirty.clear();
      let fire = false;
      for (const r of roots) fire = this.read(r) || fire;
      if (fire) this.changedNow();
    }, 30);
  }

  /** Re-reads one root's leases now; true when what the surfaces show changed. */
  read(root: string): boolean {
    this.reads++;
    let leases: LeaseStatus[] = [];
    try {
      leases = listLeases(root);
    } catch (e) {
      this.deps.logger.warn(`[protocol] could not read the leases of ${root}: ${errorMessage(e)}`);
    }
    const key = JSON.stringify(leases);
    const prev = this.byRoot.get(root);
    this.byRoot.set(root, { leases, key });
    return prev?.key !== key;
  }

  /** Re-reads now (after our own take-over or release) and tells the surfaces. */
  refresh(root: string): void {
    if (this.read(root)) this.changedNow();
  }

  private changedNow(): void {
    this.scheduleExpiry();
    changed.fire();
  }

  /** One timer at the next expiry of a live lease: it turns stale then, with no polling. */
  private scheduleExpiry(): void {
    clearTimeout(this.expiryTimer);
    const now = Date.now();
    let next = Infinity;
    for (const { leases } of this.byRoot.values()) {
      for (const s of leases) {
        const t = Date.parse(s.lease.expiresAt);
        if (!s.stale && Number.isFinite(t) && t > now) next = Math.min(next, t);
      }
    }
    if (next === Infinity) return;
    // setTimeout's limit is ~24.8 days; a longer lease gets re-armed when the timer fires.
    this.expiryTimer = setTimeout(() => {
      for (const root of this.byRoot.keys()) this.read(root);
      this.changedNow();
    }, Math.min(next - now + 50, 2 ** 31 - 1));
  }

  holders(file: string): LeaseHolder[] {
    const root = this.rootFor(file);
    if (!root) return [];
    const entry = this.byRoot.get(root);
    if (!entry?.leases.length) return [];
    const rel = path.relative(root, file).split(path.sep).join('/');
    const me = editorOwner();
    const out: LeaseHolder[] = [];
    for (const cached of entry.leases) {
      const scope = cached.lease.key === 'root' ? 'workspace' : cached.lease.target === rel ? 'file' : undefined;
      if (!scope) continue;
      // Staleness by the clock now (the cache may be older than an expiry or a process exit).
      const st = leaseStatus(cached.lease);
      out.push({ lease: st.lease, scope, root, stale: st.stale, staleReason: st.staleReason, mine: sameOwner(st.lease.owner, me), who: describeOwner(st.lease.owner) });
    }
    return out.sort((a, b) => Number(a.stale) - Number(b.stale) || (a.scope === 'file' ? -1 : 1));
  }

  dispose(): void {
    clearTimeout(this.expiryTimer);
    clearTimeout(this.debounce);
    for (const w of this.watchers.values()) w.dispose();
    this.watchers.clear();
    for (const d of this.disposables) d.dispose();
    this.byRoot.clear();
  }
}

/** What a command was called with: our args object, a Workflows tree node, or a file Uri. */
function normalizeArgs(arg: unknown): Args {
  if (arg instanceof vscode.Uri) return arg.scheme === 'file' ? { file: arg.fsPath } : {};
  if (!arg || typeof arg !== 'object') return {};
  const node = arg as { kind?: string; state?: { file?: unknown } };
  if (node.state && typeof node.state.file === 'string') return { file: node.state.file };
  return arg as Args;
}

export function registerProtocolFeatures(_context: vscode.ExtensionContext, deps: ProtocolDeps): vscode.Disposable {
  const { logger } = deps;
  const owner = editorOwner;
  const leases = new LeaseMonitor(deps);
  monitor = leases;
  // Surfaces created before us (tree, status bar) render the leases already on disk.
  changed.fire();

  const pickRoot = async (a: Args): Promise<string | undefined> => {
    if (a.root) return a.root;
    const roots = deps.roots; // read now: folders can change after activation
    if (a.file) return leases.rootFor(a.file) ?? roots[0];
    if (roots.length <= 1) return roots[0];
    return (await vscode.window.showQuickPick(roots.map((r) => ({ label: path.basename(r), description: r, r }))))?.r;
  };

  const wrap = (id: string, action: string, fn: (a: Args) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (arg?: unknown) => {
      try {
        if (deps.canWrite && !deps.canWrite()) {
          throw new WaymarkError('unavailable', `${action} is disabled because this workspace is not trusted. Trust the folder to change workflow state.`, undefined, { untrusted: true });
        }
        return await fn(normalizeArgs(arg));
      } catch (e) {
        const message = WaymarkError.is(e) && e.data?.untrusted ? errorMessage(e) : `${action} failed: ${errorMessage(e)}`;
        logger.error(`[protocol] ${message}`);
        void vscode.window.showErrorMessage(message, 'Show Log').then((b) => b && logger.show(true));
        return undefined;
      }
    });

  const label = (root: string, file: string | undefined) => (file ? path.relative(root, file).split(path.sep).join('/') : `the workspace ${path.basename(root)}`);

  const disposables = [
    leases,
    wrap(PROTOCOL_COMMANDS.checkpointCreate, 'Create checkpoint', async (a) => {
      const root = await pickRoot(a);
      if (!root) return undefined;
      const message = a.message ?? (a.quiet ? undefined : await vscode.window.showInputBox({ prompt: 'Checkpoint message (optional)' }));
      if (message === undefined && !a.quiet) return undefined;
      const cp = await createCheckpoint(root, { message: message || undefined, actor: owner().agent, logger });
      logger.info(`[protocol] checkpoint ${cp.id}: ${cp.workflows.length} workflow(s)`);
      if (!a.quiet) void vscode.window.showInformationMessage(`Checkpoint ${cp.id}: ${cp.workflows.length} workflow(s) saved.`);
      return cp;
    }),
    wrap(PROTOCOL_COMMANDS.leaseTakeOver, 'Take over lease', async (a) => {
      const root = await pickRoot(a);
      if (!root) return undefined;
      let file = a.file;
      if (!file && !a.root && !a.quiet) {
        const held = listLeases(root).filter((s) => !s.stale);
        const picked = await vscode.window.showQuickPick(
          [
            { label: 'Whole workspace', description: held.find((s) => s.lease.key === 'root') ? describeOwner(held.find((s) => s.lease.key === 'root')!.lease.owner) : '', target: undefined as string | undefined },
            ...held.filter((s) => s.lease.key !== 'root').map((s) => ({ label: s.lease.target, description: describeOwner(s.lease.owner), target: path.join(root, s.lease.target) })),
          ],
          { title: 'Take over the orchestrator lease of…' },
        );
        if (!picked) return undefined;
        file = picked.target;
      }
      let reason = a.reason;
      if (reason === undefined && !a.quiet) {
        const holder = listLeases(root).find((s) => s.lease.key === (file ? `file:${label(root, file)}` : 'root'));
        reason = await vscode.window.showInputBox({
          title: `Take over ${label(root, file)}${holder ? ` from ${holder.lease.owner.agent}` : ''}`,
          prompt: 'Why take over? (recorded in the events log and the history; Escape cancels)',
        });
        if (reason === undefined) return undefined; // cancelled
      }
      const r = await takeoverLease(root, file, owner(), { reason: reason || undefined, logger });
      leases.refresh(root);
      logger.info(`[protocol] took over the lease of ${label(root, file)}${r.previous ? ` from ${describeOwner(r.previous.owner)}` : ''}`);
      if (!a.quiet) void vscode.window.showInformationMessage(`Lease on ${label(root, file)} taken over${r.previous ? ` from ${describeOwner(r.previous.owner)}` : ''}.`);
      return r;
    }),
    wrap(PROTOCOL_COMMANDS.leaseRelease, 'Release lease', async (a) => {
      const root = await pickRoot(a);
      if (!root) return undefined;
      let file = a.file;
      const me = owner();
      if (!file && !a.root && !a.quiet) {
        const mine = listLeases(root).filter((s) => sameOwner(s.lease.owner, me) || s.stale);
        if (!mine.length) throw new WaymarkError('usage', `No lease held by ${me.agent} in ${path.basename(root)}.`);
        const picked = await vscode.window.showQuickPick(mine.map((s) => ({ label: s.lease.target === '*' ? 'Whole workspace' : s.lease.target, description: `${describeOwner(s.lease.owner)}${s.stale ? ' (stale)' : ''}`, target: s.lease.target === '*' ? undefined : path.join(root, s.lease.target) })));
        if (!picked) return undefined;
        file = picked.target;
      }
      let force = a.force === true;
      if (!force && !a.quiet) {
        const cur = listLeases(root).find((s) => s.lease.key === (file ? `file:${label(root, file)}` : 'root'));
        if (cur && !cur.stale && !sameOwner(cur.lease.owner, me)) {
          const b = await vscode.window.showWarningMessage(
            `${describeOwner(cur.lease.owner)} holds the lease on ${label(root, file)} since ${cur.lease.acquiredAt}. Releasing it lets anyone write while that agent may still be working. Release it anyway?`,
            { modal: true },
            'Release Anyway',
          );
          if (b !== 'Release Anyway') return undefined;
          force = true;
        }
      }
      const r = await releaseLease(root, file, me, { logger, force });
      leases.refresh(root);
      if (!a.quiet) void vscode.window.showInformationMessage(r.released ? `Lease on ${label(root, file)} released.` : 'No lease to release.');
      return r;
    }),
  ];
  return new vscode.Disposable(() => {
    for (const d of disposables) d.dispose();
    if (monitor === leases) monitor = undefined;
    changed.fire();
  });
}
