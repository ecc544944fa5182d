/**
 * GitHub Issues over the REST API v3 (Node 20's global fetch). The token comes from the caller
 * (the CLI: GITHUB_TOKEN / WAYMARK_GITHUB_TOKEN; the extension: vscode.authentication) and is
 * never written to a file. Issues are found again by the `waymark-id:` line of their body,
 * from one paginated listing of the `waymark` label (Link: rel="next"), not from the search
 * index, which lags behind a create. A parent is a sub-issue link; a prerequisite an issue
 * dependency (POST …/issues/{n}/dependencies/blocked_by with the blocker's issue id), or, where
 * the endpoint answers 404/410 (an older GitHub Enterprise Server), the body's `Blocked by:` line
 * for the rest of the run; a 422 for one link puts that ticket's line in its body. Rate limits (403/429 with x-ratelimit-remaining: 0 or
 * retry-after) become a TicketError carrying the wait, which opens the breaker until then; a
 * 422 is a validation error (not retried); 5xx and network errors are retried and counted.
 */
import type { ListedTicket, StoreCapabilities, TrackerCall, TicketDraft, TicketRef, TicketStore } from '../port';
import { TicketError, bodyWithNote, removedLabels, sourceOf, waymarkIdOf } from '../port';

export interface GitHubStoreOptions {
  name: string;
  owner: string;
  repo: string;
  token: string;
  /** API root; default https://api.github.com (GitHub Enterprise: https://HOST/api/v3). */
  apiUrl?: string;
  /** Clock for rate-limit resets (tests pin it). */
  now?: () => number;
}

interface Issue {
  /** The issue's numeric id (not its number): what the sub-issue API takes. */
  id: number;
  number: number;
  html_url: string;
  state: string;
  body?: string | null;
  labels?: (string | { name?: string })[];
  pull_request?: unknown;
}

const API_VERSION = '2022-11-28';

export class GitHubIssueStore implements TicketStore {
  readonly name: string;
  /** The parent is a sub-issue link (POST …/issues/{parent}/sub_issues); blocked-by an issue dependency. */
  readonly capabilities: StoreCapabilities = { parent: true, blockedBy: true, labels: true };
  /** False once the dependencies endpoint answered 404/410: the body line from then on. */
  private nativeBlockedBy = true;
  private readonly base: string;
  private readonly now: () => number;
  private index: Map<string, ListedTicket> | undefined;
  /** Issue number → its numeric id (what the sub-issue and dependency APIs take). */
  private readonly idOf = new Map<string, number>();

  constructor(private readonly options: GitHubStoreOptions) {
    this.name = options.name;
    this.base = (options.apiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
    this.now = options.now ?? Date.now;
  }

  private async request(method: string, url: string, body: unknown, signal?: AbortSignal): Promise<{ json: unknown; headers: Headers }> {
    let res: Response;
    try {
      res = await fetch(url.startsWith('http') ? url : `${this.base}${url}`, {
        method,
        signal,
        headers: {
          Accept: 'application/vnd.github+json',
          Authorization: `Bearer ${this.options.token}`,
          'X-GitHub-Api-Version': API_VERSION,
          'User-Agent': 'waymark',
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (e) {
      throw new TicketError(`GitHub ${method} ${url}: ${e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e)}`, true);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.ok) return { json, headers: res.headers };
    const message = (json as { message?: string } | undefined)?.message ?? (text.slice(0, 200) || res.statusText);
    const wait = this.rateLimitWait(res);
    if (wait !== undefined) throw new TicketError(`GitHub rate limit reached (${res.status}: ${message}); waiting ${Math.ceil(wait / 1000)} s before the next call.`, true, wait, res.status);
    if (res.status === 422) {
      const errors = ((json as { errors?: { field?: string; code?: string; message?: string }[] } | undefined)?.errors ?? []).map((e) => e.message ?? `${e.field ?? '?'} ${e.code ?? 'invalid'}`);
      throw new TicketError(`GitHub refused the issue (422 ${message}${errors.length ? `: ${errors.join('; ')}` : ''}); fix the workflow file's title/labels and re-run.`, false, undefined, 422);
    }
    if (res.status >= 500) throw new TicketError(`GitHub ${method} ${url} failed with ${res.status} ${message}`, true, undefined, res.status);
    if (res.status === 401) throw new TicketError('GitHub rejected the token (401 Bad credentials); set a valid GITHUB_TOKEN (repo scope) and re-run.', false, undefined, 401);
    if (res.status === 404) throw new TicketError(`GitHub has no repository ${this.options.owner}/${this.options.repo} the token can see (404); check tracker.owner/repo and the token's access.`, false, undefined, 404);
    throw new TicketError(`GitHub ${method} ${url} failed with ${res.status} ${message}`, false, undefined, res.status);
  }

  /** Milliseconds to wait when the response says the rate limit is spent; undefined otherwise. */
  private rateLimitWait(res: Response): number | undefined {
    if (res.status !== 403 && res.status !== 429) return undefined;
    const after = res.headers.get('retry-after');
    if (after && Number.isFinite(Number(after))) return Math.max(1000, Number(after) * 1000);
    if (res.headers.get('x-ratelimit-remaining') === '0') {
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      return Number.isFinite(reset) ? Math.max(1000, reset * 1000 - this.now()) : 60_000;
    }
    return res.status === 429 ? 60_000 : undefined;
  }

  private path(suffix = ''): string {
    return `/repos/${encodeURIComponent(this.options.owner)}/${encodeURIComponent(this.options.repo)}/issues${suffix}`;
  }

  private ref(i: Issue): TicketRef {
    if (typeof i.id === 'number') this.idOf.set(String(i.number), i.id);
    return { id: String(i.number), url: i.html_url, status: i.state };
  }

  private listed(i: Issue): ListedTicket {
    const labels = (i.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)).filter((l): l is string => typeof l === 'string');
    return { ...this.ref(i), source: sourceOf(i.body), labels, body: i.body ?? '' };
  }

  /** Every issue labelled `waymark` (open and closed), page by page along the Link header. */
  private async load(signal?: AbortSignal, call?: TrackerCall): Promise<Map<string, ListedTicket>> {
    if (this.index) return this.index;
    const index = new Map<string, ListedTicket>();
    let url: string | undefined = `${this.path()}?state=all&labels=waymark&per_page=100`;
    for (let pages = 0; url && pages < 1000; pages++) {
      const page: string = url;
      const { json, headers } = call ? await call((s) => this.request('GET', page, undefined, s)) : await this.request('GET', page, undefined, signal);
      for (const i of (Array.isArray(json) ? json : []) as Issue[]) {
        if (i.pull_request) continue;
        const id = waymarkIdOf(i.body);
        if (id && !index.has(id)) index.set(id, this.listed(i));
      }
      url = nextLink(headers.get('link'));
      // The token goes to the API's own origin only, whatever a Link header says.
      if (url && new URL(url).origin !== new URL(this.base).origin) throw new TicketError(`GitHub's Link header points to another origin (${new URL(url).origin}); not followed.`, false);
    }
    this.index = index;
    return index;
  }

  async find(waymarkId: string, signal?: AbortSignal): Promise<TicketRef | undefined> {
    const t = (await this.load(signal)).get(waymarkId);
    return t && { id: t.id, url: t.url, status: t.status };
  }

  /** The `waymark` label's listing, read again (issues may have been deleted since). */
  async list(call?: TrackerCall): Promise<Map<string, ListedTicket>> {
    this.index = undefined;
    return new Map(await this.load(undefined, call));
  }

  /**
   * One PATCH: state closed (`not_planned`), `status:removed` in place of the status label, the
   * note in the body above the id line. A closed issue is not touched.
   */
  async close(ref: ListedTicket, waymarkId: string, note: string, signal?: AbortSignal): Promise<TicketRef> {
    if (ref.status === 'closed') return ref;
    const body = ref.body;
    const patch: Record<string, unknown> = { state: 'closed', state_reason: 'not_planned', labels: removedLabels(ref.labels) };
    if (typeof body === 'string' && waymarkIdOf(body) === waymarkId) patch.body = bodyWithNote(body, note);
    const { json } = await this.request('PATCH', this.path(`/${ref.id}`), patch, signal);
    const out = this.ref(json as Issue);
    this.index?.set(waymarkId, { ...ref, ...out, labels: patch.labels as string[] });
    return out;
  }

  async create(d: TicketDraft, signal?: AbortSignal): Promise<TicketRef> {
    const { json } = await this.request('POST', this.path(), { title: d.title, body: this.bodyOf(d), labels: d.labels }, signal);
    let ref = this.ref(json as Issue);
    // An issue is created open: closing it is a second call.
    if (!d.open) ref = this.ref((await this.request('PATCH', this.path(`/${ref.id}`), { state: 'closed' }, signal)).json as Issue);
    await this.linkParent(json as Issue, d, signal);
    await this.linkBlockedBy(ref.id, d, true, signal);
    this.index?.set(d.waymarkId, ref);
    return ref;
  }

  /**
   * Makes the issue a sub-issue of its parent (`replace_parent`: a ticket whose parent changed
   * moves). A 422 here (already that parent's sub-issue, or a link GitHub will not make) leaves
   * the issue as it is: the link is not worth failing the ticket for.
   */
  private async linkParent(issue: Issue, d: TicketDraft, signal?: AbortSignal): Promise<void> {
    if (!d.parent || !/^\d+$/.test(d.parent.id) || typeof issue.id !== 'number') return;
    try {
      await this.request('POST', this.path(`/${d.parent.id}/sub_issues`), { sub_issue_id: issue.id, replace_parent: true }, signal);
    } catch (e) {
      if (!(TicketError.is(e) && e.status === 422)) throw e;
    }
  }

  /** The body to send: with the `Blocked by:` line once the dependencies endpoint is known absent. */
  private bodyOf(d: TicketDraft): string {
    return this.nativeBlockedBy ? d.body : d.bodyWithBlockedBy ?? d.body;
  }

  /** The numeric id of issue `number` (from the listing or an answer; else one GET). */
  private async issueId(number: string, signal?: AbortSignal): Promise<number | undefined> {
    const known = this.idOf.get(number);
    if (known !== undefined) return known;
    const { json } = await this.request('GET', this.path(`/${number}`), undefined, signal);
    this.ref(json as Issue);
    return this.idOf.get(number);
  }

  /**
   * Makes the issue's blocked-by dependencies those of the draft: adds the missing ones, removes
   * those on Waymark tickets no longer prerequisites (a dependency someone added by hand on
   * another issue is left). A new issue has none to read. Where the endpoint answers 404/410,
   * the body gets its `Blocked by:` line instead (and every later ticket of the run); a 422
   * (a link GitHub will not make) does the same for this ticket alone.
   */
  private async linkBlockedBy(number: string, d: TicketDraft, created: boolean, signal?: AbortSignal): Promise<void> {
    if (!this.nativeBlockedBy) return;
    const want = new Set(d.blockedBy.filter((r) => /^\d+$/.test(r.id)).map((r) => r.id));
    if (created && !want.size) return;
    const deps = `/${number}/dependencies/blocked_by`;
    try {
      const have = new Map<string, Issue>();
      if (!created) {
        const { json } = await this.request('GET', this.path(`${deps}?per_page=100`), undefined, signal);
        for (const i of (Array.isArray(json) ? json : []) as Issue[]) {
          have.set(String(i.number), i);
          this.ref(i);
        }
      }
      for (const n of want) {
        if (have.has(n)) continue;
        const id = await this.issueId(n, signal);
        if (id !== undefined) await this.request('POST', this.path(deps), { issue_id: id }, signal);
      }
      for (const [n, i] of have) {
        if (!want.has(n) && waymarkIdOf(i.body) !== undefined && typeof i.id === 'number') await this.request('DELETE', this.path(`${deps}/${i.id}`), undefined, signal);
      }
    } catch (e) {
      if (!(TicketError.is(e) && (e.status === 404 || e.status === 410 || e.status === 422))) throw e;
      if (e.status !== 422) this.nativeBlockedBy = false;
      if (d.bodyWithBlockedBy && d.bodyWithBlockedBy !== d.body) await this.request('PATCH', this.path(`/${number}`), { body: d.bodyWithBlockedBy }, signal);
    }
  }

  async update(ref: TicketRef, d: TicketDraft, signal?: AbortSignal): Promise<TicketRef> {
    const { json } = await this.request('PATCH', this.path(`/${ref.id}`), { title: d.title, body: this.bodyOf(d), labels: d.labels, state: d.open ? 'open' : 'closed' }, signal);
    const out = this.ref(json as Issue);
    await this.linkParent(json as Issue, d, signal);
    await this.linkBlockedBy(out.id, d, false, signal);
    this.index?.set(d.waymarkId, out);
    return out;
  }
}

/** The rel="next" URL of a Link header. */
export function nextLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (m) return m[1];
  }
  return undefined;
}
