import * as path from 'node:path';
import type { CliCommand } from './framework';
import { flagString } from './framework';
import { rootArg, withCore } from './cliCore';
import { ALLOW_OUTSIDE_ENV, WaymarkError, openStore, parseAllowOutside, runProjection, trackerSetup, type ProjectReport } from '../core/index';

function display(file: string | undefined, cwd: string): string | null {
  if (!file) return null;
  const rel = path.relative(cwd, file);
  return rel && !/^\.\.(?:[\\/]|$)/.test(rel) && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

/** The GitHub token from the environment (never from a file). */
export function envToken(): string | undefined {
  return process.env.WAYMARK_GITHUB_TOKEN || process.env.GITHUB_TOKEN || undefined;
}

const projectCommand: CliCommand = {
  name: 'project',
  options: ['store', 'root'],
  booleanFlags: ['dry-run'],
  usage: 'project [ROOT] [--dry-run] [--store NAME] [--json]',
  summary: 'Project workflows and stories one way to the ticket tracker (tracker: in .waymark/config.yaml): show and send what changed.',
  help: `Options:
  --dry-run     show the plan (create/update per ticket, and why), send nothing
  --store NAME  a store of tracker.stores (default: tracker.default, else the first)
  --root DIR    the workspace folder (default: ROOT, or the folder above holding .waymark)
  --json        print the report as JSON

A ticket whose artifact was removed from the folder (the file no longer exists) is closed, labelled
status:removed, with a note; a mirror whose ticket is gone from the tracker (ticket repository
re-created, issue deleted) is sent again. Both come from one listing of the tracker's tickets; a
listing that fails changes nothing. Only tickets whose projection changed since their mirrored syncedHash are sent; a ticket with no
mirror is looked up by its waymark-id line before it is created. While the tracker is down (breaker
open, timeouts, 5xx, rate limit) the changes are queued in .waymark/outbox/ and the next run sends
them first. The GitHub token comes from WAYMARK_GITHUB_TOKEN or GITHUB_TOKEN (never from a file).
A git store's repository outside the workspace folder (by real path) is written only when
WAYMARK_TICKETS_ALLOW_OUTSIDE names it or a folder holding it (several separated by '${path.delimiter}');
allowOutside in .waymark/config.yaml alone is not enough. A failed git commit in the ticket
repository keeps the change queued in the outbox; the next run commits it.
Exit codes: 0 sent, nothing to send, or queued while the tracker is down (the output says which);
1 the tracker refused some tickets (validation; fix the files, re-run); 2 usage, no tracker
configured, bad config, a token or repository the tracker rejects; 3 another projection to the
same store is running.`,
  async run(ctx) {
    const root = rootArg(ctx, ctx.args.positionals[0]);
    return withCore(ctx, root, async (core) => {
      const config = (await core.contextFor(path.join(root, '.waymark-probe'))).config;
      const setup = trackerSetup(config);
      if (!setup) throw new WaymarkError('usage', `No ticket tracker is configured in ${display(root, ctx.cwd) ?? root}/.waymark/config.yaml; add a tracker: section (see README, "Ticket trackers (one-way)").`);
      const name = flagString(ctx.args, 'store') ?? setup.defaultStore;
      const cfg = setup.stores.get(name);
      if (!cfg) throw new WaymarkError('usage', `--store ${name} is not configured; known: ${[...setup.stores.keys()].join(', ')}.`);
      const dryRun = ctx.args.flags['dry-run'] === true;
      const store = await openStore(root, name, cfg, { token: envToken(), apiUrl: process.env.WAYMARK_GITHUB_API_URL, allowOutside: parseAllowOutside(process.env[ALLOW_OUTSIDE_ENV]) });
      const pause = Number(process.env.WAYMARK_TICKETS_PAUSE_AFTER_CREATES);
      const report = await runProjection({
        core, root, store, isDefault: name === setup.defaultStore, breaker: setup.breaker, dryRun,
        pauseAfterCreates: Number.isInteger(pause) && pause > 0 ? pause : undefined,
        onProgress: ctx.json ? undefined : (l) => ctx.stdout(`  ${l}\n`),
      });
      if (ctx.json) ctx.stdout(JSON.stringify(reportJson(report, ctx.cwd), null, 2) + '\n');
      else ctx.stdout(reportLines(report, ctx.cwd).join('\n') + '\n');
      return report.failed.length ? 1 : 0;
    }, { memory: false });
  },
};

function reportJson(r: ProjectReport, cwd: string) {
  return {
    store: r.store, dryRun: r.dryRun, unchanged: r.unchanged,
    planned: r.planned.map((p) => ({ ...p, file: display(p.file, cwd) })),
    created: r.created, updated: r.updated, closed: r.closed, listError: r.listError ?? null, reconciled: r.reconciled, failed: r.failed, queued: r.queued, mirrorsDeferred: r.mirrorsDeferred,
    outage: r.outage ?? null, breaker: r.breaker,
  };
}

function reportLines(r: ProjectReport, cwd: string): string[] {
  const out: string[] = [];
  if (r.dryRun) {
    out.push(r.planned.length ? `${r.planned.length} ticket(s) to send to ${r.store} (dry run, nothing sent); ${r.unchanged} unchanged:` : `Nothing to send to ${r.store}: ${r.unchanged} ticket(s) in sync.`);
    for (const p of r.planned) out.push(`  ${p.action.padEnd(6)} ${p.id}${p.ticket ? ` (${p.ticket})` : ''}  ${p.why}${p.file ? `  ${display(p.file, cwd)}` : ''}`);
    if (r.queued) out.push(`${r.queued} change(s) wait in the outbox.`);
    if (r.listError) out.push(`The ${r.store} tickets could not be listed (${r.listError}): removed artifacts and missing tickets are not shown.`);
    return out;
  }
  out.push(`${r.store}: ${r.created.length} created, ${r.updated.length} updated${r.closed.length ? `, ${r.closed.length} closed (artifact removed)` : ''}${r.reconciled.length ? ` (${r.reconciled.length} found again by waymark-id, not created twice)` : ''}, ${r.unchanged} unchanged.`);
  if (r.listError && !r.outage) out.push(`The ${r.store} tickets could not be listed (${r.listError}): no ticket of a removed artifact was closed, no missing ticket re-created this run.`);
  for (const f of r.failed) out.push(`  ✗ ${f.id}: ${f.message}`);
  if (r.mirrorsDeferred.length) out.push(`${r.mirrorsDeferred.length} tracker block(s) not written (the file changed meanwhile); the next run finds those tickets by their waymark-id.`);
  if (r.outage) out.push(`Queued: ${r.outage}. ${r.queued} change(s) wait in .waymark/outbox/${r.store}.jsonl and are sent first by the next waymark project. Local work is not affected.`);
  else if (r.queued) out.push(`${r.queued} change(s) still wait in the outbox.`);
  out.push(`breaker: ${r.breaker.state}${r.breaker.failures ? ` (${r.breaker.failures} consecutive failure(s))` : ''}`);
  return out;
}

export const ticketCommands: CliCommand[] = [projectCommand];
