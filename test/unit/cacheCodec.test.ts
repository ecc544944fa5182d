// The BMAD caches' codec (bmad/cacheCodec.ts): V8's serializer with what it loses noted beside the
// value (null prototypes, frozen objects), a checksum over the bytes, and refusal of what would
// come back different.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue, deserialize, digest, encodeValue, serialize, Uncacheable } from '../../src/core/bmad/cacheCodec';

function roundTrip(v: unknown): unknown {
  const bytes = serialize({ head: 1, value: encodeValue(v) });
  const back = deserialize(bytes) as { head: number; value: ReturnType<typeof encodeValue> };
  assert.equal(back.head, 1);
  return decodeValue(back.value);
}

describe('cache codec', () => {
  test('keeps Map, Set, Date, RegExp, undefined, -0, NaN, shared objects, null prototypes and frozen objects', () => {
    const shared = { n: 1 };
    const counts = Object.assign(Object.create(null) as Record<string, unknown>, { constructor: 2, done: 3 });
    const steps = Object.freeze([Object.freeze({ id: 's1' })]);
    const v = { m: new Map<unknown, unknown>([['a', shared], [2, new Set([shared, undefined])]]), d: new Date(5), re: /a.b/giu, u: undefined, z: -0, nan: NaN, inf: -Infinity, a: shared, b: [shared, , 3], counts, steps, again: steps, proto: JSON.parse('{"__proto__":{"x":1}}') as object };
    const back = roundTrip(v) as typeof v;
    assert.deepEqual(back, v);
    assert.equal(Object.getPrototypeOf(back.counts), null, 'null prototype kept');
    assert.equal(back.counts.constructor, 2);
    assert.ok(Object.isFrozen(back.steps) && Object.isFrozen(back.steps[0]), 'frozen kept');
    assert.equal(back.again, back.steps, 'shared kept');
    assert.equal(back.a, back.m.get('a'));
    assert.ok(Object.is(back.z, -0));
    assert.ok(Object.prototype.hasOwnProperty.call(back.proto, '__proto__') && Object.getPrototypeOf(back.proto) === Object.prototype, 'an own __proto__ key stays data');
    assert.ok(!(1 in back.b), 'a hole stays a hole');
    assert.ok(!Object.isFrozen(back.m) && Object.getPrototypeOf(back) === Object.prototype, 'nothing else changed');
  });

  test('refuses what would come back different: class instances, sealed objects, a RegExp with state, functions', () => {
    class K {
      a = 1;
    }
    const re = /x/g;
    re.lastIndex = 1;
    for (const bad of [{ k: new K() }, { s: Object.seal({ a: 1 }) }, [re], new Error('x')]) assert.throws(() => encodeValue(bad), Uncacheable);
    assert.throws(() => serialize({ f: () => 1 }), Uncacheable);
    assert.throws(() => digest({ f: () => 1 }), Uncacheable);
  });

  test('bytes changed in any way after they were written are not a value', () => {
    const bytes = serialize({ a: 'text', n: [1, 2, 3] });
    assert.deepEqual(deserialize(bytes), { a: 'text', n: [1, 2, 3] });
    for (let i = 0; i < bytes.length; i++) {
      const bad = Buffer.from(bytes);
      bad[i] ^= 0x10;
      assert.equal(deserialize(bad), undefined, `byte ${i} changed`);
    }
    for (let n = 0; n < bytes.length; n++) assert.equal(deserialize(bytes.subarray(0, n)), undefined, `torn at ${n}`);
    assert.equal(deserialize(Buffer.from('{"waymarkSprintCache":3}')), undefined);
  });

  test('digest is the same for the same value and differs for another', () => {
    assert.equal(digest(['/r', { dir: '_bmad' }, 7]), digest(['/r', { dir: '_bmad' }, 7]));
    assert.notEqual(digest(['/r', { dir: '_bmad' }, 7]), digest(['/r', { dir: '_bmad' }, 8]));
  });
});
