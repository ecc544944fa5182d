// Orchestrator leases as the surfaces show them: every folder's leases (in a git repository the
// shared `<git common dir>/waymark/leases/` every worktree sees, plus the old `.waymark/leases/`) kept in
// memory, re-read when a lease file changes (watched, no polling); one timer set to the next
// expiry turns a lease stale when it runs out. Owned by the model, which tells the surfaces.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { currentOwner, describeOwner, errorMessage } from '../core/index';
import type { Lease, LeaseOwner, LeaseStatus, StateCore } from '../core/index';
import { COMMANDS } from './constants';
import { Disposable } from './disposable';
import { FolderWatchers } from './folderWatch';
import { escapeMd } from './presentation';

/** A lease covering a workflow file, as the surfaces show it. */
export interface LeaseHolder {
  lease: Lease;
  /** `file` (a lease on this workflow) or `workspace` (the whole folder). */
  scope: 'file' | 'workspace';
  root: string;
  stale: boolean;
  staleReason?: 'expired' | 'dead-process';
  /** Held on another machine: shown, never judged by its pid (only expiry or a take-over ends it). */
  remote: boolean;
  /** Held by this editor (same agent, session and host as our writes). */
  mine: boolean;
  /** `agent-1 (session s1, pid 42, on host)`. */
  who: string;
}

export function sameOwner(a: LeaseOwner, b: LeaseOwner): boolean {
  return a.agent === b.agent && (a.session ?? '') === (b.session ?? '') && a.host === b.host;
}

/** The owner this editor acquires and takes over leases as. */
export function editorOwner(actor: string): LeaseOwner {
  return currentOwner({ agent: actor });
}

export class LeaseMonitor extends Disposable {
  private readonly byRoot = new Map<string, { leases: LeaseStatus[]; key: string }>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** Each root's lease folders, and Node's own watcher of each one that exists (see watchFolders). */
  private readonly folders = new Map<string, string[]>();
  private readonly folderWatchers: FolderWatchers;
  private expiryTimer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private readonly dirty = new Set<string>();

  constructor(
    private readonly deps: { core(): StateCore; roots(): readonly string[]; actor(): string; log: vscode.LogOutputChannel },
    private readonly changed: () => void,
  ) {
    super();
    this.folderWatchers = new FolderWatchers((m) => deps.log.warn(`[leases] ${m}`));
    this.register({
      dispose: () => {
        clearTimeout(this.expiryTimer);
        clearTimeout(this.debounce);
        for (const w of this.watchers.values()) w.dispose();
        this.watchers.clear();
        this.folderWatchers.dispose();
        this.byRoot.clear();
      },
    });
  }

  rootFor(file: string): string | undefined {
    let best: string | undefined;
    for (const r of this.deps.roots()) if ((file === r || file.startsWith(r + path.sep)) && (!best || r.length > best.length)) best = r;
    return best;
  }

  /** Watches the lease folder of every root and forgets removed ones. */
  sync(): void {
    if (this.isDisposed) return;
    const roots = new Set(this.deps.roots());
    let fire = false;
    for (const [root, w] of this.watchers) {
      if (roots.has(root)) continue;
      w.dispose();
      this.watchers.delete(root);
      this.folders.delete(root);
      fire = this.byRoot.delete(root) || fire;
    }
    this.watchFolders();
    for (const root of roots) {
      if (this.watchers.has(root)) continue;
      const on = () => this.schedule(root);
      let folders = [path.join(root, '.waymark', 'leases')];
      try {
        folders = this.deps.core().protocol.leaseFolders(root);
      } catch (e) {
        this.deps.log.warn(`[leases] could not locate the lease folders of ${root}: ${errorMessage(e)}`);
      }
      // The shared folder lies outside the workspace (in the git folder): watched by its own pattern,
      // from its nearest existing folder so that a lease folder made later is seen too.
      const parts = folders.flatMap((f) => {
        const { base, pattern } = watchBase(f);
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), pattern));
        return [w, w.onDidCreate(on), w.onDidChange(on), w.onDidDelete(on)];
      });
      this.watchers.set(root, vscode.Disposable.from(...parts));
      this.folders.set(root, folders);
      fire = this.read(root) || fire;
    }
    if (fire) this.changedNow();
  }

  /** Re-reads one root's leases now (after our own take-over or release) and tells the surfaces. */
  refresh(root: string): void {
    if (this.read(root)) this.changedNow();
  }

  /** Leases covering `file` (its own, then the workspace's), live ones first. */
  holders(file: string): LeaseHolder[] {
    const root = this.rootFor(file);
    if (!root) return [];
    const entry = this.byRoot.get(root);
    if (!entry?.leases.length) return [];
    const rel = path.relative(root, file).split(path.sep).join('/');
    const me = editorOwner(this.deps.actor());
    const out: LeaseHolder[] = [];
    for (const cached of entry.leases) {
      const scope = cached.lease.key === 'root' ? 'workspace' : cached.lease.target === rel ? 'file' : undefined;
      if (!scope) continue;
      // Staleness by the clock now: the cache may be older than an expiry or a process exit.
      const st = this.deps.core().protocol.leaseStatus(cached.lease);
      out.push({ lease: st.lease, scope, root, stale: st.stale, staleReason: st.staleReason, remote: !!st.remote, mine: sameOwner(st.lease.owner, me), who: describeOwner(st.lease.owner) });
    }
    return out.sort((a, b) => Number(a.stale) - Number(b.stale) || (a.scope === 'file' ? -1 : 1));
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

  /** True when what the surfaces show changed. */
  private read(root: string): boolean {
    let leases: LeaseStatus[] = [];
    try {
      leases = this.deps.core().protocol.listLeases(root);
    } catch (e) {
      this.deps.log.warn(`[leases] could not read the leases of ${root}: ${errorMessage(e)}`);
    }
    this.watchFolders();
    const key = JSON.stringify(leases);
    const prev = this.byRoot.get(root);
    this.byRoot.set(root, { leases, key });
    return prev?.key !== key;
  }

  /**
   * VS Code's recursive watcher misses a folder made inside a folder made the same instant (an
   * agent's first lease makes `waymark/leases/` and its file at once), so no later change there, a
   * release included, would be reported: each lease folder that exists is also watched by Node's own
   * watcher (folderWatch.ts), made again when the folder is.
   */
  private watchFolders(): void {
    if (this.isDisposed) return;
    // A shared folder (the git common dir's) serves every root of that repository.
    const rootsOf = new Map<string, string[]>();
    for (const [root, folders] of this.folders) for (const f of folders) rootsOf.set(f, [...(rootsOf.get(f) ?? []), root]);
    const wanted = new Map<string, () => void>();
    for (const [f, roots] of rootsOf) wanted.set(f, () => roots.forEach((r) => this.schedule(r)));
    for (const f of this.folderWatchers.sync(wanted)) wanted.get(f)?.();
  }

  private changedNow(): void {
    if (this.isDisposed) return;
    this.scheduleExpiry();
    this.changed();
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
}

/** The nearest existing folder of `folder` and the pattern of its lease files below it. */
function watchBase(folder: string): { base: string; pattern: string } {
  let base = folder;
  const parts: string[] = [];
  while (!fs.existsSync(base)) {
    const up = path.dirname(base);
    if (up === base) break;
    parts.unshift(path.basename(base));
    base = up;
  }
  // The missing folders themselves too: made in one burst with a lease file, their files may never
  // be reported, but the folder is, and reading then watches it (watchFolders).
  const names = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  const files = [...parts, '*.json'].join('/');
  return { base, pattern: names.length ? `{${[...names, files].join(',')}}` : files };
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
    const take = `[$(key) Take over](command:${COMMANDS.leaseTakeOver}?${arg})`;
    const release = `[$(unlock) Release](command:${COMMANDS.leaseRelease}?${arg})`;
    if (h.stale) {
      out.push(`$(history) A stale lease of ${escapeMd(h.who)} on ${what} (${h.staleReason === 'dead-process' ? 'its process is gone' : `expired ${when(h.lease.expiresAt)}`}); the next writer breaks it. ${release}`);
    } else if (h.mine) {
      out.push(`$(key) You hold the lease on ${what} as ${escapeMd(h.who)} since ${when(h.lease.acquiredAt)} (expires ${when(h.lease.expiresAt)}). ${release}`);
    } else {
      const from = h.lease.takenOverFrom ? ` (taken over from ${escapeMd(h.lease.takenOverFrom.agent)})` : '';
      const remote = h.remote ? ` It is held on another machine (${escapeMd(h.lease.owner.host)}): its process is not checked here, only its expiry or a take-over ends it.` : '';
      out.push(
        `$(lock) **An agent is writing ${what}**: ${escapeMd(h.who)}${from} holds the lease since ${when(h.lease.acquiredAt)} (expires ${when(h.lease.expiresAt)})${h.lease.note ? `, note: ${escapeMd(h.lease.note)}` : ''}. Changes from here are refused until it is released or taken over.${remote} ${take} · ${release}`,
      );
    }
  }
  return out;
}
