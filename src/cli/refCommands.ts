import * as path from 'node:path';
import type { CliCommand } from './framework';
import { requirePositional, flagString } from './framework';
import { reviewMarkdown } from './ciFormats';
import { rootArg } from './cliCore';
import { diffState, reviewState, WaymarkError, type StateChange, type StateFieldChange } from '../core/index';

const LABEL: Record<StateFieldChange['key'], string> = { status: 'status', stepsCompleted: 'steps', gates: 'gates', ledgerStatus: 'ledger', fileStatus: 'story file', tasks: 'tasks' };

function describeChange(c: StateChange, ref: string): string {
  const parts = c.fields.map((f) => (c.change === 'changed' ? `${LABEL[f.key]}: ${f.here ?? '-'} → ${f.there ?? '-'}` : `${LABEL[f.key]}: ${(c.change === 'added' ? f.there : f.here) ?? '-'}`));
  const why =
    c.change === 'added'
      ? `only at ${ref}: a pull adds it`
      : c.change === 'removed'
        ? `not at ${ref}: only here`
        : c.progress === 'ahead'
          ? `${ref} is ahead: a pull moves it forward`
          : c.progress === 'behind'
            ? `here is ahead of ${ref} (work not pushed or merged there)`
            : c.progress === 'diverged'
              ? 'both changed it: the merge driver decides by progress, or leaves a conflict'
              : 'same progress, different values';
  return `  ${c.change === 'added' ? '+ ' : c.change === 'removed' ? '- ' : '~ '}${c.id}  ${parts.join('; ')}\n      ${why}`;
}

export const diffStateCommand: CliCommand = {
  name: 'diff-state',
  options: ['root', 'format'],
  usage: 'diff-state REF [PATH] [--json] [--format markdown|json]',
  summary: 'The workflow state changes between the working tree and REF: what a pull would change, before pulling.',
  help: [
    'Reads the project at REF straight from git (git ls-tree, git cat-file: no checkout, the working',
    'tree is not touched) and lists, per workflow and story: status, completed steps and gate verdicts,',
    'sprint-status.yaml and story-file statuses, ticked tasks; workflows and stories only at REF (+) or',
    'only here (-); and whether REF is ahead, behind or diverged by progress. Run git fetch first to',
    'compare with a remote branch (waymark diff-state origin/main).',
    'Options:',
    '  --root DIR   the project folder (default: the folder of PATH, or the current one)',
    '  --json       {ref, commit, changes: [{id, kind, change, fields: [{key, here, there}], progress}]}',
    '  --format markdown|json',
    '               A pull request\'s view instead: the working tree against the merge base of REF and HEAD',
    '               (what the branch changed), as a short Markdown summary (workflows and stories moved,',
    '               from → to and by whom per history; steps completed; rewinds; gates opened or closed and',
    '               by which reviewer; problems introduced or fixed) or as JSON {base, baseCommit, mergeBase,',
    '               moved, gates, introduced, fixed}. One line when the branch changes nothing of state.',
    'Exit codes: 0 no state differs; 1 state differs; 2 usage, not a git repository, or an unknown ref.',
  ].join('\n'),
  async run(ctx) {
    const ref = requirePositional(ctx.args, 0, 'REF (a branch, tag or commit: origin/main)');
    const root = rootArg(ctx, ctx.args.positionals[1]);
    const format = flagString(ctx.args, 'format');
    if (format !== undefined) {
      if (format !== 'markdown' && format !== 'json') throw new WaymarkError('usage', `--format ${format} is not a format of diff-state: use markdown or json (or --json for the pull view).`);
      if (ctx.json) throw new WaymarkError('usage', `--json and --format ${format} are two different views; give one.`);
      const r = await reviewState(root, ref);
      ctx.stdout(format === 'json' ? JSON.stringify(r) + '\n' : reviewMarkdown(r));
      return r.moved.length || r.gates.length || r.introduced.length || r.fixed.length ? 1 : 0;
    }
    const d = await diffState(root, ref);
    if (ctx.json) {
      ctx.stdout(JSON.stringify({ root, ...d }) + '\n');
      return d.changes.length ? 1 : 0;
    }
    const where = path.relative(ctx.cwd, root) || '.';
    if (!d.changes.length) {
      ctx.stdout(`No workflow state differs between the working tree (${where}) and ${ref} (${d.commit.slice(0, 8)}).\n`);
      return 0;
    }
    const ahead = d.changes.filter((c) => c.change === 'added' || c.progress === 'ahead').length;
    ctx.stdout(
      `Workflow state from the working tree (${where}) to ${ref} (${d.commit.slice(0, 8)}):\n${d.changes.map((c) => describeChange(c, ref)).join('\n')}\n` +
        `${d.changes.length} change(s); ${ahead} brought by ${ref}.\n`,
    );
    return 1;
  },
};

export const refCommands: CliCommand[] = [diffStateCommand];
