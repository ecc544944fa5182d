import * as fs from 'node:fs';
import * as path from 'node:path';
import { WaymarkError, createStateCore, findWorkspaceRoot, notFileSystemRoot, type StateCore, type StateCoreOptions } from '../core/index';
import { flagString, type CliContext } from './framework';

/**
 * The workspace folder a verb works in: `--root DIR` when given; else a folder target itself;
 * else the nearest folder above the target (or the current folder) holding `.waymark`, `_bmad`,
 * `_bmad-output` or `.git`; else the current folder.
 */
export function rootArg(ctx: CliContext, target?: string): string {
  const given = flagString(ctx.args, 'root');
  if (given) {
    const abs = path.resolve(ctx.cwd, given);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new WaymarkError('usage', `--root ${given} is not a folder.`);
    return abs;
  }
  if (target) {
    const abs = path.resolve(ctx.cwd, target);
    try {
      if (fs.statSync(abs).isDirectory()) return abs;
    } catch {
      // a file that does not exist (any more): its folder's root
    }
    return notFileSystemRoot(findWorkspaceRoot(abs, ctx.cwd));
  }
  return notFileSystemRoot(findWorkspaceRoot(path.join(ctx.cwd, '.waymark-probe'), ctx.cwd));
}

/**
 * Runs `fn` with the one core over `root` (leases honoured, writes evented, memory on with
 * origin `cli`), and closes it — and any memory database it opened — whatever happens.
 */
export async function withCore<T>(ctx: CliContext, root: string, fn: (core: StateCore) => Promise<T>, options: Partial<StateCoreOptions> = {}): Promise<T> {
  const core = createStateCore({
    roots: [root],
    actor: flagString(ctx.args, 'actor') ?? process.env.WAYMARK_ACTOR,
    session: flagString(ctx.args, 'session') ?? process.env.WAYMARK_SESSION,
    origin: 'cli',
    ...options,
  });
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}
