/**
 * Loads a CommonJS bundle beside the launcher through V8's code cache, so a CLI process does not
 * parse and compile megabytes of JavaScript on every start (Node 20 has no module.enableCompileCache).
 *
 * The cache is one file per bundle, place, content and use:
 * `<bundle>[.<verb>]@<place>-<size>-<key>-<node>-<arch>.v8` (the place names the bundle's path, so
 * two installs of Waymark, say the extension's CLI and a global one, keep a cache each rather than
 * evicting each other's on every run; the key names the bundle's bytes, readBundle) in the
 * user's cache folder (`$WAYMARK_COMPILE_CACHE`, else `$XDG_CACHE_HOME/waymark/v8`, else
 * `~/.cache/waymark/v8`; `WAYMARK_COMPILE_CACHE=0` turns it off). A rebuilt bundle has another
 * name, and V8 itself rejects data made by another V8 or with other flags: then the bundle is
 * compiled from source as Node would, and the cache rewritten when the process exits. A folder that
 * cannot be read or written only costs the compile. Node built-ins only: the launcher stays small.
 *
 * The cache holds the functions the run that wrote it compiled, so it is kept per verb (`status`
 * and `sprint` run different code): each verb starts from the code it runs, not another verb's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as buffer from 'node:buffer';
import type ModuleType from 'node:module';
import type * as osModule from 'node:os';
import type * as vmModule from 'node:vm';
import type * as cryptoModule from 'node:crypto';

/**
 * Built-ins the hook's fast path never needs are required when a bundle is loaded, not before
 * (node:crypto alone costs a process several milliseconds to load).
 */
function builtin<T>(name: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in loaded on first use, see above
  return require(name) as T;
}

/** The folder the code cache lives in, or undefined when it is turned off. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.WAYMARK_COMPILE_CACHE;
  if (given !== undefined && given !== '') {
    if (given === '0' || given === 'off') return undefined;
    try {
      return path.resolve(given);
    } catch {
      // A relative folder and no current folder (removed under the shell): no cache this run.
      return undefined;
    }
  }
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'waymark', 'v8');
  let home: string;
  try {
    home = builtin<typeof osModule>('node:os').homedir();
  } catch {
    return undefined;
  }
  if (!home) return undefined;
  return process.platform === 'win32' && env.LOCALAPPDATA ? path.join(env.LOCALAPPDATA, 'waymark', 'v8') : path.join(home, '.cache', 'waymark', 'v8');
}

/** How long after its last change a bundle is named by its file's identity rather than its content. */
const SETTLED_NS = 10_000_000_000n;

/** What the bundle's text is wrapped in, as Node wraps a CommonJS module. */
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAP_TAIL = '\n})';

/**
 * The bundle's text, wrapped for compiling, and what names its bytes. The file is read into one
 * buffer between the wrapper's head and tail, and its `#!` line made a `//` comment in place (same
 * length, same lines): one string for V8 and no copies of a megabyte (a replace and a concatenation
 * each copied the whole text, and V8 flattened the result once more to compile it).
 * An installed bundle, unchanged for SETTLED_NS before and after it was read, is named by its inode
 * and change time (ctime: set by the kernel on every write, never copied from another file): no
 * hash of a megabyte, and no node:crypto, which a one-file verb otherwise never loads. A bundle
 * changed in the last seconds (a build) or while it was read, by the SHA-1 of its bytes: a rebuild
 * of the same length within one tick of a coarse clock still gets another name.
 */
function readBundle(file: string): { source: string; size: number; key: string } {
  const fd = fs.openSync(file, 'r');
  let whole: Buffer;
  let size = 0;
  let settled: string | undefined;
  try {
    const before = fs.fstatSync(fd, { bigint: true });
    const want = Number(before.size);
    whole = Buffer.allocUnsafe(WRAP_HEAD.length + want + WRAP_TAIL.length);
    whole.write(WRAP_HEAD, 0, 'latin1');
    while (size < want) {
      const n = fs.readSync(fd, whole, WRAP_HEAD.length + size, want - size, null);
      if (n === 0) break;
      size += n;
    }
    // A file that grew while it was read (a build writing it) is read to its end, as Node would.
    const more: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 16);
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      more.push(chunk.subarray(0, n));
    }
    if (more.length) {
      whole = Buffer.concat([whole.subarray(0, WRAP_HEAD.length + size), ...more, Buffer.alloc(WRAP_TAIL.length)]);
      size = whole.length - WRAP_HEAD.length - WRAP_TAIL.length;
    }
    const after = fs.fstatSync(fd, { bigint: true });
    const changed = after.ctimeNs > after.mtimeNs ? after.ctimeNs : after.mtimeNs;
    if (before.ctimeNs === after.ctimeNs && after.size === BigInt(size) && changed > 0n && BigInt(Date.now()) * 1_000_000n - changed > SETTLED_NS) {
      settled = `${after.ino.toString(16)}0${after.ctimeNs.toString(16)}`;
    }
  } finally {
    fs.closeSync(fd);
  }
  const bytes = whole.subarray(WRAP_HEAD.length, WRAP_HEAD.length + size);
  const key = settled ?? builtin<typeof cryptoModule>('node:crypto').createHash('sha1').update(bytes).digest('hex').slice(0, 16);
  if (bytes[0] === 0x23 && bytes[1] === 0x21) bytes.fill(0x2f, 0, 2);
  const text = whole.subarray(0, WRAP_HEAD.length + size + WRAP_TAIL.length);
  text.write(WRAP_TAIL, WRAP_HEAD.length + size, 'latin1');
  return { source: sourceText(text), size, key };
}

/** esbuild writes ASCII (non-ASCII characters escaped): one byte is one character, the cheap way. */
function sourceText(bytes: Buffer): string {
  const isAscii = (buffer as { isAscii?: (b: Buffer) => boolean }).isAscii;
  return isAscii?.(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Compiled code runs as the user: a cache folder that another user owns or may write to (a shared
 * /tmp given in WAYMARK_COMPILE_CACHE) is never read or written. A folder not made yet is ours to make.
 */
function privateDir(dir: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return true;
  }
  if (!st.isDirectory() || (st.mode & 0o022) !== 0) return false;
  return typeof process.getuid !== 'function' || st.uid === process.getuid();
}

/** A short name of the bundle's path (FNV-1a): no node:crypto, which a one-file verb never loads. */
export function placeOf(file: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * Writes the cache once, atomically (a reader sees the old file or the new one), and drops older
 * caches of the same bundle at the same place (and those named before places were, `<bundle>-…`).
 */
function saveCache(dir: string, bundle: string, name: string, file: string, data: Buffer): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    // Created exclusively, never through a link found at its name (the rename replaces a link at `file`).
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      fs.writeSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    const prefix = `${name}-`;
    const unplaced = `${bundle}-`;
    for (const other of fs.readdirSync(dir)) {
      if ((other.startsWith(prefix) || other.startsWith(unplaced)) && other.endsWith('.v8') && path.join(dir, other) !== file) fs.rmSync(path.join(dir, other), { force: true });
    }
  } catch {
    // A cache that cannot be written is only a slower start next time.
  }
  pruneCompileCache(dir);
}

/** How much of the cache is kept: the newest `keep` entries of each bundle and verb, at most `capBytes` in all, looked at once per `everyMs`. */
export interface CacheLimits {
  keep: number;
  capBytes: number;
  everyMs: number;
}

const CACHE_LIMITS: CacheLimits = { keep: 3, capBytes: 256 * 1024 * 1024, everyMs: 24 * 3600 * 1000 };
/** The file whose change time says when the cache was last pruned. */
const PRUNED_STAMP = '.pruned';
/** A temp file left by a process that died while writing (`<entry>.v8.<pid>.tmp`) is removed after this long. */
const STALE_TMP_MS = 3600 * 1000;

/**
 * Bounds the cache folder: each install place (a global CLI, the extension's, every upgrade of it)
 * keeps its own entries, and an upgrade leaves the last version's behind, so without this the
 * folder only grows. Runs only after a process wrote an entry (never on a verb's start) and then
 * at most once per `everyMs` (a stamp file's time): per bundle and verb (`cli-read.status`), the
 * newest `keep` entries by last use stay; then the oldest go until the whole is under `capBytes`.
 * Only regular files directly in the folder with the cache's own names are removed: a link, a
 * folder or another file is left as it is, and nothing is followed out of the folder.
 */
export function pruneCompileCache(dir: string, limits: Partial<CacheLimits> = {}): void {
  const { keep, capBytes, everyMs } = { ...CACHE_LIMITS, ...limits };
  const now = Date.now();
  try {
    const stamp = path.join(dir, PRUNED_STAMP);
    let last: fs.Stats | undefined;
    try {
      last = fs.lstatSync(stamp);
    } catch {
      last = undefined;
    }
    if (last && (!last.isFile() || now - last.mtimeMs < everyMs)) return;
    // Stamped first: a second process exiting at the same moment finds it and does nothing.
    const fd = fs.openSync(stamp, fs.constants.O_WRONLY | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      fs.futimesSync(fd, now / 1000, now / 1000);
    } finally {
      fs.closeSync(fd);
    }
    const entries: { file: string; group: string; used: number; size: number }[] = [];
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const name = d.name;
      if (!d.isFile()) continue;
      const tmp = /\.v8\.\d+\.tmp$/.test(name);
      if (!tmp && !name.endsWith('.v8')) continue;
      const file = path.join(dir, name);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(file);
      } catch {
        continue;
      }
      if (!st.isFile()) continue;
      if (tmp) {
        if (now - st.mtimeMs > STALE_TMP_MS) fs.rmSync(file, { force: true });
        continue;
      }
      const at = name.indexOf('@');
      const group = at > 0 ? name.slice(0, at) : name.replace(/-\d+-.*$/, '');
      // Last use: reading an entry moves its access time (relatime: at least daily), writing its change time.
      entries.push({ file, group, used: Math.max(st.atimeMs, st.mtimeMs), size: st.size });
    }
    entries.sort((a, b) => b.used - a.used);
    const seen = new Map<string, number>();
    let bytes = 0;
    for (const e of entries) {
      const n = (seen.get(e.group) ?? 0) + 1;
      seen.set(e.group, n);
      if (n > keep || bytes + e.size > capBytes) fs.rmSync(e.file, { force: true });
      else bytes += e.size;
    }
  } catch {
    // A cache that cannot be pruned is pruned another time.
  }
}

/**
 * Keeps V8's young generation at its first size (1 MB a semi-space) for the rest of the process.
 * A one-shot verb allocates tens of MB, most of it dead at the next scavenge; left to V8, the
 * young generation grows to 16 MB a semi-space, and on a VM every fresh page is a page fault that
 * costs CPU (~15-27 µs each here): a first `validate` of 400 stories touched ~12 MB less with
 * it, and its first `sprint` ~10 MB; a 2,000-story `validate` gains nothing (+4 % faults: what
 * it keeps is promoted to old space either way; docs/measurements.md, session 31, first31). Set
 * before any bundle is compiled, since V8 names its code cache by its flags. Not for a
 * long-running process (the MCP server).
 */
export function keepYoungGenerationSmall(): void {
  builtin<typeof import('node:v8')>('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * `require(file)` for a bundle, compiled with the code cache when there is one. Same module
 * semantics as Node's loader: `module`, `exports`, `require` resolving beside the bundle,
 * `__filename`, `__dirname`, one instance in `require.cache`.
 */
export function loadBundle<T>(file: string, use?: string, env: NodeJS.ProcessEnv = process.env): T {
  const dir = compileCacheDir(env);
  const cached = require.cache[file];
  // Source maps need Node's own loader; so does a process without a cache folder.
  if (cached || !dir || process.sourceMapsEnabled || !privateDir(dir)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's own loader, with a path known only at run time
    return require(file) as T;
  }
  const { source, size, key } = readBundle(file);
  const name = path.basename(file, '.js');
  const variant = use === undefined ? '' : /^[a-z][a-z0-9-]{0,39}$/.test(use) ? `.${use}` : '.other';
  const placed = `${name}${variant}@${placeOf(file)}`;
  const cacheFile = path.join(dir, `${placed}-${size}-${key}-${process.version}-${process.arch}.v8`);
  const cachedData = readIfThere(cacheFile);
  const vm = builtin<typeof vmModule>('node:vm');
  const script = new vm.Script(source, {
    filename: file,
    cachedData,
    // The bundles make no dynamic import(); were one added, it resolves as in a normal module.
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (!cachedData || script.cachedDataRejected) {
    // At exit, so the functions this run compiled are in the cache too.
    process.once('exit', () => saveCache(dir, `${name}${variant}`, placed, cacheFile, script.createCachedData()));
  }
  const Module = builtin<typeof ModuleType>('node:module');
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  require.cache[file] = mod;
  try {
    const wrapper = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: ModuleType, f: string, d: string) => void;
    wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  } catch (e) {
    delete require.cache[file];
    throw e;
  }
  mod.loaded = true;
  return mod.exports as T;
}

