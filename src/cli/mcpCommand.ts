import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { CliCommand } from './framework';
import { VERSION, flagString } from './framework';
import { WaymarkError, findWorkspaceRoot, isFileSystemRoot } from '../core/index';

/** `waymark mcp`: the MCP server for agents (Claude Code, Cursor, VS Code, orchestrators). */
export const mcpCommand: CliCommand = {
  name: 'mcp',
  usage: 'mcp [--root DIR] [--actor NAME] [--session S]',
  summary: 'Run the MCP server (stdio) that lets agents read and change workflow state natively.',
  booleanFlags: ['verbose'],
  options: ['root', 'actor', 'session'],
  help: `Speaks the Model Context Protocol on stdin/stdout (logs go to stderr) until the client disconnects.
One long-lived state core watches the workspace, so answers stay current while people and other
agents edit. Tools: waymark_summary, waymark_status, waymark_resume, waymark_advance,
waymark_set_status, waymark_gate, waymark_validate, waymark_memory_recall, waymark_memory_record,
waymark_lease.

Options:
  --root DIR      workspace folder (default: the nearest folder above the current one holding
                  .waymark, _bmad or .git; else the current folder)
  --actor NAME    recorded in history for writes (default $WAYMARK_ACTOR, else "mcp")
  --session S     session marker and lease holder id (default $WAYMARK_SESSION, else mcp-<pid>-<random>)
  --verbose       debug logs on stderr

Setup: claude mcp add waymark -- npx waymark mcp
Exit codes: 0 the client disconnected; 2 usage (bad --root, or the file system's root).`,
  async run(ctx) {
    if (ctx.args.positionals.length) throw new WaymarkError('usage', `Unexpected argument ${ctx.args.positionals[0]}; give the folder with --root DIR.`);
    const given = flagString(ctx.args, 'root');
    let root: string;
    if (given !== undefined) {
      root = path.resolve(ctx.cwd, given);
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(root);
      } catch {
        st = undefined;
      }
      if (!st?.isDirectory()) throw new WaymarkError('usage', `--root ${given} is not a folder.`, root);
    } else {
      root = findWorkspaceRoot(path.join(ctx.cwd, '.waymark-probe'), ctx.cwd);
    }
    const real = fs.realpathSync(root);
    // The CLI's verbs refuse the file system's root (a scan of the whole machine); so does the server. An MCP
    // client may start it there (a desktop app's cwd is often /): the client's log shows this line.
    if (isFileSystemRoot(real)) throw new WaymarkError('usage', `${real} is the file system's root, not a project folder (MCP clients may start servers there): name the project with --root DIR in the client's server entry (claude mcp add waymark -- npx waymark mcp --root /path/to/project), or start waymark mcp inside the project folder.`);
    const actor = flagString(ctx.args, 'actor') ?? process.env.WAYMARK_ACTOR ?? 'mcp';
    const session = flagString(ctx.args, 'session') ?? process.env.WAYMARK_SESSION ?? `mcp-${process.pid}-${randomUUID().slice(0, 8)}`;
    // Loaded only for this verb: the SDK is not needed by the other commands.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runMcpServer } = require('../mcp/server') as typeof import('../mcp/server');
    await runMcpServer({ root: real, actor, session, version: VERSION, verbose: ctx.args.flags.verbose === true });
    return 0;
  },
};
