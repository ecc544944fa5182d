// The MCP server's stdio transport reads lines and writes every message as the SDK's would, byte
// for byte, also when an answer repeated from the warm model is written around its JSON made once,
// and when a request is answered without the protocol layer.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpStdioTransport, reuseResult, serializeMessage, structuredResult } from '../../src/mcp/transport';

const sdkLine = (m: JSONRPCMessage) => JSON.stringify(m) + '\n';

test('a reused result is written as JSON.stringify writes the whole response, whatever its id', () => {
  const result = reuseResult({ content: [{ type: 'text', text: '{"a":"\\u00e9\\n"}' }], structuredContent: { a: 'é\n', list: [1, null, { deep: '"q"' }] } });
  for (const id of [1, 42, 'req-7', 'with "quotes"']) {
    const m = { result, jsonrpc: '2.0', id } as JSONRPCMessage;
    assert.equal(serializeMessage(m), sdkLine(m));
  }
  // Other shapes (errors, requests, notifications, results not marked) are written by JSON.stringify itself.
  const others: JSONRPCMessage[] = [
    { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
    { jsonrpc: '2.0', id: 4, result: { content: [] } },
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    { id: 5, jsonrpc: '2.0', result } as JSONRPCMessage,
  ];
  for (const m of others) assert.equal(serializeMessage(m), sdkLine(m));
});

test('a tool\'s result is written from its text: the bytes JSON.stringify gives the whole response, its structured content not serialised again', () => {
  const shapes: Record<string, unknown>[] = [
    {},
    { a: 'é\n', quote: '"q"', back: '\\', sep: '\u2028\u2029', lone: '\ud800', nul: '\u0000', list: [1, null, { deep: '"q"', n: -0, e: 1e21 }], gone: undefined, when: new Date(0) },
    { file: 'work/a.workflow.md', operation: 'advance', before: { stepsCompleted: Array.from({ length: 300 }, (_, i) => `step-${i}`) }, after: { blockedReason: null } },
  ];
  for (const structured of shapes) {
    const text = JSON.stringify(structured);
    const result = structuredResult(text, structured);
    assert.deepEqual(result, { content: [{ type: 'text', text }], structuredContent: structured });
    for (const id of [1, 'req-7']) {
      const m = { result, jsonrpc: '2.0', id } as JSONRPCMessage;
      assert.equal(serializeMessage(m), sdkLine(m));
    }
  }
  // The structured content is read once, for its text: sending the result does not walk it again.
  let reads = 0;
  const counted = Object.defineProperty({}, 'x', { enumerable: true, get: () => ++reads });
  const result = structuredResult(JSON.stringify(counted), counted);
  assert.equal(reads, 1);
  assert.equal(serializeMessage({ result, jsonrpc: '2.0', id: 9 } as JSONRPCMessage), '{"result":{"content":[{"type":"text","text":"{\\"x\\":1}"}],"structuredContent":{"x":1}},"jsonrpc":"2.0","id":9}\n');
  assert.equal(reads, 1);
});

test('messages are routed with stack traces off, and the limit is back for everything after', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new McpStdioTransport(stdin, stdout);
  const limits: number[] = [];
  const before = Error.stackTraceLimit;
  t.onmessage = (m) => {
    limits.push(Error.stackTraceLimit);
    void t.send({ result: reuseResult({ ok: true }), jsonrpc: '2.0', id: (m as { id: number }).id });
  };
  await t.start();
  const written = new Promise<string>((resolve) => stdout.once('data', (d) => resolve(String(d))));
  stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
  assert.equal(await written, '{"result":{"ok":true},"jsonrpc":"2.0","id":9}\n');
  assert.deepEqual(limits, [0]);
  assert.equal(Error.stackTraceLimit, before);
  await t.close();
});

test('a plain request goes straight to the protocol layer\'s request handling; anything else takes the layer\'s own way', async () => {
  const stdin = new PassThrough();
  const t = new McpStdioTransport(stdin, new PassThrough());
  const routed: unknown[] = [];
  const delivered: unknown[] = [];
  t.routeRequestsTo({ _onrequest: (m: unknown) => routed.push(m) });
  t.onmessage = (m) => delivered.push(m);
  await t.start();
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'waymark_status', arguments: { file: 'x.md' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'waymark_status', _meta: { progressToken: 7 } } },
    { jsonrpc: '2.0', id: 3, method: 'ping', extra: true },
    { jsonrpc: '2.0', id: 1.5, method: 'ping' },
    { jsonrpc: '2.0', id: 4, result: {} },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ];
  const done = new Promise((resolve) => setImmediate(resolve));
  stdin.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await done;
  assert.deepEqual(routed, lines.slice(0, 2));
  // The SDK's schemas: a request with _meta, a response and a notification are delivered; the
  // malformed ones (an unknown key, a fractional id) are refused by its parse and never delivered.
  assert.deepEqual(delivered, [lines[2], lines[5], lines[6]]);
  await t.close();
});

test('a protocol layer without its request handling (another SDK version) routes every message itself', async () => {
  const stdin = new PassThrough();
  const t = new McpStdioTransport(stdin, new PassThrough());
  const delivered: unknown[] = [];
  t.routeRequestsTo({});
  t.onmessage = (m) => delivered.push(m);
  await t.start();
  const done = new Promise((resolve) => setImmediate(resolve));
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await done;
  assert.deepEqual(delivered, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  await t.close();
});

/** A transport on pipes, started, with what it delivers, routes and writes. */
async function opened() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new McpStdioTransport(stdin, stdout);
  const delivered: unknown[] = [];
  const routed: unknown[] = [];
  const errors: string[] = [];
  let written = '';
  stdout.on('data', (d) => (written += String(d)));
  t.routeRequestsTo({ _onrequest: (m: unknown) => routed.push(m) });
  t.onmessage = (m) => delivered.push(m);
  t.onerror = (e) => errors.push(e.message);
  await t.start();
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { t, stdin, delivered, routed, errors, written: () => written, turn };
}

test('lines cut anywhere (inside a character, before a CRLF) read whole; a line that is not JSON is an error and the next still arrives', async () => {
  const o = await opened();
  const bytes = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"note":"é—✓"}}\r\nnot json\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  // One byte at a time: every multi-byte character and the CR/LF pair are cut in two.
  for (let i = 0; i < bytes.length; i++) o.stdin.write(bytes.subarray(i, i + 1));
  await o.turn();
  assert.deepEqual(o.routed, [{ jsonrpc: '2.0', id: 1, method: 'ping', params: { note: 'é—✓' } }]);
  assert.deepEqual(o.delivered, [{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  assert.equal(o.errors.length, 1);
  assert.match(o.errors[0], /JSON/);
  await o.t.close();
});

test('a line longer than the SDK\'s limit without its end is an error and closes the transport', async () => {
  const o = await opened();
  let closed = false;
  o.t.onclose = () => (closed = true);
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  for (let i = 0; i < 11; i++) o.stdin.write(chunk);
  await o.turn();
  assert.equal(closed, true);
  assert.match(o.errors.join(), /without its end of line/);
});

test('a method answered directly: its result is written with the request\'s id; params it leaves, and requests with _meta, take the protocol layer\'s way', async () => {
  const o = await opened();
  const asked: unknown[] = [];
  const result = reuseResult({ content: [{ type: 'text', text: '{}' }], structuredContent: {} });
  o.t.answerDirectly('tools/call', (params) => {
    asked.push(params);
    if (params?.name === 'boom') return Promise.reject(new Error('it broke'));
    return typeof params?.name === 'string' ? Promise.resolve(result) : undefined;
  });
  const lines = [
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'waymark_status', arguments: { file: 'a.md' } } },
    { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { arguments: {} } },
    { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'waymark_status', _meta: { progressToken: 1 } } },
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'boom' } },
    { jsonrpc: '2.0', id: 10, method: 'ping' },
  ];
  o.stdin.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await o.turn();
  await o.turn();
  assert.deepEqual(asked, [lines[0].params, lines[1].params, lines[3].params]);
  assert.deepEqual(o.routed, [lines[1], lines[4]], 'params without a name and other methods: the layer\'s request handling');
  assert.deepEqual(o.delivered, [lines[2]], 'a request with _meta: the SDK\'s own way');
  const sent = o.written().split('\n').filter(Boolean);
  assert.deepEqual(sent, [
    JSON.stringify({ result, jsonrpc: '2.0', id: 7 }),
    // What the protocol layer sends for a handler that threw.
    JSON.stringify({ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'it broke' } }),
  ]);
  await o.t.close();
});
