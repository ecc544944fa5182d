import * as path from 'node:path';
import type { Problem } from '../types';
import { CONFIG_FILE, parseConfigText, type WaymarkConfig } from '../model/config';
import { loadDefinitions, type WorkflowDefinition } from '../model/definitions';
import { loadBmadCatalogForRoot, type BmadCatalog } from '../bmad/artifacts';
import type { FrontmatterLimits } from '../model/frontmatter';
import { readRegularFile } from './safeRead';
import { MAX_CONFIG_BYTES } from './configFile';


/** Everything parsing needs to know about one workspace folder. Plain data; built once per scan. */
export interface WorkspaceContext {
  /** Absolute workspace folder. */
  root: string;
  config: WaymarkConfig;
  /** Absolute path of `.waymark/config.yaml` (may not exist). */
  configFile: string;
  /** Native workflow definitions by id. */
  definitions: Map<string, WorkflowDefinition>;
  /** Installed BMAD workflows. */
  bmad: BmadCatalog;
  limits: FrontmatterLimits;
  include: RegExp[];
  exclude: RegExp[];
  /** Clock for ttl and waiver expiry (tests pin it). */
  now: () => Date;
}

/**
 * Loads a root's config (`.waymark/config.yaml`, zod-validated; unknown keys warned, never
 * dropped; bad values reported and replaced by defaults), its workflow definitions and its
 * BMAD catalog (with `cache`, kept across processes in `.waymark/cache/bmad-catalog.bin` while
 * every input it read is unchanged). Never throws for bad content; problems come back alongside.
 */
export async function loadWorkspaceContext(
  root: string,
  overrides?: Record<string, unknown>,
  opts?: { now?: () => Date; cache?: boolean },
): Promise<{ context: WorkspaceContext; problems: Problem[] }> {
  const absRoot = path.resolve(root);
  const configFile = path.join(absRoot, CONFIG_FILE);
  let text: string | undefined;
  const problems: Problem[] = [];
  try {
    text = await readRegularFile(configFile, MAX_CONFIG_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      const why = code === 'ENOTREG' ? 'it is not a regular file (a folder, pipe or device); make it a YAML file' : code === 'EFBIG' ? `it is larger than ${MAX_CONFIG_BYTES} bytes` : (e as Error).message;
      problems.push({ file: configFile, range: zeroRange(), severity: 'error', code: 'config-unreadable', message: `Cannot read ${CONFIG_FILE}: ${why}. Defaults are used.` });
    }
  }
  const parsed = parseConfigText(configFile, text, overrides);
  problems.push(...parsed.problems);
  const config = parsed.config;
  const defs = await loadDefinitions(path.resolve(absRoot, config.workflowsDir));
  problems.push(...defs.problems);
  const bmad = config.dialects.includes('bmad') ? await loadBmadCatalogForRoot(absRoot, config.bmad.dir, { cache: opts?.cache }) : { byName: new Map(), workflows: [] };
  const context: WorkspaceContext = {
    root: absRoot,
    config,
    configFile,
    definitions: defs.definitions,
    bmad,
    limits: { maxAliasCount: config.limits.maxAliasCount, maxNodes: config.limits.maxNodes },
    include: config.include.map(globToRegExp),
    exclude: config.exclude.map(globToRegExp),
    now: opts?.now ?? (() => new Date()),
  };
  return { context, problems };
}

/** A context with defaults and no definitions, for parsing text outside any workspace. */
export function defaultWorkspaceContext(root: string): WorkspaceContext {
  const { config } = parseConfigText(path.join(root, CONFIG_FILE), undefined);
  return {
    root: path.resolve(root), config, configFile: path.join(root, CONFIG_FILE), definitions: new Map(), bmad: { byName: new Map(), workflows: [] },
    limits: { maxAliasCount: config.limits.maxAliasCount, maxNodes: config.limits.maxNodes },
    include: config.include.map(globToRegExp), exclude: config.exclude.map(globToRegExp), now: () => new Date(),
  };
}

/**
 * Glob → RegExp over `/`-separated relative paths: `**` any depth (a `**\/` prefix also matches
 * zero folders), `*` and `?` within one segment, `{a,b}` alternatives, `[abc]` classes.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let i = 0;
  let inGroup = 0;
  const g = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  while (i < g.length) {
    const c = g[i];
    if (c === '*') {
      if (g[i + 1] === '*') {
        const atSegStart = i === 0 || g[i - 1] === '/';
        if (g[i + 2] === '/' && atSegStart) {
          re += '(?:.*/)?';
          i += 3;
          continue;
        }
        re += '.*';
        i += 2;
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      re += '(?:';
      inGroup++;
    } else if (c === '}' && inGroup) {
      re += ')';
      inGroup--;
    } else if (c === ',' && inGroup) re += '|';
    else if (c === '[') {
      const end = g.indexOf(']', i + 1);
      if (end === -1) re += '\\[';
      else {
        re += '[' + g.slice(i + 1, end).replace(/\\/g, '\\\\').replace(/^!/, '^') + ']';
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
    i++;
  }
  return new RegExp(`^${re}$`);
}

function zeroRange() {
  return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
}
