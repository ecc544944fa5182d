// The MCP server's stdio transport: the SDK's, with the costs of every message taken out.
// - The SDK checks each line against its whole JSON-RPC message schema (a zod union) before the
//   protocol layer parses it again against the response schemas, to tell a request from a
//   response; each failed parse builds a zod error, an Error subclass that captures a stack trace.
//   A request as clients send it (`plainRequest`: the keys of a request and nothing else, no
//   `_meta`) is one both would let through unchanged: it skips them. Anything else takes the SDK's
//   own way, with stack traces off while the protocol layer routes it (nothing reads them).
// - A plain request whose method the server answers itself (`answerDirectly`: tools/call) goes to
//   its handler with no protocol machinery (an abort controller, a context of callbacks, the
//   layer's parse of the request: Waymark's tools take none of them and check their own input);
//   other plain requests go to the layer's request handling (`routeRequestsTo`).
//   They were more than half of the server's CPU for a status answered from the warm model (a new
//   server, 1,000 calls: 0.33–0.45 ms a call before, 0.15–0.20 after), most of it code V8 had not
//   optimised yet, so an agent's first calls paid the most for them.
// - An answer repeated from the warm model is the same result object: its JSON is made once and
//   the response is written around it, byte for byte what JSON.stringify of the message gives; a
//   tool's result is made from its answer's text (structuredResult), not serialised again.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

/** Results never changed once made (answers kept by the warm model), with their JSON once sent (or what makes it). */
const reusable = new WeakMap<object, string | (() => string) | undefined>();

/** Marks `result` as never changed again: its JSON is made once, on its first send. */
export function reuseResult<T extends object>(result: T): T {
  if (!reusable.has(result)) reusable.set(result, undefined);
  return result;
}

/** A tool's result: its structured content and, as its one text block, that content's JSON. */
// A type, not an interface: it is assignable where the SDK's result types want an index signature.
export type StructuredResult = {
  content: [{ type: 'text'; text: string }];
  structuredContent: Record<string, unknown>;
};

/**
 * The result for a tool's answer whose `text` is `JSON.stringify(structured)` (how every answer's
 * text is made): marked never changed again, and its JSON made from the text when first sent,
 * `structured` not serialised a second time (nested or not, JSON.stringify gives it the same
 * bytes). A write's answer (several KB for a long workflow) was serialised twice before: once for
 * its text, once inside the response.
 */
export function structuredResult(text: string, structured: Record<string, unknown>): StructuredResult {
  const result: StructuredResult = { content: [{ type: 'text', text }], structuredContent: structured };
  reusable.set(result, () => `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`);
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
      if (typeof json !== 'string') reusable.set(result, (json = json ? json() : JSON.stringify(result)));
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

/**
 * Answers a plain request's params with the result to send, or undefined to leave the request to
 * the protocol layer (params it does not take: the layer answers them as it would any request).
 */
export type DirectHandler = (params: Record<string, unknown> | undefined) => Promise<object> | undefined;

/** The SDK's own limit on a line not yet ended (its ReadBuffer's default). */
const MAX_BUFFERED = 10 * 1024 * 1024;

export class McpStdioTransport extends StdioServerTransport {
  private readonly out: Writable;
  private route?: RequestRoute;
  private readonly direct = new Map<string, DirectHandler>();
  /** The start of a line whose end has not arrived yet. */
  private partial?: Buffer;
  /** Closed: lines still in hand are dropped, as the SDK's cleared ReadBuffer drops them. */
  private closed = false;

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    super(stdin, stdout);
    this.out = stdout;
    // Lines are read here instead of by the SDK's ReadBuffer, which parses each one against the
    // whole message schema; start() and close() (un)register this property as the SDK's own.
    this._ondata = (chunk) => this.read(chunk);
  }

  private read(chunk: Buffer): void {
    const buffer = this.partial ? Buffer.concat([this.partial, chunk]) : chunk;
    this.partial = undefined;
    let start = 0;
    for (let end = buffer.indexOf(10); end !== -1 && !this.closed; end = buffer.indexOf(10, start)) {
      const line = buffer.toString('utf8', start, end > start && buffer[end - 1] === 13 ? end - 1 : end);
      start = end + 1;
      this.receive(line);
    }
    if (start < buffer.length && !this.closed) {
      if (buffer.length - start > MAX_BUFFERED) {
        this.onerror?.(new Error(`A message longer than ${MAX_BUFFERED} bytes without its end of line; closing.`));
        this.close().catch(() => undefined);
        return;
      }
      this.partial = buffer.subarray(start);
    }
  }

  /** One line: JSON, then its way (the server's own handler, the layer's request handling, or the SDK's checks). */
  private receive(line: string): void {
    let message: unknown;
    try {
      try {
        message = JSON.parse(line);
      } catch (e) {
        // JSON-RPC 2.0: a line that is not JSON is answered with a parse error (id null); a blank line is nothing.
        if (!line.trim()) return;
        this.sendRaw({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${e instanceof Error ? e.message : String(e)}` } });
        // Still the server's error too (it logs it), as before the answer was sent.
        this.onerror?.(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      if (!message || typeof message !== 'object' || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
        // Valid JSON but no JSON-RPC 2.0 message (a number, a batch, no jsonrpc member): an invalid request, answered to its id when it has one.
        const id = (message as { id?: unknown } | null)?.id;
        this.sendRaw({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code: -32600, message: 'Invalid Request: one JSON-RPC 2.0 message (an object with "jsonrpc": "2.0") a line' } });
        this.onerror?.(new Error('Invalid Request: a line that is JSON but no JSON-RPC 2.0 message'));
        return;
      }
      if (plainRequest(message)) {
        const request = message;
        const answered = this.direct.get(request.method)?.(request.params);
        if (answered) return this.reply(request.id, answered);
        const route = this.route;
        if (route) return this.routed(() => route(request));
      }
      // What the SDK's ReadBuffer does with every line: its message schema, then the protocol layer.
      const checked = JSONRPCMessageSchema.parse(message);
      this.routed(() => this.onmessage?.(checked));
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Runs the protocol layer's routing with stack traces off: its failed parses build errors nobody reads. */
  private routed(run: () => void): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      run();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  /** Sends the result, or the error the protocol layer would send for a handler that threw. */
  private reply(id: string | number, answered: Promise<object>): void {
    answered.then(
      (result) => this.send({ result, jsonrpc: '2.0', id } as JSONRPCMessage),
      (e: { code?: unknown; message?: unknown }) => this.send({ jsonrpc: '2.0', id, error: { code: Number.isSafeInteger(e?.code) ? (e.code as number) : ErrorCode.InternalError, message: typeof e?.message === 'string' ? e.message : 'Internal error' } }),
    ).catch((e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))));
  }

  /**
   * Answers plain requests of `method` with `handler`, without the protocol layer (whose own
   * handler for the method stays, for the requests `handler` leaves to it).
   */
  answerDirectly(method: string, handler: DirectHandler): void {
    this.direct.set(method, handler);
  }

  /**
   * Hands plain requests straight to `protocol`'s request handling, as its own routing would after
   * the response checks; a protocol layer without it (another SDK version) routes everything itself.
   */
  routeRequestsTo(protocol: object): void {
    const onrequest = (protocol as { _onrequest?: unknown })._onrequest;
    this.route = typeof onrequest === 'function' ? (onrequest as RequestRoute).bind(protocol) : undefined;
  }

  override close(): Promise<void> {
    this.closed = true;
    this.partial = undefined;
    return super.close();
  }

  /** A JSON-RPC error the SDK's message type cannot say (id null). */
  private sendRaw(message: object): void {
    this.out.write(JSON.stringify(message) + '\n');
  }

  override send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.out.write(serializeMessage(message))) resolve();
      else this.out.once('drain', resolve);
    });
  }
}
