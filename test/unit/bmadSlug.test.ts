import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { storySlug } from '../../src/core/bmad/epics';

/** The slug as BMAD's grammar defines it: letters and digits of any script and `_` kept, the rest one `-`. */
const reference = (title: string) => title.toLowerCase().replace(/[^\p{L}\p{N}_]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');

test('storySlug gives the Unicode-class slug for any title, ASCII or not (its ASCII shortcut changes nothing)', () => {
  const chars = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x80, max: 0x2fff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('İ', 'ß', 'Σ', '٣', 'é', '—', '\u00a0'),
  );
  fc.assert(
    fc.property(fc.array(chars, { maxLength: 80 }).map((a) => a.join('')), (t) => {
      assert.equal(storySlug(t), reference(t));
    }),
    { numRuns: 5000 },
  );
  assert.equal(storySlug('User can log in (OAuth 2.0) — fast'), 'user-can-log-in-oauth-2-0-fast');
  assert.equal(storySlug('Ünïcode Über Story'), 'ünïcode-über-story');
});
