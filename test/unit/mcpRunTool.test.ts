// runTool checks a read tool's arguments once per shape (an agent asks the same questions again and
// again) and never hands one call's arguments to another that differs, nor lets a handler change them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { runTool } from '../../src/mcp/tools';
import type { WaymarkTool } from '../../src/mcp/tools';
import type { ToolHost } from '../../src/mcp/host';

const host = { roots: ['/nowhere'] } as unknown as ToolHost;

/** A tool whose input schema counts its checks and whose handler answers what it was given. */
function counted(readOnly: boolean, run: (input: Record<string, unknown>) => unknown = (input) => ({ got: { ...input } })) {
  const input = z.object({ file: z.string().min(1), limit: z.number().int().optional(), flag: z.boolean().optional() }).strict();
  let checks = 0;
  const safeParse = input.safeParse.bind(input);
  input.safeParse = ((raw: unknown) => {
    checks++;
    return safeParse(raw);
  }) as typeof input.safeParse;
  const t = { name: 't', referenceName: 't', title: 't', description: 't', input, output: z.object({}), annotations: { readOnlyHint: readOnly }, run: async (i: Record<string, unknown>) => run(i) } as unknown as WaymarkTool;
  return { t, checks: () => checks };
}

test('a read tool\'s arguments are checked once per shape; other arguments, bad ones and a write\'s are checked each time', async () => {
  const r = counted(true);
  for (let i = 0; i < 3; i++) assert.deepEqual((await runTool(r.t, { file: 'a.md', limit: 2 }, host)).structured, { got: { file: 'a.md', limit: 2 } });
  assert.equal(r.checks(), 1);
  assert.deepEqual((await runTool(r.t, { file: 'a.md', limit: 3 }, host)).structured, { got: { file: 'a.md', limit: 3 } });
  assert.deepEqual((await runTool(r.t, { limit: 2, file: 'a.md' }, host)).structured, { got: { file: 'a.md', limit: 2 } }, 'the same arguments in another order');
  assert.equal(r.checks(), 3);
  for (let i = 0; i < 2; i++) {
    const bad = await runTool(r.t, { file: '', limit: 2 }, host);
    assert.equal(bad.isError, true);
    assert.match(bad.text, /file/);
  }
  assert.equal(r.checks(), 5, 'a refusal is not kept');
  // Not flat (a nested object; NaN, whose JSON is null) or refused (a fraction where an integer is asked): checked each time.
  for (const odd of [{ file: 'a.md', extra: { x: 1 } }, { file: 'a.md', limit: Number.NaN }, { file: 'a.md', limit: 1.5 }]) {
    assert.equal((await runTool(r.t, odd, host)).isError, true);
    assert.equal((await runTool(r.t, odd, host)).isError, true);
  }
  assert.equal(r.checks(), 11);
  const w = counted(false);
  for (let i = 0; i < 2; i++) await runTool(w.t, { file: 'a.md' }, host);
  assert.equal(w.checks(), 2, 'a write is checked on every call');
});

test('a handler cannot change the arguments kept for the next call', async () => {
  const r = counted(true, (input) => {
    (input as { file: string }).file = 'changed.md';
    return {};
  });
  const first = await runTool(r.t, { file: 'a.md' }, host);
  assert.equal(first.isError, true, 'the kept arguments are frozen');
  const again = counted(true);
  assert.deepEqual((await runTool(again.t, { file: 'a.md' }, host)).structured, { got: { file: 'a.md' } });
});
