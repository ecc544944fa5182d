// The GitHub Action: validate (annotations on the pull request, a SARIF file for code scanning)
// and the branch's workflow-state review (the job summary). Inputs and outputs: action.yml.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as core from '@actions/core';
import { checkForCi } from '../cli/readCommands';
import { toSarif, reviewMarkdown } from '../cli/ciFormats';
import { reviewState, errorMessage, type Problem, type StateReview } from '../core/index';

const FAIL_ON = ['error', 'warning', 'never'] as const;
type FailOn = (typeof FAIL_ON)[number];

type Annotate = (message: string, props: core.AnnotationProperties) => void;
const BY_SEVERITY: Record<Problem['severity'], Annotate> = { error: core.error, warning: core.warning, info: core.notice };

function relTo(top: string, file: string): string {
  const rel = path.relative(top, file);
  return rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

/** The base to compare with: the input, else the pull request's target branch as fetched (origin/BRANCH). */
function baseRef(): string | undefined {
  const given = core.getInput('base').trim();
  if (given) return given;
  const target = process.env.GITHUB_BASE_REF;
  return target ? `origin/${target}` : undefined;
}

/** Review findings that no problem of validate carries: rewinds, gates opened without a reviewer, problems fixed. */
function reviewAnnotations(r: StateReview, root: string, top: string): { warnings: number } {
  let warnings = 0;
  const file = (rel: string) => relTo(top, path.join(root, rel));
  for (const m of r.moved) {
    if (!m.rewind || !m.file) continue;
    warnings++;
    const what = m.stepsRewound.length ? `un-does ${m.stepsRewound.join(', ')}` : `moves it back from ${m.from ?? '-'} to ${m.to ?? '-'}`;
    core.warning(`This change rewinds ${m.id}: it ${what}${m.by.length ? ` (by ${m.by.join(', ')})` : ' with no history line (edited by hand)'}. Completed work moves back only on purpose: waymark set-status/reopen records who and why.`, { title: 'rewind', file: file(m.file), startLine: 1 });
  }
  for (const g of r.gates) {
    if (!g.unrecorded && (g.change !== 'opened' || g.reviewer)) continue;
    warnings++;
    const what = g.unrecorded ? `says ${g.to} but was written by hand, not recorded through Waymark, so it does not open the gate` : `is opened (${g.to}) with no reviewer recorded: the gate file was written by hand`;
    core.warning(`Gate ${g.gate} of ${g.id} (step ${g.step}) ${what}. Record the verdict with waymark gate pass ${g.id} ${g.step} --by REVIEWER.`, { title: 'gate-without-reviewer', file: file(g.file), startLine: 1 });
  }
  for (const p of r.fixed) core.notice(`Fixed by this change: ${p.code}: ${p.message}`, { title: `fixed ${p.code}`, file: file(p.file), startLine: p.line });
  return { warnings };
}

/** Runs the action; every failure ends in core.setFailed with a reason, never a stack trace. */
export async function run(): Promise<void> {
  try {
    const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
    const root = path.resolve(workspace, core.getInput('path').trim() || '.');
    const failOnInput = (core.getInput('fail-on').trim() || 'error').toLowerCase();
    if (!(FAIL_ON as readonly string[]).includes(failOnInput)) throw new Error(`fail-on: '${failOnInput}' is not one of ${FAIL_ON.join(', ')}.`);
    const failOn = failOnInput as FailOn;
    const base = baseRef();
    const sarifFile = path.resolve(workspace, core.getInput('sarif-file').trim() || path.join(process.env.RUNNER_TEMP || workspace, 'waymark.sarif'));

    const checked = await checkForCi([root], workspace, base);
    for (const p of checked.problems) {
      BY_SEVERITY[p.severity](p.message, {
        title: p.code,
        file: relTo(checked.top, p.file),
        startLine: p.range.start.line + 1,
        endLine: p.range.end.line + 1,
        startColumn: p.range.start.character + 1,
        ...(p.range.end.line === p.range.start.line ? { endColumn: Math.max(p.range.end.character, p.range.start.character) + 1 } : {}),
      });
    }
    fs.mkdirSync(path.dirname(sarifFile), { recursive: true });
    fs.writeFileSync(sarifFile, JSON.stringify(toSarif(checked.problems, checked.top), null, 2) + '\n');
    const errors = checked.problems.filter((p) => p.severity === 'error').length;
    let warnings = checked.problems.filter((p) => p.severity === 'warning').length;
    const scope = base ? `${checked.files} file(s) changed since ${base}` : `${checked.files} file(s)`;
    const tally = `${scope}, ${checked.workflows} workflow(s): ${errors} error(s), ${warnings} warning(s).`;

    let summary: string;
    if (base) {
      const review = await reviewState(root, base);
      warnings += reviewAnnotations(review, root, checked.top).warnings;
      summary = `${reviewMarkdown(review)}\n${tally}\n`;
    } else summary = `**Waymark:** ${tally} (no base to compare workflow state with: set the base input, or run on pull_request.)\n`;
    await core.summary.addRaw(summary).write();

    core.setOutput('sarif-file', sarifFile);
    core.setOutput('errors', String(errors));
    core.setOutput('warnings', String(warnings));
    core.info(`Waymark: ${tally} SARIF: ${sarifFile}`);
    if ((failOn === 'error' && errors) || (failOn === 'warning' && errors + warnings)) {
      core.setFailed(`Waymark found ${errors} error(s) and ${warnings} warning(s) (fail-on: ${failOn}).`);
    }
  } catch (e) {
    core.setFailed(`Waymark: ${errorMessage(e)}`);
  }
}
