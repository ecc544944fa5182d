/**
 * The git pre-commit check: the staged version of every changed state file (`git show :path`)
 * judged against the committed one (`HEAD:path`) by the rules of a Waymark mutation, so a
 * commit cannot carry an edit the hooks or the CLI would have refused. History files must only
 * grow (append-only).
 */
import * as path from 'node:path';
import { WaymarkError } from '../errors';
import { runGit, repoTop } from './git';
import { checkProposedEdit, type ProposalVerdict } from './proposal';
import type { ProposalProblem } from '../model/proposal';

export interface StagedFileReport {
  /** Path relative to the repository's top folder. */
  rel: string;
  problems: ProposalProblem[];
}

export interface StagedCheck {
  top: string;
  /** Changed staged files that hold state (checked). */
  checked: number;
  refused: StagedFileReport[];
  warnings: StagedFileReport[];
}

async function gitText(top: string, spec: string): Promise<string | undefined> {
  const r = await runGit(top, ['show', spec]);
  return r.code === 0 ? r.stdout : undefined;
}

const CANDIDATE = /\.(?:md|markdown)$|(?:^|\/)sprint-status\.ya?ml$|^\.waymark\/history\/.+\.jsonl$/i;

/** Judges the staged changes of the repository holding `cwd`. */
export async function checkStagedChanges(cwd: string): Promise<StagedCheck> {
  const top = await repoTop(cwd);
  const diff = await runGit(top, ['diff', '--cached', '--name-status', '-z', '--no-renames', '--diff-filter=ACMDT']);
  if (diff.code !== 0) throw new WaymarkError('io', `git diff --cached failed: ${diff.stderr.trim()}`);
  const parts = diff.stdout.split('\0').filter((x) => x !== '');
  const hasHead = (await runGit(top, ['rev-parse', '--verify', '-q', 'HEAD'])).code === 0;
  const out: StagedCheck = { top, checked: 0, refused: [], warnings: [] };
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i];
    const rel = parts[i + 1];
    if (!CANDIDATE.test(rel)) continue;
    const staged = status === 'D' ? undefined : await gitText(top, `:${rel}`);
    const head = hasHead && status !== 'A' ? await gitText(top, `HEAD:${rel}`) : undefined;
    if (rel.startsWith('.waymark/history/')) {
      out.checked++;
      if (head !== undefined && (staged === undefined || !staged.startsWith(head))) {
        out.refused.push({ rel, problems: [{ severity: 'error', code: 'history-rewritten', message: `${rel} is append-only but the staged version ${staged === undefined ? 'deletes it' : 'changes or drops committed lines'}`, fix: `restore it: git checkout HEAD -- ${rel} (then stage only appended lines)` }] });
      }
      continue;
    }
    let verdict: ProposalVerdict;
    try {
      verdict = await checkProposedEdit({ root: top, file: path.join(top, rel), text: staged, beforeText: head ?? null, leases: false });
    } catch (e) {
      if (WaymarkError.is(e, 'usage')) continue;
      throw e;
    }
    if (!verdict.kind) continue;
    out.checked++;
    const errors = verdict.problems.filter((p) => p.severity === 'error');
    const warnings = verdict.problems.filter((p) => p.severity === 'warning');
    if (errors.length) out.refused.push({ rel, problems: errors });
    if (warnings.length) out.warnings.push({ rel, problems: warnings });
  }
  return out;
}
