const kuzu = require('kuzu');
const fs=require('fs');
fs.rmSync('/tmp/kz/db7',{recursive:true,force:true}); fs.mkdirSync('/tmp/kz/db7');
(async()=>{
const db = new kuzu.Database('/tmp/kz/db7/g.kuzu', 64*1024*1024); await db.init();
const c = new kuzu.Connection(db, 1); await c.init();
async function q(s,p){ let r; if(p){const ps=await c.prepare(s); if(!ps.isSuccess()) throw new Error(ps.getErrorMessage()); r=await c.execute(ps,p);} else r=await c.query(s); const rs=Array.isArray(r)?r:[r]; let out; for(const x of rs){out=await x.getAll(); x.close();} return out; }
await q("CREATE NODE TABLE L(id STRING PRIMARY KEY, text STRING)");
let t=performance.now();
for(let i=0;i<50;i++){ await q("CREATE (:L {id: $id, text: 'x'})",{id:'a'+i}); }
console.log('autocommit each', (performance.now()-t)/50);
t=performance.now();
for(let i=0;i<50;i++){ await q("BEGIN TRANSACTION"); await q("CREATE (:L {id: $id, text: 'x'})",{id:'b'+i}); await q("MATCH (l:L {id: $id}) RETURN l.id",{id:'b'+i}); await q("CREATE (:L {id: $id, text: 'x'})",{id:'c'+i}); await q("COMMIT"); }
console.log('txn of 3', (performance.now()-t)/50);
t=performance.now();
for(let i=0;i<50;i++){ await q("CREATE (:L {id: $id, text: 'x'})",{id:'d'+i}); await q("MATCH (l:L {id: $id}) RETURN l.id",{id:'d'+i}); await q("CREATE (:L {id: $id, text: 'x'})",{id:'e'+i});  }
console.log('no txn of 3', (performance.now()-t)/50);
try { await q("BEGIN TRANSACTION"); fs.writeFileSync('/tmp/kz/x.csv','id,text\n"z1","a"\n'); await q("COPY L FROM '/tmp/kz/x.csv' (HEADER=true)"); await q("COMMIT"); console.log('copy in txn ok'); } catch(e) { console.log('copy in txn:', e.message); try{await q("ROLLBACK")}catch{} }
await q("BEGIN TRANSACTION"); await q("CREATE (:L {id: 'r1', text: 'x'})"); await q("ROLLBACK");
console.log(await q("MATCH (l:L {id:'r1'}) RETURN count(*) AS n"));
await c.close(); await db.close();
})().catch(e=>console.log('ERR',e.message));
