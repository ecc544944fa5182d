// Paths as the corpus scripts compare them: repo-relative, forward slashes (run.mjs, census.mjs).
import * as path from 'node:path';

export function norm(p) {
  return String(p ?? '').split(path.sep).join('/').replace(/^\.\//, '');
}

/** Waymark's paths are relative to the folder it ran in (or absolute): make them repo-relative. */
export function toRepoRel(repoDir, file, base) {
  if (!file) return null;
  const abs = path.isAbsolute(file) ? file : path.resolve(base ?? repoDir, file);
  return norm(path.relative(repoDir, abs));
}
