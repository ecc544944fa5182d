// The MCP server's workspace: one long-lived state core per root and its warm project view, kept
// current by a file watcher (treeWatcher.ts). Before every answer the events already queued are
// taken in (one turn of the event loop: a write another process finished before the agent asked
// is in the queue by then), every watched folder is stat'ed (a file created, removed or renamed
// without an event is found), and a one-file answer stats its file. When events cannot be
// trusted (no watch, a possible queue overflow) whole-workspace answers rescan first.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WarmProjectView, WaymarkError, createStateCore, errorMessage, locateTree, readTicketTree } from '../core/index';
import type { LeaseOwner, Logger, MemoryService, MutationOptions, MutationResult, ProjectView, SprintReport, StateCore, TicketTree, WorkflowState } from '../core/index';
import type { ToolHost } from './host';
import { TreeWatcher, relativeTo } from './treeWatcher';

export interface WorkspaceSessionOptions {
  root: string;
  actor: string;
  /** Session marker for history and the holder id of leases taken through this server. */
  session: string;
  logger: Logger;
  /** Delay after a file change before it is re-read (changes within it are merged). */
  debounceMs?: number;
  /** Keep the memory database open this long after use; others meanwhile write to the inbox. */
  memoryHoldMs?: number;
}

/** Never watched: VCS internals, dependencies, Waymark's own stores that no answer reads. */
const UNWATCHED = /^(?:\.git|node_modules|\.waymark\/(?:memory|cache|locks?|journal|checkpoints|tx|[^/]*\.lock))(?:\/|$)|\.lock$|\.waymark-tmp$/;
/** Watched for the project view only (activity): no workflow state there. */
const ACTIVITY_ONLY = /^\.waymark\/(?:history|events|leases|modes|outbox)(?:\/|$)/;
const WORKFLOW_TEXT = /\.(?:md|markdown)$/i;
/** Changes that alter how every file reads (config, step definitions, BMAD manifests). */
const CONTEXT_FILES = /^(?:\.waymark[\\/](?:config\.ya?ml|workflows[\\/].*)|_bmad[\\/].*\.(?:csv|ya?ml))$/i;

/** Whether a folder's real path (or its nearest existing ancestor's) lies inside `root`'s. */
function realInside(root: string): (dir: string) => boolean {
  const base = fs.realpathSync.native(root);
  return (dir) => {
    let d = dir;
    for (;;) {
      try {
        const rel = path.relative(base, fs.realpathSync.native(d));
        return rel === '' || (!/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel));
      } catch {
        const up = path.dirname(d);
        if (up === d) return false;
        d = up;
      }
    }
  };
}

/** What moves when a file changes: size, mtime, ctime, inode (kept as numbers: no string per answer). */
interface Signature {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

function signature(st: fs.Stats): Signature {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
}

function same(was: Signature | undefined, st: fs.Stats): boolean {
  return was !== undefined && sameKey(was, st);
}

function sameKey(was: Signature, st: fs.Stats): boolean {
  return was.size === st.size && was.mtimeMs === st.mtimeMs && was.ctimeMs === st.ctimeMs && was.ino === st.ino;
}

export class WorkspaceSession implements ToolHost {
  readonly roots: string[];
  readonly actor: string;
  private current: StateCore;
  private readonly opts: WorkspaceSessionOptions;
  private scanned?: Promise<void>;
  private watcher?: TreeWatcher;
  private warm: WarmProjectView;
  private readonly pending = new Set<string>();
  private contextChanged = false;
  private timer?: NodeJS.Timeout;
  /** File signature at the last read, per file: a mismatch means re-read before answering. */
  private readonly seen = new Map<string, Signature>();
  /** Files this server is writing right now: their watcher events are its own write's. */
  private readonly writing = new Set<string>();
  /** Files written, by the text written (and its stat key as it landed), not yet compared with the disk (settleWritten). */
  private readonly written = new Map<string, { text: string; landedAs: MutationResult['landedAs'] }>();
  /** BMAD v7's ticket tree of the root as last read (`value` undefined: none); dropped by any change the watcher reports. */
  private tree?: { value: TicketTree | undefined };
  private disposed = false;

  constructor(opts: WorkspaceSessionOptions) {
    this.opts = opts;
    this.roots = [path.resolve(opts.root)];
    this.actor = opts.actor;
    this.current = this.makeCore();
    this.warm = new WarmProjectView(this.current);
  }

  get core(): StateCore {
    return this.current;
  }

  private makeCore(): StateCore {
    // The same factory as the CLI and the extension: leases honoured, events logged, memory fed.
    // Memory consolidation and the events line run after a write has answered (the agent does not
    // wait for them; the memory tools wait for them before they read).
    return createStateCore({ roots: this.roots, actor: this.opts.actor, session: this.opts.session, logger: this.opts.logger, origin: 'mcp', memory: { consolidateAfterAnswer: true }, eventsAfterAnswer: true });
  }

  /** Starts watching, then scans; tools wait for the scan. */
  start(): Promise<void> {
    if (!this.scanned) {
      // Made first, with this server's settings, so the core's memory observer shares it.
      this.memory(this.roots[0]);
      this.watch();
      this.scanned = this.scan();
    }
    return this.scanned;
  }

  private async scan(): Promise<void> {
    const started = Date.now();
    const r = await this.core.scan();
    this.opts.logger.info(`[mcp] ${r.workflows.length} workflow(s), ${r.files} file(s) in ${this.roots[0]} scanned in ${Date.now() - started} ms`);
  }

  private watch(): void {
    const root = this.roots[0];
    this.watcher = new TreeWatcher(root, { ignore: (rel) => UNWATCHED.test(rel), onChange: (abs) => this.onChange(abs) });
    if (!this.watcher.start()) this.opts.logger.warn(`[mcp] ${this.watcher.lost}; rescanning before whole-workspace answers instead`);
    else this.opts.logger.debug(`[mcp] watching ${this.watcher.size} folder(s) of ${root}`);
  }

  private onChange(abs: string): void {
    if (this.disposed) return;
    const slashed = relativeTo(this.roots[0], abs);
    this.warm.changed([abs]);
    if (ACTIVITY_ONLY.test(slashed)) return;
    // Any file may be part of the ticket tree or say where it is (config, initiatives, plans, leaves).
    this.tree = undefined;
    if (CONTEXT_FILES.test(slashed)) this.contextChanged = true;
    else if (WORKFLOW_TEXT.test(slashed) || slashed.endsWith('.gate')) this.pending.add(abs);
    else return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush().catch((e) => this.opts.logger.warn(`[mcp] applying file changes: ${errorMessage(e)}`)), this.opts.debounceMs ?? 100);
    this.timer.unref?.();
  }

  /** Applies the changes seen so far: a rescan after a config change, else one re-read per file. */
  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.contextChanged) {
      // Config and step definitions are read once per core: build a new one, scan it, swap.
      this.contextChanged = false;
      this.pending.clear();
      const next = this.makeCore();
      const started = Date.now();
      await next.scan();
      const old = this.current;
      this.current = next;
      this.warm = new WarmProjectView(next);
      this.tree = undefined;
      this.seen.clear();
      this.memory(this.roots[0]);
      await old.close();
      this.opts.logger.info(`[mcp] configuration changed: rescanned in ${Date.now() - started} ms`);
      return;
    }
    for (const file of [...this.written.keys()]) this.settleWritten(file);
    const files = [...this.pending];
    this.pending.clear();
    for (const file of files) {
      if (file.endsWith('.gate')) {
        // A verdict changed: re-read the workflows whose gates live there.
        for (const s of this.core.list()) if (Object.values(s.gates).some((g) => g.file === file)) await this.reload(s.file);
        continue;
      }
      await this.reload(file, true);
    }
  }

  /** Re-reads `file` into the model; `unlessSeen`: not when it is as this server last read or wrote it (its own write's event). */
  private async reload(file: string, unlessSeen = false): Promise<WorkflowState | undefined> {
    // A write through this server in flight: mutate() takes in what it finds on disk once it is done.
    if (unlessSeen && this.writing.has(file)) return this.core.get(file);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && unlessSeen && same(this.seen.get(file), st)) {
      const known = this.core.get(file);
      if (known) return known;
    }
    if (!st) {
      this.seen.delete(file);
      this.core.remove(file);
      return undefined;
    }
    try {
      const s = await this.core.reload(file);
      this.seen.set(file, signature(st));
      return s;
    } catch (e) {
      this.opts.logger.warn(`[mcp] re-reading ${file}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /**
   * Takes in every change made before this call: the events already queued (one turn of the loop),
   * the folders' stats (a change whose event was lost), and a rescan when events cannot be trusted.
   */
  async refresh(): Promise<void> {
    await this.start();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.watcher?.lost) {
      // Events were lost: watch afresh (every folder listed again) and rescan once. When watching
      // is not possible at all, every whole-workspace answer rescans (the scan index makes that a
      // stat per file).
      this.opts.logger.warn(`[mcp] ${this.watcher.lost}: rescanning ${this.roots[0]}`);
      this.watcher.close();
      this.watch();
      this.contextChanged = true;
    } else this.watcher?.verify();
    if (this.pending.size || this.contextChanged) await this.flush();
  }

  async state(file: string): Promise<WorkflowState> {
    await this.start();
    this.settleWritten(file);
    // The events already queued (a configuration edit changes how every file reads); the file itself is stat'ed below.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.contextChanged) await this.flush();
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      this.core.remove(file);
      throw new WaymarkError('unreadable', `${path.relative(this.roots[0], file) || file} does not exist; waymark_summary lists the workflow files.`, file);
    }
    if (!st.isFile()) throw new WaymarkError('unreadable', `${path.relative(this.roots[0], file)} is not a regular file; give a workflow Markdown file.`, file);
    const known = this.core.get(file);
    if (known && same(this.seen.get(file), st) && !this.pending.has(file)) return known;
    this.pending.delete(file);
    // Re-read through the core: a file that is not (or no longer) a workflow says why.
    const s = await this.core.reload(file);
    this.seen.set(file, signature(st));
    if (s) return s;
    const { problems } = await this.core.parseText(file, fs.readFileSync(file, 'utf8'));
    const first = problems.find((p) => p.severity === 'error');
    if (first) throw new WaymarkError('invalid', `${path.relative(this.roots[0], file)}:${first.range.start.line + 1}: ${first.message}`, file, { code: first.code });
    throw new WaymarkError('usage', `${path.relative(this.roots[0], file)} is not a workflow file: its frontmatter has no workflow, workflowType, steps or stepsCompleted key.`, file);
  }

  async mutate(file: string, options: MutationOptions, op: (o: MutationOptions) => Promise<MutationResult>): Promise<MutationResult> {
    await this.start();
    // The core locks, re-reads and compares expectHash itself: a stale model cannot lose an update.
    this.writing.add(file);
    let r: MutationResult;
    try {
      r = await op(options);
    } catch (e) {
      this.writing.delete(file);
      throw e;
    }
    // Whether the file on disk is the one written is looked at once the answer is out (or before
    // the next read of the file, whichever comes first).
    this.written.set(file, { text: r.newText, landedAs: r.landedAs });
    setImmediate(() => this.settleWritten(file));
    return r;
  }

  /**
   * The file as this server wrote it is what the model holds; anything else (an editor's save
   * right after the write, whose event came while it was in flight) is read before the next answer.
   * A stat still showing the key the write landed with (its inode, size, mtime and ctime, proved by
   * the transaction right after its rename) says so without reading the file.
   */
  private settleWritten(file: string): void {
    const w = this.written.get(file);
    if (w === undefined || this.disposed) return;
    this.written.delete(file);
    this.writing.delete(file);
    const { text, landedAs } = w;
    if (landedAs) {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (st && st.dev === landedAs.dev && sameKey(landedAs, st)) {
        this.seen.set(file, signature(st));
        return;
      }
    }
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r');
      const st = fs.fstatSync(fd);
      if (fs.readFileSync(fd, 'utf8') === text) this.seen.set(file, signature(st));
      else {
        this.seen.delete(file);
        this.pending.add(file);
      }
    } catch {
      this.seen.delete(file);
      this.pending.add(file);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  assertCanWrite(): void {
    // A stdio server runs with the rights of the agent that started it.
  }

  memory(root: string): MemoryService {
    // The core's (shared with its write observer: this process opens the database at most once).
    // Short waits: when another server holds the database, answer from the journal and say so.
    return this.core.memory.forRoot(root, { waitMs: 300, holdMs: this.opts.memoryHoldMs ?? 2000 });
  }

  async project(): Promise<ProjectView> {
    await this.refresh();
    return this.warm.view({ roots: this.roots, workflows: this.core.list() });
  }

  async sprint(): Promise<SprintReport | undefined> {
    return (await this.project()).sprints.get(this.roots[0])?.[0];
  }

  async ticketTree(): Promise<TicketTree | undefined> {
    await this.start();
    if (this.tree) return this.tree.value;
    const root = this.roots[0];
    const value = readTicketTree(root);
    // Kept only while every file it read is one the watcher sees (inside the root, not through a
    // link out of it); else read on every call, as before.
    const loc = locateTree(root);
    const real = realInside(root);
    if (!this.watcher?.lost && [loc.outputFolder, loc.storeRoot, loc.folder, value?.folder].every((d) => d === undefined || real(d))) this.tree = { value };
    return value;
  }

  owner(): LeaseOwner {
    // pid: the lease goes stale when this server exits.
    return { agent: this.actor, session: this.opts.session, pid: process.pid, host: os.hostname() };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    await this.core.close();
  }
}
