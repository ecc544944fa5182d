/**
 * A `file://` URI as the file it names, for every face that takes a path from an agent (the MCP
 * tools, the agent hooks): node built-ins only, so the hook bundles stay small. Both faces once
 * disagreed: the hooks read `file:///w/docs/plan.md` as that file, the MCP tools as a relative name
 * `file:/w/docs/plan.md` inside the workspace.
 */

/** True when `raw` is a `file:` URI with an authority (`file://…`, any case). */
export function isFileUri(raw: string): boolean {
  return /^file:\/\//i.test(raw);
}

/**
 * The local path a `file://` URI names (percent escapes decoded); undefined when `raw` is no such
 * URI. Throws (a plain Error saying why) for one that names no local file: another host
 * (`file://server/share`), an encoded separator (`%2F`).
 */
export function fileUriPath(raw: string): string | undefined {
  if (!isFileUri(raw)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a URI: most paths are plain
  return (require('node:url') as typeof import('node:url')).fileURLToPath(raw);
}
