const kuzu = require('kuzu');
const fs=require('fs');
fs.rmSync('/tmp/kz/db6',{recursive:true,force:true}); fs.mkdirSync('/tmp/kz/db6');
(async()=>{
const db = new kuzu.Database('/tmp/kz/db6/g.kuzu', 64*1024*1024); await db.init();
const c = new kuzu.Connection(db, 1); await c.init();
async function q(s){ const r=await c.query(s); const rs=Array.isArray(r)?r:[r]; let out; for(const x of rs){out=await x.getAll(); x.close();} return out; }
const COMMON_COLS = 'id STRING PRIMARY KEY, category STRING, title STRING, text STRING, createdAt INT64, tier INT64, workflow STRING, step STRING, session STRING, agent STRING, origin STRING, entities STRING, tags STRING';
await q(`CREATE NODE TABLE Learning(${COMMON_COLS})`);
const v=process.argv[2];
if(process.argv[3]){ const ps=await c.prepare("MATCH (m:Learning) WHERE m.id IN $ids RETURN m.id AS id"); const r=await c.execute(ps,{ids:["a","b"]}); await r.getAll(); r.close(); if(process.argv[3]==="2"){ await q("CREATE NODE TABLE Entity(id STRING PRIMARY KEY, kind STRING)"); const p2=await c.prepare("UNWIND $rows AS r CREATE (:Entity {id: r.id, kind: r.kind})"); const r2=await c.execute(p2,{rows:[{id:"x",kind:"k"}]}); r2.close(); } }
let rows=['id,category,title,text,createdAt,tier,workflow,step,session,agent,origin,entities,tags'];
for(let i=0;i<600;i++) rows.push(v==='a'?`"m${i}","","","t ${i}","1795366853378","1","wf0.md","s0","","","","x",""`: v==='b' ? `"m${i}","","","t ${i}",1795366853378,1,"wf0.md","s0","","","","[""file:src/f0.ts""]",""` : `"m${i}","","","t ${i}","1795366853378","1","wf0.md","s0","","","","[""file:src/f0.ts""]",""`);
fs.writeFileSync('/tmp/kz/l6.csv', rows.join('\n')+'\n');
console.log(await q(`COPY Learning FROM '/tmp/kz/l6.csv' (HEADER=true, PARALLEL=false)`));
await c.close(); await db.close();
})().catch(e=>console.log('ERR',e.message));
