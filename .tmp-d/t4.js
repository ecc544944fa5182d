var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// src/core/memory/kuzuStore.ts
var fs = __toESM(require("node:fs"));
var os = __toESM(require("node:os"));
var path = __toESM(require("node:path"));

// src/core/errors.ts
var WaymarkError = class _WaymarkError extends Error {
  constructor(reason, message, file, data) {
    super(message);
    this.reason = reason;
    this.file = file;
    this.data = data;
  }
  name = "WaymarkError";
  static is(e, reason) {
    return e instanceof _WaymarkError && (reason === void 0 || e.reason === reason);
  }
};
function errorMessage(e) {
  return e instanceof Error ? e.message : String(e);
}

// src/core/memory/links.ts
var entityId = {
  workflow: (rel) => `workflow:${rel}`,
  step: (rel, step) => `step:${rel}#${step}`,
  file: (rel) => `file:${rel}`,
  agent: (name) => `agent:${name}`,
  session: (id) => `session:${id}`,
  component: (name) => `component:${name}`
};
function entityKindOf(id) {
  const i = id.indexOf(":");
  return i > 0 ? id.slice(0, i) : "component";
}
function entityName(id) {
  const i = id.indexOf(":");
  return i > 0 ? id.slice(i + 1) : id;
}
function normalizeEntityId(id) {
  return /^[a-z]+:/.test(id) ? id : entityId.component(id);
}
function memoryLinks(rec) {
  const out = [];
  const s = rec.source ?? {};
  if (s.workflow) out.push([entityId.workflow(s.workflow), "workflow"]);
  if (s.workflow && s.step) out.push([entityId.step(s.workflow, s.step), "step"]);
  if (s.agent) out.push([entityId.agent(s.agent), "agent"]);
  if (s.session) out.push([entityId.session(s.session), "session"]);
  for (const e of rec.entities ?? []) out.push([normalizeEntityId(e), "mentions"]);
  const seen = /* @__PURE__ */ new Set();
  return out.filter(([id]) => seen.has(id) ? false : (seen.add(id), true));
}
function impliedGraph(rec) {
  const links = memoryLinks(rec);
  const entities = links.map(([id]) => ({ id, kind: entityKindOf(id), name: entityName(id), createdAt: rec.createdAt }));
  const relations = [];
  const s = rec.source ?? {};
  if (s.workflow) {
    const wf = entityId.workflow(s.workflow);
    if (s.step) relations.push({ from: entityId.step(s.workflow, s.step), to: wf, relation: "step_of" });
    if (s.agent) relations.push({ from: entityId.agent(s.agent), to: wf, relation: "worked_on" });
    for (const e of rec.entities ?? []) {
      const id = normalizeEntityId(e);
      relations.push({ from: id, to: s.step ? entityId.step(s.workflow, s.step) : wf, relation: entityKindOf(id) === "file" ? "touched_by" : "used_by" });
    }
  }
  return { entities, relations };
}
var TYPE_WEIGHT = {
  decision: 1,
  "learning:error": 0.9,
  "learning:security": 0.95,
  "learning:fix": 0.85,
  "learning:gotcha": 0.8,
  "learning:preference": 0.8,
  "learning:pattern": 0.7,
  learning: 0.7,
  "learning:observation": 0.5,
  summary: 0.6
};
function typeWeight(rec) {
  return TYPE_WEIGHT[`${rec.type}:${rec.category ?? ""}`] ?? TYPE_WEIGHT[rec.type] ?? 0.5;
}
var HALF_LIFE_DAYS = 30;
function scoreItem(rec, distance, textScore2, now) {
  const proximity = distance === void 0 ? 0 : 3 / (1 + distance);
  const ageDays = Math.max(0, (now - Date.parse(rec.createdAt)) / 864e5);
  const recency = Number.isFinite(ageDays) ? Math.pow(0.5, ageDays / HALF_LIFE_DAYS) : 0;
  return Math.round((proximity + 2 * textScore2 + typeWeight(rec) + recency) * 1e3) / 1e3;
}
function textScore(rec, words) {
  if (!words.length) return 0;
  const hay = `${rec.title ?? ""}
${rec.text}
${rec.rationale ?? ""}
${(rec.tags ?? []).join(" ")}`.toLowerCase();
  let n = 0;
  for (const w of words) if (hay.includes(w)) n++;
  return n / words.length;
}
function queryWords(text) {
  if (!text) return [];
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}_.#/-]+/u).filter((w) => w.length > 1))].slice(0, 12);
}
function sortRecall(items, limit) {
  items.sort((a, b) => b.score - a.score || b.memory.createdAt.localeCompare(a.memory.createdAt) || a.memory.id.localeCompare(b.memory.id));
  return items.slice(0, limit);
}

// src/core/memory/kuzuStore.ts
var defaultKuzuLoader = () => {
  const forced = process.env.WAYMARK_MEMORY_ENGINE;
  if (forced === "journal" || forced === "none") throw new Error(`Kuzu disabled by WAYMARK_MEMORY_ENGINE=${forced}`);
  return require("kuzu");
};
var MEMORY_TABLES = { learning: "Learning", decision: "Decision", summary: "Summary" };
var COMMON_COLS = "id STRING PRIMARY KEY, category STRING, title STRING, text STRING, createdAt INT64, tier INT64, workflow STRING, step STRING, session STRING, agent STRING, origin STRING, entities STRING, tags STRING";
var EXTRA_COLS = {
  learning: [],
  decision: ["rationale", "alternatives", "decidedBy", "supersedes"],
  summary: ["consolidates"]
};
var COMMON_NAMES = ["id", "category", "title", "text", "createdAt", "tier", "workflow", "step", "session", "agent", "origin", "entities", "tags"];
var MIGRATIONS = [
  {
    version: 1,
    statements: [
      "CREATE NODE TABLE IF NOT EXISTS Meta(key STRING PRIMARY KEY, value STRING)",
      `CREATE NODE TABLE IF NOT EXISTS Learning(${COMMON_COLS})`,
      `CREATE NODE TABLE IF NOT EXISTS Decision(${COMMON_COLS}, rationale STRING, alternatives STRING, decidedBy STRING, supersedes STRING)`,
      `CREATE NODE TABLE IF NOT EXISTS Summary(${COMMON_COLS}, consolidates STRING)`,
      "CREATE NODE TABLE IF NOT EXISTS Entity(id STRING PRIMARY KEY, kind STRING, name STRING, createdAt INT64)",
      "CREATE REL TABLE IF NOT EXISTS ABOUT(FROM Learning TO Entity, FROM Decision TO Entity, FROM Summary TO Entity, role STRING)",
      "CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, relation STRING)",
      "CREATE REL TABLE IF NOT EXISTS SUPERSEDES(FROM Decision TO Decision)"
    ]
  },
  {
    // v2: tier-2 consolidation links summaries to the observations they fold in.
    version: 2,
    statements: ["CREATE REL TABLE IF NOT EXISTS CONSOLIDATES(FROM Summary TO Learning)", "ALTER TABLE Learning ADD consolidated BOOLEAN DEFAULT false"]
  }
];
var SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
function kuzuFailure(e, dbFile) {
  if (WaymarkError.is(e)) return e;
  const msg = errorMessage(e);
  if (/could not set lock/i.test(msg)) return new WaymarkError("locked", `memory database is in use by another process (${dbFile})`, dbFile, { cause: "locked" });
  if (/not a valid kuzu database|corrupt|checksum|invalid .*file|wal/i.test(msg)) return new WaymarkError("unavailable", `memory database is unreadable (corrupt?): ${msg.split("\n")[0]}. Run 'waymark memory rebuild' to rebuild it from the journal.`, dbFile, { cause: "corrupt" });
  return new WaymarkError("unavailable", `memory database cannot be opened: ${msg.split("\n")[0]}`, dbFile, { cause: "error" });
}
async function openKuzuStore(dbFile, options = {}) {
  let kuzu;
  try {
    kuzu = (options.loader ?? defaultKuzuLoader)();
  } catch (e) {
    throw new WaymarkError("unavailable", `Kuzu cannot load: ${errorMessage(e).split("\n")[0]}`, dbFile, { cause: "unavailable" });
  }
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  const deadline = Date.now() + (options.waitMs ?? 2e3);
  let delay = 10;
  for (; ; ) {
    let db;
    try {
      db = new kuzu.Database(dbFile, options.bufferManagerSize ?? 64 * 1024 * 1024);
      await db.init();
      const conn = new kuzu.Connection(db, 1);
      await conn.init();
      const store = new KuzuStore(db, conn, dbFile);
      try {
        await store.migrate(options.targetVersion ?? SCHEMA_VERSION);
      } catch (e) {
        await store.close();
        throw e;
      }
      return store;
    } catch (e) {
      if (db) {
        try {
          await db.close();
        } catch {
        }
      }
      const err = kuzuFailure(e, dbFile);
      if (err.data?.cause !== "locked" || Date.now() + delay > deadline) throw err;
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 100);
    }
  }
}
function csvField(v) {
  const s = v === void 0 || v === null ? "" : String(v);
  return `"${s.replace(/"/g, '""')}"`;
}
var KuzuStore = class {
  constructor(db, conn, file) {
    this.db = db;
    this.conn = conn;
    this.file = file;
  }
  engine = "kuzu";
  prepared = /* @__PURE__ */ new Map();
  closed = false;
  tmpDir;
  /** Runs one statement; every result is read and closed before returning. */
  async run(sql, params) {
    if (this.closed) throw new WaymarkError("unavailable", "memory database is closed");
    let res;
    if (params) {
      let ps = this.prepared.get(sql);
      if (!ps) {
        ps = await this.conn.prepare(sql);
        if (!ps.isSuccess()) throw new Error(ps.getErrorMessage());
        this.prepared.set(sql, ps);
      }
      res = await this.conn.execute(ps, params);
    } else {
      res = await this.conn.query(sql);
    }
    const list2 = Array.isArray(res) ? res : [res];
    let rows = [];
    try {
      for (const r of list2) rows = await r.getAll();
    } finally {
      for (const r of list2) r.close();
    }
    return rows;
  }
  async schemaVersion() {
    const tables = await this.run("CALL show_tables() RETURN name");
    if (!tables.some((t) => t.name === "Meta")) return 0;
    const rows = await this.run("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v");
    return rows.length ? Number(rows[0].v) : 0;
  }
  async migrate(target = SCHEMA_VERSION) {
    const current = await this.schemaVersion();
    if (current > SCHEMA_VERSION) {
      throw new WaymarkError("unavailable", `memory database has schema v${current}, newer than this Waymark (v${SCHEMA_VERSION}); update Waymark`, this.file, { cause: "newer-schema" });
    }
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > target) continue;
      for (const s of m.statements) await this.run(s);
      await this.setMeta("schemaVersion", String(m.version));
    }
  }
  async getMeta(key) {
    const rows = await this.run("MATCH (m:Meta {key: $k}) RETURN m.value AS v", { k: key });
    return rows.length ? String(rows[0].v) : void 0;
  }
  async setMeta(key, value) {
    await this.run("MERGE (m:Meta {key: $k}) SET m.value = $v", { k: key, v: value });
  }
  async has(ids) {
    const out = /* @__PURE__ */ new Set();
    if (!ids.length) return out;
    for (const table of Object.values(MEMORY_TABLES)) {
      for (let i = 0; i < ids.length; i += 5e3) {
        const rows = await this.run(`MATCH (m:${table}) WHERE m.id IN $ids RETURN m.id AS id`, { ids: ids.slice(i, i + 5e3) });
        for (const r of rows) out.add(String(r.id));
      }
    }
    return out;
  }
  async existingEntities(ids) {
    const out = /* @__PURE__ */ new Set();
    for (let i = 0; i < ids.length; i += 5e3) {
      const rows = await this.run("MATCH (e:Entity) WHERE e.id IN $ids RETURN e.id AS id", { ids: ids.slice(i, i + 5e3) });
      for (const r of rows) out.add(String(r.id));
    }
    return out;
  }
  csvDir() {
    if (!this.tmpDir) this.tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-kuzu-copy-"));
    return this.tmpDir;
  }
  /** COPY rows into a table through a CSV file (the bulk path; 10k rows in well under a second). */
  async copyRows(table, cols, rows, relPair) {
    const file = path.join(this.csvDir(), `${table}-${Date.now()}-${Math.random().toString(36).slice(2)}.csv`);
    const body = rows.map((r) => r.map(csvField).join(",")).join("\n");
    fs.writeFileSync(file, `${cols.join(",")}
${body}
`);
    try {
      const opts = relPair ? `, from='${relPair[0]}', to='${relPair[1]}'` : "";
      if (process.env.DBG) console.log("COPY", table, fs.readFileSync(file, "utf8").split("\n").slice(0,3));
      await this.run(`COPY ${table} FROM '${file.replace(/\\/g, "/").replace(/'/g, "\\'")}' (HEADER=true, PARALLEL=false${opts})`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }
  async ingest(ops) {
    const mems = /* @__PURE__ */ new Map();
    const forget = [];
    const ents = /* @__PURE__ */ new Map();
    const rels = /* @__PURE__ */ new Map();
    const addRel = (r) => rels.set(`${r.from}\0${r.to}\0${r.relation}`, r);
    for (const op of ops) {
      if (op.op === "memory") {
        if (!MEMORY_TABLES[op.rec.type] || mems.has(op.rec.id)) continue;
        mems.set(op.rec.id, op.rec);
      } else if (op.op === "entity") {
        if (!ents.has(op.rec.id)) ents.set(op.rec.id, op.rec);
      } else if (op.op === "forget") {
        forget.push(...op.rec.ids);
      } else if (op.op === "relate") {
        for (const id of [op.rec.from, op.rec.to]) {
          if (!ents.has(id)) ents.set(id, { id, kind: id.includes(":") ? id.slice(0, id.indexOf(":")) : "component", name: id.slice(id.indexOf(":") + 1), createdAt: (/* @__PURE__ */ new Date(0)).toISOString() });
        }
        addRel(op.rec);
      }
    }
    const existing = await this.has([...mems.keys()]);
    const fresh = [...mems.values()].filter((m) => !existing.has(m.id));
    const links = [];
    for (const m of fresh) {
      const g = impliedGraph(m);
      for (const e of g.entities) if (!ents.has(e.id)) ents.set(e.id, e);
      for (const r of g.relations) addRel(r);
      for (const [e, role] of memoryLinks(m)) links.push({ m: m.id, e, role, table: MEMORY_TABLES[m.type] });
    }
    const known = await this.existingEntities([...ents.keys()]);
    const newEnts = [...ents.values()].filter((e) => !known.has(e.id));
    if (newEnts.length >= 200) {
      await this.copyRows("Entity", ["id", "kind", "name", "createdAt"], newEnts.map((e) => [e.id, e.kind, e.name, Date.parse(e.createdAt) || 0]));
    } else if (newEnts.length) {
      await this.run("UNWIND $rows AS r CREATE (:Entity {id: r.id, kind: r.kind, name: r.name, createdAt: r.createdAt})", {
        rows: newEnts.map((e) => ({ id: e.id, kind: String(e.kind), name: e.name, createdAt: Date.parse(e.createdAt) || 0 }))
      });
    }
    for (const type of Object.keys(MEMORY_TABLES)) {
      const batch = fresh.filter((m) => m.type === type);
      if (!batch.length) continue;
      const table = MEMORY_TABLES[type];
      const cols = [...COMMON_NAMES, ...EXTRA_COLS[type]];
      const rows = batch.map((m) => toRow(m));
      if (batch.length >= 200) {
        await this.copyRows(table, cols, rows.map((r) => cols.map((c) => r[c])));
      } else {
        const assign = cols.map((c) => `${c}: r.${c}`).join(", ");
        await this.run(`UNWIND $rows AS r CREATE (:${table} {${assign}})`, { rows });
      }
      const tl = links.filter((l) => l.table === table);
      if (tl.length >= 200) {
        await this.copyRows("ABOUT", ["from", "to", "role"], tl.map((l) => [l.m, l.e, l.role]), [table, "Entity"]);
      } else if (tl.length) {
        await this.run(`UNWIND $rows AS r MATCH (m:${table} {id: r.m}), (e:Entity {id: r.e}) CREATE (m)-[:ABOUT {role: r.role}]->(e)`, {
          rows: tl.map((l) => ({ m: l.m, e: l.e, role: l.role }))
        });
      }
    }
    if (rels.size) {
      await this.run("UNWIND $rows AS r MATCH (a:Entity {id: r.f}), (b:Entity {id: r.t}) MERGE (a)-[:RELATES {relation: r.rel}]->(b)", {
        rows: [...rels.values()].map((r) => ({ f: r.from, t: r.to, rel: r.relation }))
      });
    }
    const sup = fresh.filter((m) => m.type === "decision" && m.supersedes);
    if (sup.length) {
      await this.run("UNWIND $rows AS r MATCH (n:Decision {id: r.n}), (o:Decision {id: r.o}) MERGE (n)-[:SUPERSEDES]->(o)", {
        rows: sup.map((m) => ({ n: m.id, o: m.supersedes }))
      });
    }
    const cons = fresh.filter((m) => m.type === "summary" && m.consolidates?.length).flatMap((m) => m.consolidates.map((l) => ({ s: m.id, l })));
    if (cons.length) {
      await this.run("UNWIND $rows AS r MATCH (s:Summary {id: r.s}), (l:Learning {id: r.l}) MERGE (s)-[:CONSOLIDATES]->(l) SET l.consolidated = true", { rows: cons });
    }
    if (forget.length) await this.remove(forget);
    return { added: fresh.length };
  }
  async supersededAmong(ids) {
    if (!ids.length) return /* @__PURE__ */ new Set();
    const rows = await this.run("MATCH (:Decision)-[:SUPERSEDES]->(o:Decision) WHERE o.id IN $ids RETURN o.id AS id", { ids });
    return new Set(rows.map((r) => String(r.id)));
  }
  async recall(q) {
    const now = Date.now();
    const limit = q.limit ?? 20;
    const maxD = Math.max(0, Math.min(q.maxDistance ?? 2, 4));
    const words = queryWords(q.text);
    const labels = (q.types?.length ? q.types : Object.keys(MEMORY_TABLES)).map((t) => MEMORY_TABLES[t]).join(":");
    const since = q.since ? Date.parse(q.since) : void 0;
    const sinceClause = since !== void 0 && Number.isFinite(since) ? ` AND m.createdAt >= ${Math.floor(since)}` : "";
    const found = /* @__PURE__ */ new Map();
    if (q.entities?.length) {
      const direct = await this.run(`MATCH (t:Entity) WHERE t.id IN $ids MATCH (m:${labels})-[:ABOUT]->(t) WHERE true${sinceClause} RETURN DISTINCT m`, { ids: q.entities });
      for (const r of direct) {
        const rec = fromNode(r.m);
        found.set(rec.id, { rec, d: 0 });
      }
      if (maxD > 0) {
        const rows = await this.run(
          `MATCH (t:Entity) WHERE t.id IN $ids MATCH (t)-[p:RELATES*1..${maxD}]-(e:Entity)<-[:ABOUT]-(m:${labels}) WHERE true${sinceClause} RETURN m, min(length(p)) AS d`,
          { ids: q.entities }
        );
        for (const r of rows) {
          const rec = fromNode(r.m);
          const d = Number(r.d);
          const prev = found.get(rec.id);
          if (!prev || (prev.d ?? 99) > d) found.set(rec.id, { rec, d });
        }
      }
    } else if (words.length) {
      const conds = words.map((_, i) => `lower(m.text) CONTAINS $w${i} OR lower(m.title) CONTAINS $w${i}`).join(" OR ");
      const params = {};
      words.forEach((w, i) => params[`w${i}`] = w);
      const rows = await this.run(`MATCH (m:${labels}) WHERE (${conds})${sinceClause} RETURN m LIMIT 5000`, params);
      for (const r of rows) {
        const rec = fromNode(r.m);
        found.set(rec.id, { rec });
      }
    } else {
      const rows = await this.run(`MATCH (m:${labels}) WHERE true${sinceClause} RETURN m ORDER BY m.createdAt DESC LIMIT ${Math.max(1, Math.floor(limit))}`);
      for (const r of rows) {
        const rec = fromNode(r.m);
        found.set(rec.id, { rec });
      }
    }
    const superseded = await this.supersededAmong([...found.values()].filter((f) => f.rec.type === "decision").map((f) => f.rec.id));
    const items = [];
    for (const { rec, d } of found.values()) {
      const ts = textScore(rec, words);
      if (words.length && q.entities?.length && ts === 0 && d === void 0) continue;
      const sup = superseded.has(rec.id);
      const reason = d === void 0 ? words.length ? "text" : "recent" : d === 0 ? "linked" : "related";
      items.push({ memory: rec, score: scoreItem(rec, d, ts, now) - (sup ? 1 : 0), distance: d, reason, superseded: sup || void 0 });
    }
    return sortRecall(items, limit);
  }
  async list(filter = {}) {
    const types = filter.types?.length ? filter.types : Object.keys(MEMORY_TABLES);
    const conds = [];
    const params = {};
    if (filter.workflow) conds.push("m.workflow = $wf"), params.wf = filter.workflow;
    if (filter.step) conds.push("m.step = $st"), params.st = filter.step;
    const where = conds.length ? ` WHERE ${conds.join(" AND ")}` : "";
    const lim = filter.limit ? ` LIMIT ${Math.floor(filter.limit)}` : "";
    const rows = await this.run(`MATCH (m:${types.map((t) => MEMORY_TABLES[t]).join(":")})${where} RETURN m ORDER BY m.createdAt DESC${lim}`, conds.length ? params : void 0);
    return rows.map((r) => fromNode(r.m));
  }
  async entities() {
    const rows = await this.run("MATCH (e:Entity) RETURN e.id AS id, e.kind AS kind, e.name AS name, e.createdAt AS t");
    return rows.map((r) => ({ id: String(r.id), kind: String(r.kind), name: String(r.name), createdAt: new Date(Number(r.t) || 0).toISOString() }));
  }
  async relations() {
    const rows = await this.run("MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.id AS f, b.id AS t, r.relation AS rel");
    return rows.map((r) => ({ from: String(r.f), to: String(r.t), relation: String(r.rel) }));
  }
  async neighbourhood(entityId2, depth = 1) {
    const d = Math.max(1, Math.min(depth, 3));
    const idRows = await this.run(`MATCH (t:Entity {id: $id}) OPTIONAL MATCH (t)-[:RELATES*1..${d}]-(e:Entity) RETURN t.id AS t, collect(DISTINCT e.id) AS ids`, { id: entityId2 });
    if (!idRows.length) return { entities: [], relations: [], memories: [] };
    const ids = [String(idRows[0].t), ...(idRows[0].ids ?? []).filter((x) => x !== null).map(String)];
    const ents = await this.run("MATCH (e:Entity) WHERE e.id IN $ids RETURN e.id AS id, e.kind AS kind, e.name AS name, e.createdAt AS t", { ids });
    const rels = await this.run("MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE a.id IN $ids AND b.id IN $ids RETURN a.id AS f, b.id AS t, r.relation AS rel", { ids });
    const mems = await this.run("MATCH (m:Learning:Decision:Summary)-[:ABOUT]->(e:Entity) WHERE e.id IN $ids RETURN m, e.id AS e", { ids });
    return {
      entities: ents.map((r) => ({ id: String(r.id), kind: String(r.kind), name: String(r.name), createdAt: new Date(Number(r.t) || 0).toISOString() })),
      relations: rels.map((r) => ({ from: String(r.f), to: String(r.t), relation: String(r.rel) })),
      memories: mems.map((r) => ({ memory: fromNode(r.m), entity: String(r.e) }))
    };
  }
  async counts() {
    const one = async (q) => Number((await this.run(q))[0]?.n ?? 0);
    return {
      learning: await one("MATCH (m:Learning) RETURN count(*) AS n"),
      decision: await one("MATCH (m:Decision) RETURN count(*) AS n"),
      summary: await one("MATCH (m:Summary) RETURN count(*) AS n"),
      entity: await one("MATCH (e:Entity) RETURN count(*) AS n"),
      relation: await one("MATCH ()-[r:RELATES]->() RETURN count(*) AS n")
    };
  }
  async remove(ids) {
    if (!ids.length) return 0;
    const before = (await this.has(ids)).size;
    for (const table of Object.values(MEMORY_TABLES)) {
      await this.run(`MATCH (m:${table}) WHERE m.id IN $ids DETACH DELETE m`, { ids });
    }
    return before;
  }
  async close() {
    if (this.closed) return;
    this.closed = true;
    this.prepared.clear();
    try {
      await this.conn.close();
    } finally {
      await this.db.close();
      if (this.tmpDir) fs.rmSync(this.tmpDir, { recursive: true, force: true });
    }
  }
};
function toRow(m) {
  return {
    id: m.id,
    category: m.category ?? "",
    title: m.title ?? "",
    text: m.text,
    createdAt: Date.parse(m.createdAt) || 0,
    tier: m.tier ?? 1,
    workflow: m.source.workflow ?? "",
    step: m.source.step ?? "",
    session: m.source.session ?? "",
    agent: m.source.agent ?? "",
    origin: m.source.origin ?? "",
    entities: m.entities?.length ? JSON.stringify(m.entities) : "",
    tags: m.tags?.length ? JSON.stringify(m.tags) : "",
    rationale: m.rationale ?? "",
    alternatives: m.alternatives?.length ? JSON.stringify(m.alternatives) : "",
    decidedBy: m.decidedBy ?? "",
    supersedes: m.supersedes ?? "",
    consolidates: m.consolidates?.length ? JSON.stringify(m.consolidates) : ""
  };
}
function str(v) {
  return typeof v === "string" && v !== "" ? v : void 0;
}
function list(v) {
  if (typeof v !== "string" || !v) return void 0;
  try {
    const a = JSON.parse(v);
    return Array.isArray(a) ? a.map(String) : void 0;
  } catch {
    return void 0;
  }
}
function fromNode(n) {
  const label = String(n._label);
  const type = Object.keys(MEMORY_TABLES).find((t) => MEMORY_TABLES[t] === label) ?? "learning";
  const rec = {
    id: String(n.id),
    type,
    text: String(n.text ?? ""),
    createdAt: new Date(Number(n.createdAt) || 0).toISOString(),
    tier: Number(n.tier) || 1,
    source: {}
  };
  const set = (k, v) => {
    if (v !== void 0) rec[k] = v;
  };
  set("category", str(n.category));
  set("title", str(n.title));
  set("rationale", str(n.rationale));
  set("alternatives", list(n.alternatives));
  set("decidedBy", str(n.decidedBy));
  set("supersedes", str(n.supersedes));
  set("entities", list(n.entities));
  set("tags", list(n.tags));
  set("consolidates", list(n.consolidates));
  for (const k of ["workflow", "step", "session", "agent", "origin"]) {
    const v = str(n[k]);
    if (v) rec.source[k] = v;
  }
  return rec;
}

// ../../tmp/kz/t4.ts
var fs2 = __toESM(require("node:fs"));
(async () => {
  fs2.rmSync("/tmp/kz/t4", { recursive: true, force: true });
  fs2.mkdirSync("/tmp/kz/t4");
  const store = await openKuzuStore("/tmp/kz/t4/g.kuzu");
  const ops = [];
  const N = Number(process.argv[2] ?? 600);
  for (let i = 0; i < N; i++) ops.push({ v: 1, op: "memory", rec: { id: `m${i}`, type: "learning", text: `t ${i}`, createdAt: (/* @__PURE__ */ new Date()).toISOString(), tier: 1, source: { workflow: `wf${i % 3}.md`, step: `s${i % 5}` }, entities: [`file:src/f${i % 7}.ts`] } });
  console.log("ingest1");
  console.log(await store.ingest(ops));
  console.log("ingest2");
  console.log(await store.ingest(ops));
  await store.close();
})();
