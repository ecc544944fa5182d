const kuzu = require('kuzu');
const fs=require('fs');
fs.rmSync('/tmp/kz/db5',{recursive:true,force:true}); fs.mkdirSync('/tmp/kz/db5');
(async()=>{
const db = new kuzu.Database('/tmp/kz/db5/g.kuzu', 64*1024*1024); await db.init();
const c = new kuzu.Connection(db, 1); await c.init();
async function q(s){ const r=await c.query(s); const rs=Array.isArray(r)?r:[r]; let out; for(const x of rs){out=await x.getAll(); x.close();} return out; }
await q("CREATE NODE TABLE L(id STRING PRIMARY KEY, text STRING)");
await q("CREATE NODE TABLE D(id STRING PRIMARY KEY, text STRING)");
await q("CREATE NODE TABLE E(id STRING PRIMARY KEY)");
await q("CREATE REL TABLE ABOUT(FROM L TO E, FROM D TO E, role STRING)");
const mode=process.argv[2];
let rows=['id,text']; for(let i=0;i<600;i++) rows.push(`"m${i}","t ${i}"`); fs.writeFileSync('/tmp/kz/l.csv', rows.join('\n')+'\n');
console.log(await q(`COPY L FROM '/tmp/kz/l.csv' (HEADER=true, PARALLEL=false)`));
await q("CREATE (:E {id:'e1'})");
rows=['from,to,role']; for(let i=0;i<600;i++) rows.push(`"m${i}","e1","r"`); fs.writeFileSync('/tmp/kz/a.csv', rows.join('\n')+'\n');
console.log(await q(`COPY ABOUT FROM '/tmp/kz/a.csv' (HEADER=true, PARALLEL=false, from='L', to='E')`));
console.log(await q(`MATCH ()-[r:ABOUT]->() RETURN count(*)`));
await c.close(); await db.close();
})().catch(e=>console.log('ERR',e.message));
