import * as fs from 'node:fs';
import * as path from 'node:path';
import { isSeq, isMap, YAMLSeq } from 'yaml';
import { parseDocument } from '../model/yamlDepth';
import { WaymarkError } from '../errors';
import { writeFileAtomic } from './atomicWrite';
import { openInternalSync, resolveRealPath, safeMkdir, safeWritePath } from './safePath';
import { readConfigSync } from './configFile';
import { isGatePathIn } from '../model/gates';
import type { WaymarkConfig } from '../model/config';
import type { GateVerdict, GateWaiver } from '../types';

export interface GateUpdate {
  verdict: GateVerdict;
  reviewer?: string;
  reason?: string;
  waiver?: GateWaiver;
  /** ISO time of the verdict. */
  updated: string;
}

/**
 * New text of a gate file: the top-level fields say the latest verdict; the `history` list
 * gets one more entry and nothing in it is ever rewritten. Comments in the file survive.
 */
export function renderGateUpdate(existing: string | undefined, update: GateUpdate, file = 'gate file'): string {
  const text = existing ?? '';
  const doc = parseDocument(text.trim() === '' ? '{}' : text, { prettyErrors: false });
  if (doc.errors.length) {
    throw new WaymarkError('invalid', `${file} is not valid YAML (${doc.errors[0].message.split('\n')[0]}); fix or delete it, then record the verdict again.`, file);
  }
  if (!isMap(doc.contents)) throw new WaymarkError('invalid', `${file} is not a mapping with a gate: key; fix or delete it.`, file);
  if (text.trim() === '') (doc.contents as { flow?: boolean }).flow = false;
  doc.set('gate', update.verdict);
  for (const key of ['reviewer', 'reason'] as const) {
    if (update[key]) doc.set(key, update[key]);
    else doc.delete(key);
  }
  doc.set('updated', update.updated);
  if (update.verdict === 'WAIVED' && update.waiver) {
    const w: Record<string, string> = { reason: update.waiver.reason, approved_by: update.waiver.approved_by };
    if (update.waiver.expires) w.expires = update.waiver.expires;
    doc.set('waiver', doc.createNode(w));
  } else {
    doc.delete('waiver');
  }
  const entry: Record<string, string> = { gate: update.verdict };
  if (update.reviewer) entry.reviewer = update.reviewer;
  entry.updated = update.updated;
  if (update.reason) entry.reason = update.reason;
  if (update.waiver && update.verdict === 'WAIVED') entry.reason = update.waiver.reason;
  const hist = doc.get('history', true);
  if (isSeq(hist)) {
    (hist as YAMLSeq).flow = false;
    (hist as YAMLSeq).add(doc.createNode(entry));
    // Keep `history` the last key so the file reads top (latest) to bottom (log).
    doc.delete('history');
    doc.set('history', hist);
  } else {
    if (hist !== undefined) throw new WaymarkError('invalid', `${file} has a history: key that is not a list; fix it by hand (history is append-only).`, file);
    doc.set('history', doc.createNode([entry]));
  }
  return doc.toString({ lineWidth: 0 });
}

/**
 * The real path and new text of a gate file for a verdict, without writing it (the caller
 * journals it first). With `root`, the gate file's real path must lie inside that workspace.
 * `from`: where the verdicts so far are read when not from `file` (a gate file moving to its
 * new location keeps its history list).
 */
export function prepareGateFile(file: string, update: GateUpdate, root?: string, from?: string): { target: string; text: string } {
  const target = root ? safeWritePath(root, file) : file;
  const source = from === undefined ? target : root ? safeWritePath(root, from) : from;
  let existing: string | undefined;
  let fd: number | undefined;
  try {
    fd = openInternalSync(source, fs.constants.O_RDONLY, { what: 'gate verdict' });
    if (fs.fstatSync(fd).size > 1024 * 1024) throw new WaymarkError('invalid', `${file} is larger than 1 MB; it is not a gate file Waymark will rewrite.`, file);
    existing = fs.readFileSync(fd, 'utf8');
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new WaymarkError('unreadable', `Cannot read ${file}: ${(e as Error).message}.`, file);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const text = renderGateUpdate(existing, update, file);
  try {
    if (root) safeMkdir(root, path.dirname(target));
    else fs.mkdirSync(path.dirname(target), { recursive: true });
  } catch (e) {
    if (WaymarkError.is(e)) throw e;
    throw new WaymarkError('io', `Cannot create the gate folder ${path.dirname(file)}: ${(e as Error).message}. Make the workspace writable.`, file);
  }
  return { target, text };
}

/**
 * Writes a verdict into a gate file atomically (creating its folder). Call under the gate file's
 * lock. With `root`, the gate file's real path must lie inside that workspace folder.
 */
export function writeGateFile(file: string, update: GateUpdate, root?: string): void {
  const { target, text } = prepareGateFile(file, update, root);
  writeFileAtomic(target, text, { root, what: 'gate verdict' });
}

/**
 * True when `absPath` is a gate file of the workspace at `root` (its `gates.path` template, or
 * where gates were kept before they were keyed by the file's path), by real path: a link that
 * points at a gate file is one, wherever the link lies. `config`: the workspace's settings when
 * the caller has them (else read from `.waymark/config.yaml`). Never throws.
 */
export function isGatePath(root: string, absPath: string, config?: WaymarkConfig): boolean {
  const ctx = { root: realOrResolved(root), config: config ?? readConfigSync(root) };
  return isGatePathIn(ctx, path.resolve(root, absPath)) || isGatePathIn(ctx, realOrResolved(path.resolve(root, absPath)));
}

function realOrResolved(p: string): string {
  try {
    return resolveRealPath(p);
  } catch {
    return path.resolve(p);
  }
}
