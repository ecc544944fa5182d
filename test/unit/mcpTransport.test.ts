// The MCP server's stdio transport writes every message as the SDK's would, byte for byte, also
// when an answer repeated from the warm model is written around its JSON made once.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpStdioTransport, reuseResult, serializeMessage } from '../../src/mcp/transport';

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
