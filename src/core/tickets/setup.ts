/**
 * From the `tracker:` section of `.waymark/config.yaml` to a store: which stores there are,
 * which one is the default, and the adapter for one. A git store's repository outside the
 * workspace folder (by real path: a symbolic link inside the folder is followed) is used only
 * when the user allows that folder outside the cloned repository (`WAYMARK_TICKETS_ALLOW_OUTSIDE`
 * or the VS Code user setting), and only when it already is a git repository: a cloned config
 * cannot make Waymark write or create folders elsewhere on the machine.
 */
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { resolveRealPath } from '../store/safePath';
import type { WaymarkConfig } from '../model/config';
import { DEFAULT_BREAKER, readBreakerStatus, type BreakerSettings } from './breaker';
import { outboxLength } from './projector';
import type { TicketStore } from './port';
import { GitTicketStore } from './stores/gitStore';
import { GitHubIssueStore } from './stores/github';

export type StoreConfig =
  | { store: 'git'; repo: string; dir: string; allowOutside: boolean }
  | { store: 'github'; owner: string; repo: string };

export interface TrackerSetup {
  stores: Map<string, StoreConfig>;
  defaultStore: string;
  autoProject: boolean;
  breaker: BreakerSettings;
}

/** The folder's tracker settings, or undefined when no tracker is configured. */
export function trackerSetup(config: WaymarkConfig): TrackerSetup | undefined {
  const t = config.tracker;
  if (!t) return undefined;
  const stores = new Map<string, StoreConfig>();
  if (t.stores) for (const [name, s] of Object.entries(t.stores)) stores.set(name, s as StoreConfig);
  if (t.store === 'git' && t.repo) stores.set('git', { store: 'git', repo: t.repo, dir: t.dir ?? 'tickets', allowOutside: t.allowOutside ?? false });
  if (t.store === 'github' && t.owner && t.repo) stores.set('github', { store: 'github', owner: t.owner, repo: t.repo });
  if (!stores.size) {
    throw new WaymarkError('usage', 'The tracker: section of .waymark/config.yaml names no usable store: write store: git with repo: PATH, or store: github with owner: and repo: (or a stores: map of those).');
  }
  for (const name of stores.keys()) {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new WaymarkError('usage', `tracker store name '${name}' may hold only letters, digits, . _ - (.waymark/config.yaml).`);
  }
  const defaultStore = t.default && stores.has(t.default) ? t.default : [...stores.keys()][0];
  return { stores, defaultStore, autoProject: t.autoProject ?? false, breaker: { ...DEFAULT_BREAKER, ...t.breaker } };
}

export interface OpenStoreOptions {
  /** GitHub token (environment or VS Code authentication); never read from or written to files. */
  token?: string;
  /** GitHub API root (GitHub Enterprise, tests); only from the environment or the caller, never from the config. */
  apiUrl?: string;
  /**
   * Folders (absolute) whose git repositories the user lets Waymark write outside the workspace:
   * from a user-level place only (`WAYMARK_TICKETS_ALLOW_OUTSIDE`, the VS Code user setting
   * `waymark.tracker.allowOutside`), never from the folder's `.waymark/config.yaml`, which a
   * cloned repository brings along. Compared by real path; a folder allows itself and what is inside it.
   */
  allowOutside?: readonly string[];
}

/** The environment variable naming the folders a ticket store may be written in outside the workspace. */
export const ALLOW_OUTSIDE_ENV = 'WAYMARK_TICKETS_ALLOW_OUTSIDE';

/** `WAYMARK_TICKETS_ALLOW_OUTSIDE`'s value as a list: absolute paths split by the platform's path delimiter. */
export function parseAllowOutside(value: string | undefined): string[] {
  return (value ?? '').split(path.delimiter).map((p) => p.trim()).filter((p) => p && path.isAbsolute(p));
}

function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel));
}

/** The adapter for one configured store. A git repository is judged by its real path. */
export async function openStore(root: string, name: string, cfg: StoreConfig, options: OpenStoreOptions = {}): Promise<TicketStore> {
  if (cfg.store === 'git') {
    const realRoot = resolveRealPath(root);
    const repo = resolveRealPath(path.resolve(root, cfg.repo));
    if (repo === realRoot) throw new WaymarkError('usage', 'tracker repo must be a separate git repository, not the workspace folder itself.', repo);
    if (!inside(realRoot, repo)) {
      const allowed = (options.allowOutside ?? []).some((a) => path.isAbsolute(a) && inside(resolveRealPath(a), repo));
      if (!allowed) {
        const via = repo === path.resolve(root, cfg.repo) ? '' : ` (tracker.repo ${cfg.repo} leads there through a symbolic link)`;
        const config = cfg.allowOutside ? ' allowOutside: true in .waymark/config.yaml is not enough: that file comes with the cloned repository.' : '';
        throw new WaymarkError('usage', `tracker repo ${repo} is outside the workspace ${realRoot}${via}; nothing was written.${config} Allow it as the user: set ${ALLOW_OUTSIDE_ENV}=${repo} in your environment (several folders separated by '${path.delimiter}'), or add it to the VS Code user setting waymark.tracker.allowOutside.`, repo);
      }
    }
    return GitTicketStore.open({ name, repo, dir: cfg.dir ?? 'tickets' });
  }
  if (!options.token) {
    throw new WaymarkError('usage', `The GitHub store '${name}' needs a token: set GITHUB_TOKEN (or WAYMARK_GITHUB_TOKEN) with the repo scope. Waymark never stores it.`);
  }
  return new GitHubIssueStore({ name, owner: cfg.owner, repo: cfg.repo, token: options.token, apiUrl: options.apiUrl });
}

/** One store's health for `waymark status`, the status bar and the dashboard. */
export interface TrackerHealth {
  store: string;
  kind: 'git' | 'github';
  isDefault: boolean;
  /** `closed` too when no call was made yet. */
  state: 'closed' | 'open' | 'half-open';
  failures: number;
  retryAt?: string;
  lastError?: string;
  /** Changes waiting in the outbox. */
  queued: number;
}

/** The health of every configured store of a folder (empty when no tracker is configured). */
export function trackerHealth(root: string, config: WaymarkConfig, now: Date = new Date()): TrackerHealth[] {
  let setup: TrackerSetup | undefined;
  try {
    setup = trackerSetup(config);
  } catch {
    return [];
  }
  if (!setup) return [];
  const breakers = new Map(readBreakerStatus(root, { now: () => now }).map((b) => [b.store, b]));
  return [...setup.stores].map(([name, cfg]) => {
    const b = breakers.get(name);
    return { store: name, kind: cfg.store, isDefault: name === setup!.defaultStore, state: b?.state ?? 'closed', failures: b?.failures ?? 0, retryAt: b?.retryAt, lastError: b?.lastError, queued: outboxLength(root, name) };
  });
}
