// The MCP server's stdio transport: the SDK's, with two costs of every message taken out.
// - The SDK tells a request from a response by parsing it against the response schemas first;
//   each failed parse builds a zod error, an Error subclass that captures a stack trace. Nothing
//   reads those traces: messages are routed with Error.stackTraceLimit at 0 (handlers run later,
//   in their own turn, with the usual limit).
// - An answer repeated from the warm model is the same result object: its JSON is made once and
//   the response is written around it, byte for byte what JSON.stringify of the message gives.
// - The protocol layer tells a request from a response by parsing each message against the
//   response schemas first: two failed zod parses per request, the larger part of a ping's CPU and
//   a third of a one-file status's (profiled: `isJSONRPCResultResponse`, `isJSONRPCErrorResponse`).
//   A request as clients send it (`plainRequest`: the keys of a request and nothing else, no
//   `_meta`) is one the layer would route to its request handling unchanged: it goes there
//   directly (`routeRequestsTo`). Anything else takes the layer's own way.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

/** Results never changed once made (answers kept by the warm model), with their JSON once sent. */
const reusable = new WeakMap<object, string | undefined>();

/** Marks `result` as never changed again: its JSON is made once, on its first send. */
export function reuseResult<T extends object>(result: T): T {
  if (!reusable.has(result)) reusable.set(result, undefined);
  return result;
}

/** The line the SDK would write for `message`: its JSON and a newline. */
export function serializeMessage(message: JSONRPCMessage): string {
  const m = message as { result?: object; jsonrpc?: string; id?: string | number };
  const result = m.result;
  if (result !== undefined && reusable.has(result)) {
    // Only the SDK's own response shape, keys in its order: anything else is written as it is.
    const keys = Object.keys(m);
    if (keys.length === 3 && keys[0] === 'result' && keys[1] === 'jsonrpc' && keys[2] === 'id' && m.jsonrpc === '2.0' && (typeof m.id === 'number' || typeof m.id === 'string')) {
      let json = reusable.get(result);
      if (json === undefined) reusable.set(result, (json = JSON.stringify(result)));
      return `{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(m.id)}}\n`;
    }
  }
  return JSON.stringify(message) + '\n';
}

/** A request as clients send them (no `_meta`): one the SDK's request schema lets through unchanged. */
export function plainRequest(m: unknown): m is JSONRPCRequest {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return false;
  const o = m as Record<string, unknown>;
  for (const k in o) if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params') return false;
  if (o.jsonrpc !== '2.0' || typeof o.method !== 'string') return false;
  if (!(typeof o.id === 'string' || (typeof o.id === 'number' && Number.isInteger(o.id)))) return false;
  const p = o.params;
  return p === undefined || (typeof p === 'object' && p !== null && !Array.isArray(p) && !('_meta' in p));
}

/** The SDK protocol layer's request handling (`Protocol._onrequest`, not part of its typed API). */
type RequestRoute = (request: JSONRPCRequest, extra?: undefined) => void;

export class McpStdioTransport extends StdioServerTransport {
  private readonly out: Writable;
  private route?: RequestRoute;

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    super(stdin, stdout);
    this.out = stdout;
  }

  override async start(): Promise<void> {
    // The protocol layer sets onmessage before it starts the transport.
    const deliver = this.onmessage;
    if (deliver) {
      this.onmessage = (message) => {
        const limit = Error.stackTraceLimit;
        Error.stackTraceLimit = 0;
        try {
          if (this.route && plainRequest(message)) this.route(message);
          else deliver(message);
        } finally {
          Error.stackTraceLimit = limit;
        }
      };
    }
    return super.start();
  }

  /**
   * Hands plain requests straight to `protocol`'s request handling, as its own routing would after
   * the response checks; a protocol layer without it (another SDK version) routes everything itself.
   */
  routeRequestsTo(protocol: object): void {
    const onrequest = (protocol as { _onrequest?: unknown })._onrequest;
    this.route = typeof onrequest === 'function' ? (onrequest as RequestRoute).bind(protocol) : undefined;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.out.write(serializeMessage(message))) resolve();
      else this.out.once('drain', resolve);
    });
  }
}
