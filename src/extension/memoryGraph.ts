// The knowledge-graph picture of one workflow: a radial SVG in a webview (no scripts).
import type { EntityRecord, MemoryRecord, RelationRecord } from '../core/index';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A radial SVG: the workflow in the middle, related entities around it, memories on the rim. */
export function graphHtml(center: string, entities: EntityRecord[], relations: RelationRecord[], memories: { memory: MemoryRecord; entity: string }[], cspSource: string): string {
  const W = 900;
  const H = 700;
  const cx = W / 2;
  const cy = H / 2;
  const pos = new Map<string, [number, number]>();
  pos.set(center, [cx, cy]);
  const others = entities.filter((e) => e.id !== center);
  others.forEach((e, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, others.length);
    pos.set(e.id, [cx + 180 * Math.cos(a), cy + 180 * Math.sin(a)]);
  });
  const mems = memories.slice(0, 60);
  const parts: string[] = [];
  for (const r of relations) {
    const a = pos.get(r.from);
    const b = pos.get(r.to);
    if (!a || !b) continue;
    parts.push(`<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}" class="rel"/><text x="${(a[0] + b[0]) / 2}" y="${(a[1] + b[1]) / 2}" class="rl">${esc(r.relation)}</text>`);
  }
  mems.forEach(({ memory, entity }, i) => {
    const p = pos.get(entity);
    if (!p) return;
    const a = (2 * Math.PI * i) / Math.max(1, mems.length);
    const x = cx + 310 * Math.cos(a);
    const y = cy + 300 * Math.sin(a);
    parts.push(`<line x1="${p[0]}" y1="${p[1]}" x2="${x}" y2="${y}" class="about"/><circle cx="${x}" cy="${y}" r="6" class="m ${memory.type}"><title>${esc(`${memory.type}: ${memory.text}`)}</title></circle>`);
  });
  for (const e of [...others, entities.find((x) => x.id === center) ?? { id: center, kind: 'workflow', name: center.slice(center.indexOf(':') + 1), createdAt: '' }]) {
    const p = pos.get(e.id)!;
    const r = e.id === center ? 26 : 16;
    parts.push(`<circle cx="${p[0]}" cy="${p[1]}" r="${r}" class="e ${esc(String(e.kind))}"><title>${esc(e.id)}</title></circle><text x="${p[0]}" y="${p[1] + r + 12}" class="el">${esc(e.name.length > 40 ? '…' + e.name.slice(-39) : e.name)}</text>`);
  }
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  // A memory about several entities appears once per entity: count each memory once.
  const counts = { decision: 0, learning: 0, summary: 0 };
  const counted = new Set<string>();
  for (const m of memories) {
    if (counted.has(m.memory.id)) continue;
    counted.add(m.memory.id);
    counts[m.memory.type]++;
  }
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)} .rel{stroke:var(--vscode-charts-blue);stroke-width:1.5} .about{stroke:var(--vscode-editorWidget-border,#888);stroke-dasharray:2 3}
.e{fill:var(--vscode-charts-blue);opacity:.85} .e.workflow{fill:var(--vscode-charts-purple)} .e.step{fill:var(--vscode-charts-green)} .e.file{fill:var(--vscode-charts-orange)} .e.agent{fill:var(--vscode-charts-yellow)}
.m.decision{fill:var(--vscode-charts-red)} .m.learning{fill:var(--vscode-charts-yellow)} .m.summary{fill:var(--vscode-charts-green)} text{fill:var(--vscode-foreground);font-size:11px;text-anchor:middle} .rl{font-size:9px;opacity:.7}</style></head>
<body><p>${esc(center)}: ${n(entities.length, 'entity', 'entities')}, ${n(counts.decision, 'decision')}, ${n(counts.learning, 'learning')}, ${n(counts.summary, 'summary', 'summaries')}${memories.length > mems.length ? ` (showing ${mems.length} memories)` : ''}. Hover a dot for its text.</p>
<svg width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="Knowledge neighbourhood of ${esc(center)}">${parts.join('')}</svg></body></html>`;
}
