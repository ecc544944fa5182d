// Opens a VSIX (a zip) and says what is wrong with it for its target: a native binary of another
// platform, more than one native binary, a source file, a missing entry point. Reads the zip's
// central directory itself so it runs wherever Node runs (no `unzip` needed).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

/** The Kuzu prebuilt binary of each VS Code target. */
export const KUZU_TARGETS = {
  'linux-x64': 'kuzujs-linux-x64.node',
  'linux-arm64': 'kuzujs-linux-arm64.node',
  'darwin-x64': 'kuzujs-darwin-x64.node',
  'darwin-arm64': 'kuzujs-darwin-arm64.node',
  'win32-x64': 'kuzujs-win32-x64.node',
};

/** Entries of a zip file: name, compression method, sizes and where the data lies. */
export function readZip(file) {
  const buf = readFileSync(file);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error(`${file}: not a zip file (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${file}: corrupt central directory`);
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    entries.push({ name, method, compressed, size, local });
    p += 46 + nameLen + extraLen + commentLen;
  }
  const data = (e) => {
    const start = e.local + 30 + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
    const raw = buf.subarray(start, start + e.compressed);
    return e.method === 0 ? raw : inflateRawSync(raw);
  };
  return { entries, data };
}

export function listVsix(file) {
  return readZip(file).entries.map((e) => e.name);
}

/** Problems of one package for one target ('universal' holds no native binary at all). */
export function checkVsix(file, target, repo) {
  const { entries, data } = readZip(file);
  const problems = [];
  const names = entries.map((e) => e.name);
  // Every bundle esbuild makes for the CLI (the launcher loads its siblings at run time).
  const bundles = readdirSync(join(repo, 'dist')).filter((n) => /^cli(-[\w]+)?\.js$/.test(n)).map((n) => `extension/dist/${n}`);
  for (const must of ['extension/package.json', 'extension/dist/extension.js', ...bundles]) {
    if (!names.includes(must)) problems.push(`missing ${must}`);
  }
  const natives = entries.filter((e) => /\.(node|dll|so|dylib)$/i.test(e.name));
  if (target === 'universal') {
    for (const e of natives) problems.push(`native binary in the universal package: ${e.name}`);
  } else {
    const expected = readFileSync(join(repo, 'node_modules', 'kuzu', 'prebuilt', KUZU_TARGETS[target]));
    const want = createHash('sha256').update(expected).digest('hex');
    const own = natives.filter((e) => e.name === 'extension/dist/node_modules/kuzu/kuzujs.node');
    if (own.length !== 1) problems.push(`no Kuzu binary at extension/dist/node_modules/kuzu/kuzujs.node`);
    for (const e of natives) {
      if (own.includes(e)) {
        const got = createHash('sha256').update(data(e)).digest('hex');
        if (got !== want) problems.push(`${e.name} is not Kuzu's ${target} binary (${KUZU_TARGETS[target]})`);
      } else problems.push(`foreign native binary: ${e.name}`);
    }
  }
  for (const n of names) {
    if (/\.(ts|tsx|map)$/.test(n) && !n.endsWith('.d.ts')) problems.push(`source file in the package: ${n}`);
    if (/(^|\/)(src|test|node_modules\/kuzu\/kuzu-source|\.git)\//.test(n.replace(/^extension\//, ''))) problems.push(`not a runtime file: ${n}`);
  }
  // The target recorded in the manifest must be the package's own.
  const manifest = entries.find((e) => e.name === 'extension.vsixmanifest');
  if (manifest) {
    const xml = data(manifest).toString('utf8');
    const m = /TargetPlatform="([^"]+)"/.exec(xml);
    if (target === 'universal' ? m : m?.[1] !== target) problems.push(`manifest target is ${m?.[1] ?? 'none'}, expected ${target === 'universal' ? 'none' : target}`);
  }
  return problems;
}
