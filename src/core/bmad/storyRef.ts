/**
 * Which story a user's key names: the exact ledger key (`1-2-login`), or its number alone
 * (`1-2`, `1.2`, `2-6a`) when exactly one story has it. Anything else names no story: a key
 * whose slug differs from the story's (`1-2-delete-all-user-data` for `1-2-login`) is not the
 * same story, and the caller is told the candidates instead of writing a guess.
 */
import { nearest } from '../model/config';
import { quoted } from '../model/text';

export interface StoryLike {
  key: string;
  epic: number | string;
  /** The epic id as written (`3a`, `0-5`, `pm-01`), when the story has one: it names the story. */
  epicId?: string;
  story?: string;
}

/** `01.02` → `1-2`: lower case, dots as dashes, numbers without leading zeros. */
function normalizeId(ref: string): string {
  return ref.trim().replace(/\.md$/i, '').toLowerCase().replace(/\./g, '-').split('-').map((p) => (/^\d+[a-z]?$/.test(p) ? p.replace(/^0+(?=\d)/, '') : p)).join('-');
}

function idOf(s: StoryLike): string | undefined {
  return s.story === undefined ? undefined : normalizeId(`${s.epicId ?? s.epic}-${s.story}`);
}

export type StoryRefAnswer<S> = { story: S } | { candidates: S[]; ambiguous: boolean };

/** The one story `ref` names, or the candidates to show (several with that number, or the nearest keys). */
export function resolveStoryRef<S extends StoryLike>(stories: readonly S[], ref: string): StoryRefAnswer<S> {
  const r = ref.trim().replace(/\.md$/i, '');
  const exact = stories.filter((s) => s.key === r);
  if (exact.length === 1) return { story: exact[0] };
  const id = normalizeId(r);
  const byId = stories.filter((s) => idOf(s) === id);
  if (byId.length === 1) return { story: byId[0] };
  if (byId.length > 1) return { candidates: byId, ambiguous: true };
  // A key with a slug: the stories with its number, then the nearest keys.
  const prefix = stories.filter((s) => {
    const sid = idOf(s);
    return sid !== undefined && id.startsWith(`${sid}-`);
  });
  const near = nearest(r, stories.map((s) => s.key), Math.max(6, Math.floor(r.length / 2)));
  const out = [...prefix];
  for (const s of stories) if (s.key === near && !out.includes(s)) out.push(s);
  return { candidates: out, ambiguous: false };
}

/** The refusal's text: "No story '…'. Did you mean 1-2-login?" / "'1-2' names 2 stories: …". */
export function storyRefMessage(ref: string, answer: { candidates: StoryLike[]; ambiguous: boolean }, where: string, all: readonly StoryLike[], write = false): string {
  const nothing = write ? ' Nothing was changed.' : '';
  const list = (xs: readonly StoryLike[]) => xs.slice(0, 6).map((s) => s.key).join(', ') + (xs.length > 6 ? ', …' : '');
  if (answer.ambiguous) return `${quoted(ref)} names ${answer.candidates.length} stories in ${where}: ${list(answer.candidates)}. Give the full key.${nothing}`;
  if (answer.candidates.length) return `No story ${quoted(ref)} in ${where}. Did you mean ${list(answer.candidates)}? Give the exact key (waymark sprint lists them).${nothing}`;
  return `No story ${quoted(ref)} in ${where}.${all.length ? ` Stories: ${list(all)}.` : ''} Give the exact key (waymark sprint lists them).${nothing}`;
}
