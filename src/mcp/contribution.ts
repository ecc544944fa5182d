// The `languageModelTools` contribution of package.json, derived from the tool table so the
// VS Code tools and the MCP tools cannot drift apart (scripts/lmTools.mjs writes it; a unit
// test checks it).
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { TOOLS } from './tools';

/** The input schema as the MCP server lists it, without `$schema` (VS Code's own validator adds none). */
export function inputJsonSchema(name: string): Record<string, unknown> {
  const t = TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  const { $schema: _ignored, ...schema } = toJsonSchemaCompat(t.input as unknown as Parameters<typeof toJsonSchemaCompat>[0], { strictUnions: true, pipeStrategy: 'input' }) as Record<string, unknown>;
  return schema;
}

export function languageModelToolsContribution(): Record<string, unknown>[] {
  return TOOLS.map((t) => ({
    name: t.name,
    displayName: `Waymark: ${t.title}`,
    toolReferenceName: t.referenceName,
    canBeReferencedInPrompt: true,
    icon: '$(milestone)',
    tags: ['waymark', 'workflow', t.annotations.readOnlyHint ? 'read' : 'write'],
    userDescription: t.description.split('. ')[0].replace(/\.$/, '') + '.',
    modelDescription: t.description,
    inputSchema: inputJsonSchema(t.name),
    // Restricted Mode: only the read-only tools are offered (the write tools also refuse at run time).
    ...(t.annotations.readOnlyHint ? {} : { when: 'isWorkspaceTrusted' }),
  }));
}
