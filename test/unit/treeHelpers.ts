// Generated BMAD v7 ticket trees for tests and the bench.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A project with one initiative of `epics` epics of `perEpic` entries each: chains inside an epic,
 * cross-epic `E.N` links, epic gates, lettered ids, plans in every status, a few leaf files.
 */
export function bigTree(epics: number, perEpic: number): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-v7big-')));
  const w = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  w('_bmad/config.toml', '[core]\noutput_folder = "{project-root}/_bmad-output"\n');
  w('_bmad/custom/config.user.toml', '[core]\nactive_initiative = "initiative-big"\n');
  const init = '_bmad-output/initiative-big';
  w(`${init}/initiative-big.md`, '---\ntype: initiative\ntitle: Big\n---\n');
  const statuses = ['', 'draft', 'ready-for-dev', 'in-progress', 'in-review', 'built', 'done', 'blocked', 'dropped', 'done', 'done'];
  let toml = '';
  for (let e = 1; e <= epics; e++) {
    const slug = `epic-e${e}`;
    toml += `[[epic]]\nid = ${e}\nslug = "${slug}"\ntitle = "Epic ${e}"\n${e > 1 ? `after = [{ epic = ${e - 1}, needs = "the one before" }]\n` : ''}\n`;
    w(`${init}/${slug}/${slug}.md`, `---\ntype: epic\ntitle: "Epic ${e}"\n${e % 7 === 0 ? 'status: done\n' : ''}${e % 5 === 0 && e > 1 ? `after: [epic-e${e - 1}]\n` : ''}---\n`);
    let entries = '';
    for (let n = 1; n <= perEpic; n++) {
      const id = n % 10 === 5 ? `"${n}a"` : String(n);
      const prev = n - 1 === 0 ? '' : (n - 1) % 10 === 5 ? `"${n - 1}a"` : String(n - 1);
      const after = [prev, e > 1 && n === 1 ? `"${e - 1}.2"` : ''].filter(Boolean);
      entries += `[[entry]]\nid = ${id}\ntype = "${n % 9 === 0 ? 'bug' : n % 4 === 0 ? 'spike' : 'story'}"\ntitle = "Ticket ${e}.${n}"\nafter = [${after.join(', ')}]\n${n % 6 === 0 ? 'refine = true\n' : ''}covers = ["FR${e}"]\n\n`;
      const status = statuses[(e * 7 + n) % statuses.length];
      const bare = id.replace(/"/g, '');
      if (status) w(`${init}/${slug}/story-t${bare}-plan.md`, `---\ntitle: "Ticket ${e}.${n}"\nticket: ${bare}\nstatus: ${status}\n${status === 'blocked' ? 'blocked_at: "2026-11-01"\nblocked_reason: "waiting"\n' : ''}---\n`);
      if (n % 8 === 0) w(`${init}/${slug}/story-t${bare}.md`, `---\nid: ${bare}\ntype: story\ntitle: "Ticket ${e}.${n}"\nafter: [${after.join(', ')}]\nhitl: false\nrefined: true\n---\n`);
    }
    w(`${init}/${slug}/tickets.toml`, entries);
  }
  w(`${init}/tickets.toml`, toml);
  return root;
}
