/**
 * The git-backed ticket store: one Markdown file with frontmatter per ticket in a separate git
 * repository (the way BMAD's own default ticket store works), committed with real `git` once
 * per run. Every path written is checked by its real path inside that repository.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { WaymarkError } from '../../errors';
import { sha256 } from '../../model/hash';
import { splitFrontmatter, safeYamlParse } from '../../model/frontmatter';
import { runGit } from '../../protocol/git';
import { writeFileAtomic } from '../../store/atomicWrite';
import { resolveRealPath, safeMkdir, safeWritePath } from '../../store/safePath';
import { bodyWithNote, removedLabels, sourceOf, type ListedTicket, type TrackerCall, type StoreCapabilities, type TicketDraft, type TicketRef, type TicketStore } from '../port';

export interface GitStoreOptions {
  name: string;
  /** The ticket repository (absolute). */
  repo: string;
  /** Folder inside it for ticket files. */
  dir: string;
}

/** A ticket file's name: the id made safe for every file system, plus a short hash so two ids never share one. */
export function ticketFileName(waymarkId: string): string {
  const safe = waymarkId.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+/, '').slice(0, 80) || 'ticket';
  return `${safe}-${sha256(waymarkId).slice(0, 8)}`;
}

export class GitTicketStore implements TicketStore {
  readonly name: string;
  readonly capabilities: StoreCapabilities = { parent: true, blockedBy: true, labels: true };
  private readonly repo: string;
  private readonly dir: string;
  private index: Map<string, ListedTicket> | undefined;

  constructor(options: GitStoreOptions) {
    this.name = options.name;
    this.repo = resolveRealPath(options.repo);
    this.dir = path.join(this.repo, options.dir);
    safeWritePath(this.repo, this.dir, `ticket folder ${options.dir}`);
  }

  /** Refuses a missing repository or a folder that is no git repository (exit 2, with the fix). */
  static async open(options: GitStoreOptions): Promise<GitTicketStore> {
    if (!fs.existsSync(options.repo) || !fs.statSync(options.repo).isDirectory()) {
      throw new WaymarkError('usage', `The ticket repository ${options.repo} does not exist; create it (git init ${options.repo}) or fix tracker.repo in .waymark/config.yaml.`, options.repo);
    }
    const top = await runGit(options.repo, ['rev-parse', '--show-toplevel']);
    if (top.code !== 0 || resolveRealPath(top.stdout.trim()) !== resolveRealPath(options.repo)) {
      throw new WaymarkError('usage', `${options.repo} is not the top of a git repository; run git init ${options.repo} (the ticket store is a repository of its own).`, options.repo);
    }
    return new GitTicketStore(options);
  }

  private load(): Map<string, ListedTicket> {
    if (this.index) return this.index;
    const index = new Map<string, ListedTicket>();
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.md'));
    } catch {
      // no ticket yet
    }
    for (const n of names) {
      try {
        const text = fs.readFileSync(path.join(this.dir, n), 'utf8');
        const split = splitFrontmatter(text);
        const data = split.hasFrontmatter ? (safeYamlParse(split.yamlText) as Record<string, unknown>) : undefined;
        const id = data?.['waymark-id'];
        const labels = Array.isArray(data?.labels) ? data.labels.filter((l): l is string => typeof l === 'string') : undefined;
        if (typeof id === 'string') index.set(id, { id: n.slice(0, -3), url: path.relative(this.repo, path.join(this.dir, n)).split(path.sep).join('/'), status: typeof data?.status === 'string' ? data.status : undefined, source: sourceOf(text), labels });
      } catch {
        // a ticket file someone broke by hand: not ours to fix; its id is created again elsewhere
      }
    }
    this.index = index;
    return index;
  }

  async find(waymarkId: string): Promise<TicketRef | undefined> {
    const t = this.load().get(waymarkId);
    return t && { id: t.id, url: t.url, status: t.status };
  }

  /** Every ticket file with a `waymark-id` (read from the folder again: files may have been removed). */
  async list(call?: TrackerCall): Promise<Map<string, ListedTicket>> {
    this.index = undefined;
    const load = async () => this.load();
    return new Map(call ? await call(load) : this.load());
  }

  /** Rewrites the ticket file closed, with `status:removed` and the note; a closed one is left as it is. */
  async close(ref: ListedTicket, waymarkId: string, note: string): Promise<TicketRef> {
    if (ref.status === 'closed') return ref;
    const file = path.join(this.dir, `${ref.id}.md`);
    const real = safeWritePath(this.repo, file, 'ticket file');
    const text = fs.readFileSync(real, 'utf8');
    const split = splitFrontmatter(text);
    const data = (split.hasFrontmatter ? (safeYamlParse(split.yamlText) as Record<string, unknown>) : undefined) ?? {};
    const fm: Record<string, unknown> = { ...data, 'waymark-id': waymarkId, status: 'closed', labels: removedLabels(ref.labels) };
    const body = split.hasFrontmatter && split.closed ? text.slice(split.bodyStart).replace(/^\n+/, '') : text;
    writeFileAtomic(real, `---\n${stringify(fm, { lineWidth: 0 })}---\n\n${bodyWithNote(body, note)}`, { root: this.repo, what: 'ticket file', durable: false });
    const out: ListedTicket = { ...ref, status: 'closed', labels: fm.labels as string[] };
    this.load().set(waymarkId, out);
    return out;
  }

  async create(draft: TicketDraft): Promise<TicketRef> {
    return this.write(ticketFileName(draft.waymarkId), draft);
  }

  async update(ref: TicketRef, draft: TicketDraft): Promise<TicketRef> {
    return this.write(ref.id, draft);
  }

  private write(name: string, d: TicketDraft): TicketRef {
    const file = path.join(this.dir, `${name}.md`);
    const real = safeWritePath(this.repo, file, 'ticket file');
    safeMkdir(this.repo, path.dirname(real));
    const status = d.open ? 'open' : 'closed';
    const fm: Record<string, unknown> = { 'waymark-id': d.waymarkId, title: d.title, status, labels: d.labels };
    if (d.parent) fm.parent = d.parent.id;
    if (d.blockedBy.length) fm.blockedBy = d.blockedBy.map((r) => r.id);
    writeFileAtomic(real, `---\n${stringify(fm, { lineWidth: 0 })}---\n\n# ${d.title}\n\n${d.body}`, { root: this.repo, what: 'ticket file', durable: false });
    const ref: TicketRef = { id: name, url: path.relative(this.repo, real).split(path.sep).join('/'), status };
    this.load().set(d.waymarkId, ref);
    return ref;
  }

  /**
   * One commit for the run's writes and for any ticket file left uncommitted by an earlier run
   * (a failed commit, a killed process); nothing when nothing changed.
   */
  async flush(message: string): Promise<void> {
    if (!fs.existsSync(this.dir)) return;
    const rel = path.relative(this.repo, this.dir) || '.';
    // Nothing uncommitted in the ticket folder: nothing to do (a lock someone else holds on the
    // index is no failure of a run that has nothing to commit).
    const status = await runGit(this.repo, ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=all', '--', rel]);
    if (status.code === 0 && status.stdout.trim() === '') return;
    const add = await runGit(this.repo, ['add', '--', rel]);
    if (add.code !== 0) throw new WaymarkError('io', `git commit in ${this.repo} failed at git add: ${add.stderr.trim()}`, this.repo);
    const staged = await runGit(this.repo, ['diff', '--cached', '--quiet', '--', rel]);
    if (staged.code === 0) return;
    const who = await runGit(this.repo, ['config', 'user.email']);
    const ident = who.stdout.trim() ? [] : ['-c', 'user.name=Waymark', '-c', 'user.email=waymark@localhost'];
    const commit = await runGit(this.repo, [...ident, 'commit', '-q', '--no-verify', '-m', message, '--', rel]);
    if (commit.code !== 0) throw new WaymarkError('io', `git commit in ${this.repo} failed: ${commit.stderr.trim() || commit.stdout.trim()}`, this.repo);
  }
}
