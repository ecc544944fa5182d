/**
 * Helpers of the ticket projection tests: workspaces with a tracker configured, a real ticket
 * git repository, and a fake tracker on 127.0.0.1 speaking enough of GitHub's REST API v3
 * (issue list with Link pagination, create, update) with payloads written from GitHub's
 * documented shapes — recorded payloads, not the live service.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createStateCore, openStore, runProjection, trackerSetup, type ProjectReport, type StateCore, type StoreConfig } from '../../src/core/index';
import { workspace as makeWorkspace } from './fileHelpers';

export function tmp(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** A workspace folder with files and `.waymark/config.yaml` (`config` text). */
export function workspace(files: Record<string, string>, config: string): string {
  return makeWorkspace(files, { prefix: 'wm-tickets-', config });
}

/** A fresh git repository for tickets (outside any workspace). */
export function ticketRepo(): string {
  const dir = tmp('wm-ticket-repo-');
  execFileSync('git', ['init', '-q', dir]);
  execFileSync('git', ['-C', dir, 'config', 'user.email', 'test@example.com']);
  execFileSync('git', ['-C', dir, 'config', 'user.name', 'Test']);
  return dir;
}

export function gitConfig(repo: string, extra = ''): string {
  return `tracker:\n  store: git\n  repo: ${repo}\n${extra}`;
}

/** What the user allows outside the workspace in these tests: the configured git repository (as WAYMARK_TICKETS_ALLOW_OUTSIDE would). */
export function userAllows(root: string, cfg: StoreConfig): string[] {
  return cfg.store === 'git' ? [path.resolve(root, cfg.repo)] : [];
}

/** The environment of a CLI run in these tests: ticket repositories live in the temp folder, which the user allows. */
export function allowTmpEnv(): Record<string, string> {
  return { WAYMARK_TICKETS_ALLOW_OUTSIDE: fs.realpathSync(os.tmpdir()) };
}

export function wf(id: string, status: string, extra = '', body = `# ${id}\n`): string {
  return `---\nworkflow: ${id}\nstatus: ${status}\nstepsCompleted: []\nsteps: [one, two]\n${extra}---\n${body}`;
}

/** The ticket files of a git store: waymark-id → file text. */
export function ticketFiles(repo: string, dir = 'tickets'): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const d = path.join(repo, dir);
  if (!fs.existsSync(d)) return out;
  for (const n of fs.readdirSync(d).filter((x) => x.endsWith('.md'))) {
    const text = fs.readFileSync(path.join(d, n), 'utf8');
    const id = /^waymark-id: (.+)$/m.exec(text)?.[1] ?? '?';
    (out.get(id) ?? out.set(id, []).get(id)!).push(text);
  }
  return out;
}

/** One projection run in-process through a fresh core (as the CLI does). */
export async function project(root: string, options: { dryRun?: boolean; store?: string; token?: string; apiUrl?: string } = {}): Promise<ProjectReport> {
  const core = createStateCore({ roots: [root], memory: false });
  try {
    const setup = trackerSetup((await core.contextFor(path.join(root, 'x'))).config)!;
    const name = options.store ?? setup.defaultStore;
    const store = await openStore(root, name, setup.stores.get(name)!, { token: options.token ?? 'test-token', apiUrl: options.apiUrl, allowOutside: userAllows(root, setup.stores.get(name)!) });
    return await runProjection({ core, root, store, isDefault: name === setup.defaultStore, breaker: setup.breaker, dryRun: options.dryRun });
  } finally {
    await core.close();
  }
}

export async function withCore<T>(root: string, fn: (core: StateCore) => Promise<T>): Promise<T> {
  const core = createStateCore({ roots: [root], memory: false });
  try {
    await core.scan();
    return await fn(core);
  } finally {
    await core.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The fake GitHub: payloads in the documented shape of the REST API v3 (issues).

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body?: Record<string, unknown>;
}

export interface FakeIssue {
  number: number;
  /** The parent's number (sub-issue link). */
  parent?: number;
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  /** As PATCHed (`not_planned` for a removed artifact). */
  stateReason?: string;
  /** Numbers of the issues this one is blocked by (issue dependencies). */
  blockedBy?: number[];
}

/** An issue as GitHub documents it (GET /repos/{owner}/{repo}/issues/{issue_number}). */
export function issuePayload(base: string, owner: string, repo: string, i: FakeIssue): Record<string, unknown> {
  const api = `${base}/repos/${owner}/${repo}`;
  return {
    url: `${api}/issues/${i.number}`,
    repository_url: api,
    labels_url: `${api}/issues/${i.number}/labels{/name}`,
    comments_url: `${api}/issues/${i.number}/comments`,
    events_url: `${api}/issues/${i.number}/events`,
    html_url: `https://github.com/${owner}/${repo}/issues/${i.number}`,
    id: 1_000_000 + i.number,
    node_id: `I_kwDOABCD${i.number}`,
    number: i.number,
    title: i.title,
    user: { login: 'octocat', id: 1, node_id: 'MDQ6VXNlcjE=', type: 'User', site_admin: false },
    labels: i.labels.map((name, k) => ({ id: 200 + k, node_id: `LA_${k}`, url: `${api}/labels/${encodeURIComponent(name)}`, name, color: 'f29513', default: false, description: null })),
    state: i.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: 0,
    created_at: '2026-11-23T10:00:00Z',
    updated_at: '2026-11-23T10:00:00Z',
    closed_at: i.state === 'closed' ? '2026-11-23T10:00:00Z' : null,
    author_association: 'OWNER',
    active_lock_reason: null,
    body: i.body,
    closed_by: null,
    reactions: { url: `${api}/issues/${i.number}/reactions`, total_count: 0, '+1': 0, '-1': 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 },
    timeline_url: `${api}/issues/${i.number}/timeline`,
    state_reason: i.state === 'closed' ? 'completed' : null,
  };
}

/** GitHub's documented 422 body for a create with a bad field. */
export const VALIDATION_FAILED = {
  message: 'Validation Failed',
  errors: [{ resource: 'Issue', code: 'invalid', field: 'title' }],
  documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue',
  status: '422',
};

/** GitHub's documented primary rate-limit answer (403 with x-ratelimit-remaining: 0). */
export const RATE_LIMITED = {
  message: 'API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID.',
  documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
  status: '403',
};

export interface FakeGitHub {
  url: string;
  port: number;
  issues: FakeIssue[];
  requests: Recorded[];
  /** Answers this many next requests with 502. */
  fail5xx: number;
  /** Delays every answer (ms). */
  delayMs: number;
  /** Delays only the answers to creates (POST), after the issue is made: a create whose answer is lost. */
  delayPostMs?: number;
  /** Answers the next request with a primary rate limit (reset in `rateLimitResetSec` s). */
  rateLimitNext: boolean;
  rateLimitResetSec: number;
  /** Answers the next request with a secondary rate limit (429 with retry-after, in s). */
  retryAfterNext?: number;
  /** Issues per page of the list (to exercise Link pagination). */
  perPage: number;
  /**
   * How the issue-dependencies endpoints answer: `ok`, or 404 / 410 as a GitHub Enterprise
   * Server without them does (the body-line fallback).
   */
  dependencies: 'ok' | 404 | 410;
  stop(): Promise<void>;
  /** Starts again on the same port. */
  start(): Promise<void>;
}

export async function fakeGitHub(owner = 'acme', repo = 'app', port = 0): Promise<FakeGitHub> {
  const fake: FakeGitHub = {
    url: '', port: 0, issues: [], requests: [], fail5xx: 0, delayMs: 0, rateLimitNext: false, rateLimitResetSec: 60, perPage: 2, dependencies: 'ok',
    stop: async () => undefined, start: async () => undefined,
  };
  const sockets = new Set<import('node:net').Socket>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      fake.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        const go = () => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-api-version-selected': '2022-11-28', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-resource': 'core', ...headers });
          res.end(JSON.stringify(json));
        };
        const delay = fake.delayMs || (req.method === 'POST' ? fake.delayPostMs ?? 0 : 0);
        if (delay) setTimeout(go, delay);
        else go();
      };
      if (fake.fail5xx > 0) {
        fake.fail5xx--;
        return send(502, { message: 'Server Error' });
      }
      if (fake.retryAfterNext !== undefined) {
        const after = fake.retryAfterNext;
        fake.retryAfterNext = undefined;
        return send(429, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits', status: '429' }, { 'retry-after': String(after) });
      }
      if (fake.rateLimitNext) {
        fake.rateLimitNext = false;
        return send(403, RATE_LIMITED, { 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + fake.rateLimitResetSec) });
      }
      if (req.headers.authorization !== 'Bearer test-token') return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
      const u = new URL(req.url!, fake.url);
      const prefix = `/repos/${owner}/${repo}/issues`;
      if (req.method === 'GET' && u.pathname === prefix) {
        const labels = u.searchParams.get('labels');
        const list = fake.issues.filter((i) => !labels || i.labels.includes(labels));
        const page = Number(u.searchParams.get('page') ?? '1');
        const per = Math.min(Number(u.searchParams.get('per_page') ?? '30'), fake.perPage);
        const slice = list.slice((page - 1) * per, page * per);
        const links: string[] = [];
        const pageUrl = (p: number) => { const x = new URL(u.toString()); x.searchParams.set('page', String(p)); return x.toString(); };
        if (page * per < list.length) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(Math.ceil(list.length / per))}>; rel="last"`);
        if (page > 1) links.push(`<${pageUrl(page - 1)}>; rel="prev"`, `<${pageUrl(1)}>; rel="first"`);
        return send(200, slice.map((i) => issuePayload(fake.url, owner, repo, i)), links.length ? { link: links.join(', ') } : {});
      }
      if (req.method === 'POST' && u.pathname === prefix) {
        if (typeof body?.title !== 'string' || !body.title || body.title.includes('INVALID')) return send(422, VALIDATION_FAILED);
        const i: FakeIssue = { number: fake.issues.reduce((n, x) => Math.max(n, x.number), 0) + 1, title: body.title, body: String(body.body ?? ''), labels: (body.labels as string[]) ?? [], state: 'open' };
        fake.issues.push(i);
        return send(201, issuePayload(fake.url, owner, repo, i), { location: `${fake.url}${prefix}/${i.number}` });
      }
      const sub = new RegExp(`^${prefix}/(\\d+)/sub_issues$`).exec(u.pathname);
      if (req.method === 'POST' && sub) {
        const parent = fake.issues.find((x) => x.number === Number(sub[1]));
        const child = fake.issues.find((x) => 1_000_000 + x.number === body?.sub_issue_id);
        if (!parent || !child) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/issues/sub-issues#add-sub-issue', status: '404' });
        if (child.parent === parent.number) return send(422, { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'custom', field: 'sub_issue_id', message: 'Sub issue may only have one parent' }], documentation_url: 'https://docs.github.com/rest/issues/sub-issues#add-sub-issue', status: '422' });
        if (child.parent !== undefined && body?.replace_parent !== true) return send(422, { message: 'Validation Failed', status: '422' });
        child.parent = parent.number;
        return send(201, issuePayload(fake.url, owner, repo, parent));
      }
      // Issue dependencies (docs.github.com/rest/issues/issue-dependencies): list, add, remove.
      const dep = new RegExp(`^${prefix}/(\\d+)/dependencies/blocked_by(?:/(\\d+))?$`).exec(u.pathname);
      if (dep) {
        const docs = 'https://docs.github.com/rest/issues/issue-dependencies';
        if (fake.dependencies === 404) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/enterprise-server@3.14/rest', status: '404' });
        if (fake.dependencies === 410) return send(410, { message: 'Issue dependencies are not available for this repository.', documentation_url: docs, status: '410' });
        const issue = fake.issues.find((x) => x.number === Number(dep[1]));
        if (!issue) return send(404, { message: 'Not Found', documentation_url: docs, status: '404' });
        issue.blockedBy ??= [];
        if (req.method === 'GET' && !dep[2]) return send(200, issue.blockedBy.map((n) => issuePayload(fake.url, owner, repo, fake.issues.find((x) => x.number === n)!)));
        if (req.method === 'POST' && !dep[2]) {
          const blocker = fake.issues.find((x) => 1_000_000 + x.number === body?.issue_id);
          if (!blocker) return send(404, { message: 'Not Found', documentation_url: docs, status: '404' });
          if (blocker.number === issue.number || issue.blockedBy.includes(blocker.number) || blocker.title.includes('NOLINK')) return send(422, { message: 'Validation Failed', errors: [{ resource: 'IssueDependency', code: 'custom', field: 'issue_id', message: 'Issue dependency could not be created' }], documentation_url: docs, status: '422' });
          issue.blockedBy.push(blocker.number);
          return send(201, issuePayload(fake.url, owner, repo, issue));
        }
        if (req.method === 'DELETE' && dep[2]) {
          const n = Number(dep[2]) - 1_000_000;
          if (!issue.blockedBy.includes(n)) return send(404, { message: 'Not Found', documentation_url: docs, status: '404' });
          issue.blockedBy = issue.blockedBy.filter((x) => x !== n);
          return send(200, issuePayload(fake.url, owner, repo, issue));
        }
      }
      const one = new RegExp(`^${prefix}/(\\d+)$`).exec(u.pathname);
      if (req.method === 'GET' && one) {
        const i = fake.issues.find((x) => x.number === Number(one[1]));
        return i ? send(200, issuePayload(fake.url, owner, repo, i)) : send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/issues/issues#get-an-issue', status: '404' });
      }
      const m = new RegExp(`^${prefix}/(\\d+)$`).exec(u.pathname);
      if (req.method === 'PATCH' && m) {
        const i = fake.issues.find((x) => x.number === Number(m[1]));
        if (!i) return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/issues/issues#update-an-issue', status: '404' });
        if (typeof body?.title === 'string') i.title = body.title;
        if (typeof body?.body === 'string') i.body = body.body;
        if (Array.isArray(body?.labels)) i.labels = body.labels as string[];
        if (body?.state === 'open' || body?.state === 'closed') i.state = body.state;
        if (body?.state_reason === 'completed' || body?.state_reason === 'not_planned' || body?.state_reason === 'reopened') i.stateReason = body.state_reason;
        return send(200, issuePayload(fake.url, owner, repo, i));
      }
      return send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    });
  };
  let server: http.Server | undefined;
  fake.start = () => new Promise<void>((resolve, reject) => {
    server = http.createServer(handler);
    server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
    server.once('error', reject);
    server.listen(fake.port || port, '127.0.0.1', () => {
      fake.port = (server!.address() as AddressInfo).port;
      fake.url = `http://127.0.0.1:${fake.port}`;
      resolve();
    });
  });
  fake.stop = () => new Promise<void>((resolve) => {
    if (!server) return resolve();
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
    server = undefined;
  });
  await fake.start();
  return fake;
}

export function githubConfig(extra = ''): string {
  return `tracker:\n  store: github\n  owner: acme\n  repo: app\n${extra}`;
}
