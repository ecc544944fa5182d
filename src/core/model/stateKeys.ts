// The frontmatter keys Waymark reads, and which unknown key is a typo of one of them.
import { nearest } from './config';

/** Keys whose presence makes a frontmatter a workflow. */
export const WORKFLOW_KEYS = ['workflow', 'workflowType', 'stepsCompleted', 'lastStep', 'currentStep', 'current_step', 'steps', 'delegation'] as const;
/** Keys only a workflow frontmatter has (`workflow` alone is too common a word). */
export const DISTINCTIVE_KEYS = ['workflowType', 'stepsCompleted', 'lastStep', 'currentStep', 'current_step'];
/** Every key Waymark reads (typo detection compares against these). */
export const STATE_KEYS = [...WORKFLOW_KEYS, 'status', 'scope', 'blockedReason', 'session', 'updatedAt', 'ttl'] as const;

const typoCache = new Map<string, string | null>();

/** The known key an unknown key is a likely typo of. */
export function typoOf(key: string): string | undefined {
  let hit = typoCache.get(key);
  if (hit === undefined) {
    hit = computeTypo(key) ?? null;
    if (typoCache.size < 10_000) typoCache.set(key, hit);
  }
  return hit ?? undefined;
}

function computeTypo(key: string): string | undefined {
  if ((STATE_KEYS as readonly string[]).includes(key)) return undefined;
  if (key.length < 5) return undefined;
  const candidates = STATE_KEYS.filter((k) => k !== key);
  const near = nearest(key, candidates, key.length >= 8 ? 2 : 1);
  // Case-only or snake/camel differences are typos too (`StepsCompleted`, `steps_completed`).
  if (near) return near;
  const squash = key.replace(/[_-]/g, '').toLowerCase();
  return candidates.find((k) => k.replace(/[_-]/g, '').toLowerCase() === squash);
}
