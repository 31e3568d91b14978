/**
 * What `agent-statechart help` and `agent-statechart <command> --help` print: one entry per
 * command, the overview made of their first lines.
 */
import { DIAGRAM_USAGE } from './diagramCommand.js';

/** One command's help: its synopsis lines, what it does, and its options in detail. */
interface CommandHelp {
  synopsis: string[];
  summary: string;
  details?: string;
}

const COMMANDS: Readonly<Record<string, CommandHelp>> = Object.freeze({
  run: {
    synopsis: [
      'run [--workspace DIR] [--mode MODE] [--session NAME [--store PATH]] [more options]',
    ],
    summary:
      'an interactive agent in DIR: Claude when ANTHROPIC_API_KEY is set, otherwise an offline scripted model; MODE is plan, default, acceptEdits or bypassPermissions (default: default; a resumed session keeps its own unless --mode names one). With --session every step is stored (in DIR/.agent-statechart/sessions.db, or PATH) and the session resumes where it stopped, even after a crash',
    details: `  --workspace DIR   where the agent works (default: the current directory)
  --mode MODE       plan, default, acceptEdits or bypassPermissions (default: default; a
                    resumed session keeps the mode it was stored in unless --mode is given)
  --model NAME      the Claude model to call (a resumed session keeps the one it was created
                    with unless --model is given)
  --session NAME    store every step and resume the session where it stopped
  --store PATH      the session store's file (default: DIR/.agent-statechart/sessions.db)
  --max-turns N     model calls one turn may make (default 100); the turn then stops
  --max-budget USD  what the session may spend on model calls (the model needs a price);
                    turns then stop. A stored session keeps the limits it was created with:
                    resumed, it runs with them, and another --max-turns or --max-budget (or
                    one it was created without) is refused
  --mcp-config FILE MCP servers whose tools the agent may call, as in a .mcp.json
                    ({ "mcpServers": { name: { command, args } | { url, headers } } });
                    \${VAR} in it is read from the environment
  --hooks MODULE    run your hooks: a .js/.mjs file (.ts under tsx), relative to the current
                    directory, whose 'hooks' or default export is { userPromptSubmit,
                    preToolUse, postToolUse, stop }, each an optional function (as createAgent
                    takes them). A stored session keeps the hooks it was created with: resuming
                    it needs --hooks with the same ones
  --hook-timeout MS how long one hook may take (default 60000); a hook that takes longer fails
  --agents FILE     subagents the model hands sub-tasks to with its task tool: a JSON file,
                    relative to the current directory, of specs by name, as createAgent's
                    agents takes them ({ "reviewer": { "description": "...", "system": "...",
                    "tools": ["read_file"], "model": "...", "maxTurns": 20 } }). A stored
                    session keeps the agents it was created with (resumed, it runs with them,
                    and --agents naming others is refused), and each subagent's session beside
                    its own, as ID/CALL_ID
  --otel            trace the agent with OpenTelemetry: spans printed as they end, or sent
                    with OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set

Type a message; /mode MODE changes the mode, /mcp lists the MCP servers, /quit ends. Asked to
approve a call, answer y, a (always), or n with what to do instead ("n edit notes.md instead"),
which the model reads; a subagent's calls are shown, and asked about, under its name
("researcher › bash"). Asked a question by the model, answer with a choice's number (several,
comma-separated, where it says so), your own words, or an empty line for none. A message the
userPromptSubmit hook blocks is shown as "prompt not sent", with its reason; the model never
sees it. Ctrl-C interrupts a turn, and withdraws a question; twice at the prompt it quits.`,
  },
  'mcp-serve': {
    synopsis: ['mcp-serve [--workspace DIR] [--mode MODE] [--model NAME] [--mcp-config FILE]'],
    summary:
      'serve an agent in DIR over MCP on stdio, for Claude Code, Claude Desktop or any MCP client: its run_task tool hands the agent a task and answers with the result. Claude when ANTHROPIC_API_KEY is set, otherwise the offline scripted model; MODE defaults to acceptEdits, and a tool call that would wait for approval is refused, since an MCP client cannot answer',
    details: `  --workspace DIR   where the agents work (default: the current directory)
  --mode MODE       plan, default, acceptEdits or bypassPermissions (default: acceptEdits:
                    edits run, shell commands are refused; bypassPermissions runs them too)
  --model NAME      the Claude model to call
  --mcp-config FILE MCP servers whose tools the agents may call, as in a .mcp.json;
                    \${VAR} in it is read from the environment

stdout carries the protocol; the command logs to stderr. It stops when the client closes
its input, or on SIGINT or SIGTERM. In a client's .mcp.json:
  { "mcpServers": { "agent": { "command": "npx", "args": ["agent-statechart", "mcp-serve"] } } }`,
  },
  sessions: {
    synopsis: [
      'sessions list | show ID | fork ID NEW_ID [--at N] | rm ID [--workspace DIR | --store PATH]',
    ],
    summary: "the stored sessions, one session's transcript and log, forking one, removing one",
    details: `  list              the sessions kept in the store
  show ID           one session: its transcript, and its log in words
  fork ID NEW_ID    a new session NEW_ID from ID's history, up to its latest rest point
  --at N            fork after N messages instead (a point where ID was at rest)
  rm ID             remove one session
  --workspace DIR   read DIR/.agent-statechart/sessions.db (default: the current directory)
  --store PATH      read the store at PATH instead`,
  },
  demo: {
    synopsis: ['demo [--keep] [--no-inspector] [--port N]'],
    summary:
      'a scripted session through all seven states, with a retried 529 and a git auto-commit, offline (no API key needed): its process is killed with SIGKILL mid-tools and a new one resumes it from the store; shown in the local inspector page',
    details: `  --keep            keep the demo's workspace (its path is printed)
  --no-inspector    run without the inspector page
  --port N          serve the inspector page on port N (default: any free port)`,
  },
  inspect: {
    synopsis: [
      'inspect [--port N] [--host HOST --token TOKEN]',
      'inspect --session NAME [--workspace DIR | --store PATH] [--port N]',
    ],
    summary:
      'the demo session in the inspector page, or a stored session to step through, followed as it grows; served until Ctrl-C',
    details: `  --session NAME    show the stored session NAME instead of the demo
  --workspace DIR   with --session: read DIR/.agent-statechart/sessions.db
  --store PATH      with --session: read the store at PATH
  --port N          serve the page on port N (default: any free port)
  --host HOST       listen on HOST (default: 127.0.0.1; anything else needs --token)
  --token TOKEN     require TOKEN (16 characters or more) to read the page`,
  },
  diagram: {
    // The diagram command's own usage, said in one place.
    synopsis: [DIAGRAM_USAGE.split('\n')[0]!.replace(/^usage: agent-statechart /, '')],
    summary: "draw the agent's chart (or any XState v5 machine)",
    details: DIAGRAM_USAGE.slice(DIAGRAM_USAGE.indexOf('\n\n') + 2),
  },
  help: {
    synopsis: ['help'],
    summary: 'this text; `agent-statechart COMMAND --help` describes one command',
  },
});

/** Where the overview's descriptions start. */
const COLUMN = 28;
/** How wide the text runs. */
const WIDTH = 100;

/**
 * The overview of every command.
 *
 * @example
 * console.log(USAGE); // usage: agent-statechart <command> [options] …
 */
export const USAGE = [
  'usage: agent-statechart <command> [options]',
  '',
  'commands:',
  ...Object.values(COMMANDS).flatMap((help) => {
    const synopsis = help.synopsis.map((line) => `  ${line}`);
    const summary = wrap(help.summary, WIDTH - COLUMN);
    const last = synopsis.length - 1;
    // A short synopsis takes the summary's first line beside it.
    if (synopsis[last]!.length < COLUMN - 1) {
      synopsis[last] = synopsis[last]!.padEnd(COLUMN) + summary.shift();
    }
    return [...synopsis, ...summary.map((line) => `${' '.repeat(COLUMN)}${line}`)];
  }),
].join('\n');

/**
 * One command's help, or `undefined` for a command that does not exist.
 *
 * @example
 * commandUsage('sessions'); // 'usage: agent-statechart sessions list | show ID | fork ID NEW_ID …'
 */
export function commandUsage(command: string): string | undefined {
  if (command === 'diagram') return DIAGRAM_USAGE;
  const help = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (help === undefined) return undefined;
  const [first, ...more] = help.synopsis;
  return [
    `usage: agent-statechart ${first}`,
    ...more.map((line) => `       agent-statechart ${line}`),
    '',
    ...wrap(help.summary, WIDTH),
    ...(help.details === undefined ? [] : ['', help.details]),
  ].join('\n');
}

/**
 * Whether the arguments ask for help: `--help` or `-h` anywhere among them.
 *
 * @example
 * asksForHelp(['list', '--help']); // true
 */
export function asksForHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
