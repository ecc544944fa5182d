import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand, CliContext } from './framework';
import { flagString, requirePositional } from './framework';
import { WaymarkError, errorMessage, assertInsideWorkspace, checkStagedChanges, readCurrentText, runGit, repoTop, writeFileAtomic, type StagedFileReport } from '../core/index';
import { HOOK_ADAPTERS } from '../hooks/adapters';
import { runHook } from '../hooks/run';
import { HookInputError, type HookAdapter, type HookOutput } from '../hooks/port';
import { installHooks, uninstallHooks, SettingsError } from '../hooks/install';
import { workspaceRootOf } from '../hooks/quickCheck';
import { hookStdinDeadlineMs, readStdinText, stdinIsTerminal } from './stdin';

let handedInput: string | undefined;

/** The launcher already read stdin on its fast path: it hands the text over here. */
export function provideHookInput(text: string): void {
  handedInput = text;
}

async function readHookInput(failClosed: boolean): Promise<string> {
  if (handedInput !== undefined) return handedInput;
  if (stdinIsTerminal()) throw new HookInputError('expects the agent\'s hook event as JSON on stdin (it is run by the agent, not by hand).');
  try {
    return await readStdinText(failClosed ? hookStdinDeadlineMs() : undefined);
  } catch (e) {
    throw new HookInputError(`cannot read the hook input (${errorMessage(e)}). The event was not checked.`);
  }
}

function emit(ctx: CliContext, out: HookOutput): number {
  if (out.stdout) ctx.stdout(out.stdout);
  if (out.stderr) ctx.stderr(out.stderr);
  return out.exitCode;
}

const RUN_HELP = (a: HookAdapter) => `Reads one ${a.name} hook event (JSON) on stdin and answers in ${a.name}'s hook protocol.
Install it with waymark hook install ${a.name}; it handles ${a.install.events.map((e) => e.event).join(', ')}.

Edits of workflow files, BMAD stories and sprint-status.yaml are judged before they land by the
rules of a Waymark mutation (status machine, no rewinding completed steps, gates, leases, valid
frontmatter) and refused with a reason naming the command that does it right. Allowed edits of
state are recorded in history and the events log afterwards, with the agent's session id.
Edits of other files pass untouched, without loading the core.

Options:
  --fail-closed   refuse a change when the check itself fails (default: fail open, the agent's
                  work is never blocked by a Waymark error; the error is shown as a warning)

Exit codes follow ${a.name}'s protocol${a.name === 'claude-code' ? ': 0 go ahead (JSON on stdout when there is something to say), 2 refused (reason on stderr), 1 the hook could not check the event (not a block)' : ': 0 with a JSON decision on stdout, 1 the hook could not check the event (a warning, not a block)'}.`;

function runCommand(a: HookAdapter): CliCommand {
  return {
    name: `hook ${a.name}`,
    usage: `hook ${a.name} [--fail-closed]`,
    summary: `Answer one ${a.name} hook event from stdin: refuse edits that break workflow rules, record the ones that land.`,
    help: RUN_HELP(a),
    options: [],
    booleanFlags: ['fail-closed'],
    async run(ctx) {
      if (ctx.args.positionals.length) throw new WaymarkError('usage', `hook ${a.name} takes no arguments (the event comes on stdin).`);
      let text: string;
      try {
        text = await readHookInput(ctx.args.flags['fail-closed'] === true);
      } catch (e) {
        return emit(ctx, a.renderFailure(errorMessage(e), undefined, ctx.args.flags['fail-closed'] === true));
      }
      return emit(ctx, await runHook(a, text, process.env, ctx.args.flags['fail-closed'] === true));
    },
  };
}

function adapterOf(name: string): HookAdapter {
  const a = HOOK_ADAPTERS.get(name);
  if (!a) throw new WaymarkError('usage', `unknown agent '${name}'; choose one of ${[...HOOK_ADAPTERS.keys()].join(', ')} or git.`);
  return a;
}

function projectRoot(ctx: CliContext): string {
  const dir = flagString(ctx.args, 'project');
  return dir ? path.resolve(ctx.cwd, dir) : workspaceRootOf({ agent: '', event: '', cwd: ctx.cwd });
}

const GIT_MARK = '# waymark pre-commit hook';
const AGENTS = [...HOOK_ADAPTERS.keys()].join('|');

/**
 * The repository's pre-commit hook file. It must lie in the repository's folder or its git
 * folder (by real path): a core.hooksPath shared elsewhere on the machine is not Waymark's to write.
 */
async function gitHookPath(cwd: string, name = 'pre-commit'): Promise<string> {
  const top = await repoTop(cwd);
  const r = await runGit(top, ['rev-parse', '--git-path', `hooks/${name}`, '--git-common-dir']);
  if (r.code !== 0) throw new WaymarkError('io', `git rev-parse --git-path failed: ${r.stderr.trim()}`);
  const [hookRel, commonRel] = r.stdout.trim().split('\n');
  const hook = path.resolve(top, hookRel);
  const inside = (dir: string) => {
    try {
      assertInsideWorkspace(dir, hook);
      return true;
    } catch {
      return false;
    }
  };
  if (!inside(top) && !inside(path.resolve(top, commonRel))) {
    throw new WaymarkError('usage', `the pre-commit hook of this repository is ${hook}, outside it (core.hooksPath?); Waymark does not write there. Add the line 'waymark hook git pre-commit || exit 1' to that hook yourself.`, hook);
  }
  return hook;
}

const installCmd: CliCommand = {
  name: 'hook install',
  usage: `hook install ${AGENTS}|git [--command CMD] [--project DIR]`,
  options: ['command', 'project'],
  summary: "Write Waymark's hook entries into the agent's project settings (or the git pre-commit hook).",
  help: `Adds one entry per event to the agent's hook file:
${[...HOOK_ADAPTERS.values()].map((a) => `  ${a.name.padEnd(12)}${a.install.settingsFile}: ${a.install.events.map((e) => e.event).join(', ')}`).join('\n')}
The file is edited as text: other hooks and keys stay byte for byte; running it again changes
nothing. git: writes the repository's pre-commit hook (refused when one exists that is not
Waymark's: add the line 'waymark hook git pre-commit' to it) and its pre-merge-commit hook, the
same check for the merge commits git merge and git pull make (one that is not Waymark's is left
as it is, with a warning).

Options:
  --command CMD   how the agent starts waymark (default: waymark; e.g. "node /path/to/dist/cli.js")
  --project DIR   the project folder (default: the workspace holding the current folder)

Exit codes: 0 installed (or unchanged); 1 the settings file is not valid JSON (nothing written);
2 usage, or not a git repository; 3 a pre-commit hook that is not Waymark's is in the way.`,
  async run(ctx) {
    const target = requirePositional(ctx.args, 0, `the agent (${[...HOOK_ADAPTERS.keys()].join(', ')}) or git`);
    const launcher = launcherFlag(ctx) ?? 'waymark';
    if (target === 'git') {
      const hook = await gitHookPath(ctx.cwd);
      const existing = readCurrentText(hook);
      if (existing !== undefined && !existing.includes(GIT_MARK)) {
        throw new WaymarkError('conflict', `${hook} already exists and is not Waymark's; add the line '${launcher} hook git pre-commit || exit 1' to it yourself. Nothing was changed.`, hook);
      }
      const script = `#!/bin/sh\n${GIT_MARK}: refuses commits whose staged workflow state breaks the rules.\n# Skip it once with git commit --no-verify. Remove it with waymark hook uninstall git.\nexec ${launcher} hook git pre-commit\n`;
      // A merge commit git makes by itself (git merge, git pull) runs pre-merge-commit, not pre-commit:
      // the same check, so a branch's gate verdicts and state arrive as a commit of them would.
      const merge = await gitHookPath(ctx.cwd, 'pre-merge-commit');
      const mergeExisting = readCurrentText(merge);
      const mergeScript = `#!/bin/sh\n${GIT_MARK} (merges): refuses merge commits whose workflow state breaks the rules.\n# Skip it once with git merge --no-verify. Remove it with waymark hook uninstall git.\nexec ${launcher} hook git pre-commit\n`;
      fs.mkdirSync(path.dirname(hook), { recursive: true });
      writeFileAtomic(hook, script, { mode: 0o755 });
      fs.chmodSync(hook, 0o755);
      ctx.stdout(`${existing === script ? 'unchanged' : 'installed'}: ${hook}\n`);
      if (mergeExisting !== undefined && !mergeExisting.includes(GIT_MARK)) {
        ctx.stderr(`waymark: ${merge} already exists and is not Waymark's; add the line '${launcher} hook git pre-commit || exit 1' to it so merges are checked too.\n`);
        return 0;
      }
      writeFileAtomic(merge, mergeScript, { mode: 0o755 });
      fs.chmodSync(merge, 0o755);
      ctx.stdout(`${mergeExisting === mergeScript ? 'unchanged' : 'installed'}: ${merge}\n`);
      return 0;
    }
    const { a, file, next } = editSettings(ctx, target, (before, a, file) => installHooks(before, a, `${launcher} hook ${a.name}`, file));
    if (next.changed) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      writeFileAtomic(file, next.text);
    }
    ctx.stdout(`${next.changed ? 'installed' : 'unchanged'}: ${a.install.events.map((e) => e.event).join(', ')} hooks in ${path.relative(ctx.cwd, file) || file}\n`);
    return 0;
  },
};

/**
 * The agent's settings file in the project (checked to be inside the workspace) and what `edit`
 * makes of its current text; a file that is not valid JSON is an `invalid` error naming it.
 */
function editSettings<T>(ctx: CliContext, target: string, edit: (before: string | undefined, a: HookAdapter, file: string) => T): { a: HookAdapter; file: string; next: T } {
  const a = adapterOf(target);
  const root = projectRoot(ctx);
  const file = path.join(root, a.install.settingsFile);
  assertInsideWorkspace(root, file);
  try {
    return { a, file, next: edit(readCurrentText(file), a, file) };
  } catch (e) {
    if (e instanceof SettingsError) throw new WaymarkError('invalid', e.message, file);
    throw e;
  }
}

const uninstallCmd: CliCommand = {
  name: 'hook uninstall',
  usage: `hook uninstall ${AGENTS}|git [--command CMD] [--project DIR]`,
  options: ['command', 'project'],
  summary: "Remove exactly Waymark's hook entries (or its git pre-commit hook); everything else stays.",
  help: `Removes the entries whose command is exactly Waymark's hook for that agent (a waymark launcher,
then hook <agent>); other commands, even ones that mention waymark, stay. A file install created
and that holds nothing else is removed; otherwise the file is left byte for byte as it was before.

Options:
  --command CMD   the launcher given to install, when it was not waymark (e.g. "node /path/to/dist/cli.js")
  --project DIR   the project folder (default: the workspace holding the current folder)

Exit codes: 0 removed (or nothing to remove); 1 the settings file is not valid JSON (nothing
written); 2 usage; 3 the pre-commit hook is not Waymark's (left as it is).`,
  async run(ctx) {
    const target = requirePositional(ctx.args, 0, `the agent (${[...HOOK_ADAPTERS.keys()].join(', ')}) or git`);
    if (target === 'git') {
      const hook = await gitHookPath(ctx.cwd);
      const existing = readCurrentText(hook);
      if (existing === undefined) {
        ctx.stdout('nothing to remove: no pre-commit hook\n');
        return 0;
      }
      if (!existing.includes(GIT_MARK)) throw new WaymarkError('conflict', `${hook} is not Waymark's pre-commit hook; remove the waymark line from it by hand. Nothing was changed.`, hook);
      fs.rmSync(hook);
      ctx.stdout(`removed: ${hook}\n`);
      const merge = await gitHookPath(ctx.cwd, 'pre-merge-commit');
      if (readCurrentText(merge)?.includes(GIT_MARK)) {
        fs.rmSync(merge);
        ctx.stdout(`removed: ${merge}\n`);
      }
      return 0;
    }
    const launcher = launcherFlag(ctx);
    const { file, next } = editSettings(ctx, target, (before, a, f) => uninstallHooks(before, a, f, launcher));
    if (next.removed && next.text !== undefined) writeFileAtomic(file, next.text);
    // The file held only Waymark's entries (install created it): it goes, as it was before.
    else if (next.removed) fs.rmSync(file);
    ctx.stdout(next.removed ? `removed ${next.removed} waymark hook entr${next.removed === 1 ? 'y' : 'ies'} from ${path.relative(ctx.cwd, file) || file}\n` : `nothing to remove in ${path.relative(ctx.cwd, file) || file}\n`);
    return 0;
  },
};

function printReports(ctx: CliContext, reports: StagedFileReport[], label: string): void {
  for (const r of reports) {
    for (const p of r.problems) ctx.stderr(`${r.rel}${p.line ? `:${p.line}` : ''}: ${label} ${p.code}: ${p.message}${p.fix ? `\n  fix: ${p.fix}` : ''}\n`);
  }
}

const preCommitCmd: CliCommand = {
  name: 'hook git pre-commit',
  usage: 'hook git pre-commit',
  options: [],
  summary: 'Refuse a commit whose staged workflow files, stories or sprint ledger break the state rules.',
  help: `Judges the staged version of each changed state file (git show :PATH) against the committed one
(HEAD:PATH) with the rules of a Waymark mutation; history files must only grow. Installed by
waymark hook install git. To commit anyway, once: git commit --no-verify.

Exit codes: 0 the commit may go ahead; 1 refused (each problem on stderr with its fix); 2 not a
git repository or git missing.`,
  async run(ctx) {
    const r = await checkStagedChanges(ctx.cwd);
    if (ctx.json) ctx.stdout(JSON.stringify(r) + '\n');
    printReports(ctx, r.warnings, 'warning');
    if (!r.refused.length) return 0;
    printReports(ctx, r.refused, 'error');
    const n = r.refused.reduce((s, x) => s + x.problems.length, 0);
    ctx.stderr(`waymark: commit refused: ${n} problem${n > 1 ? 's' : ''} in ${r.refused.length} staged state file${r.refused.length > 1 ? 's' : ''}. Fix them (the waymark commands above do it right), or skip this check once with git commit --no-verify.\n`);
    return 1;
  },
};

/** `waymark hook ...`: the agent hooks, their install, and the git pre-commit check. */
/**
 * `--command`: the launcher the hooks run, one line of text. A line break or another control
 * character would end the command early in a git hook script or an agent's settings: refused.
 */
function launcherFlag(ctx: CliContext): string | undefined {
  const v = flagString(ctx.args, 'command');
  if (v !== undefined && (!v.trim() || /[\u0000-\u001f\u007f]/.test(v))) throw new WaymarkError('usage', `--command needs the launcher on one line (e.g. --command "npx waymark"); got ${JSON.stringify(v)}. Nothing was changed.`);
  return v;
}

export const hookCommands: CliCommand[] = [...[...HOOK_ADAPTERS.values()].map(runCommand), installCmd, uninstallCmd, preCommitCmd];
