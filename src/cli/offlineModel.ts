/**
 * A scripted stand-in for Claude, for `agent-statechart run` without an API key. It reads the
 * last message and answers with the tool call a few plain commands ask for, so the whole loop —
 * tools, approvals, questions to the user, subagents, auto-commit, compaction — can be tried
 * offline against the local Messages API server. A subagent's request is answered the same way:
 * its task's prompt is the command it follows.
 */
import { SUMMARY_HEADING } from '../machine/index.js';
import {
  type MessagesRequestBody,
  reply,
  type ScriptedBlock,
  type ScriptedTurn,
} from '../testing/index.js';

const HELP =
  'I am the offline scripted model (set ANTHROPIC_API_KEY to talk to Claude). I understand: ' +
  '"list files", "read <path>", "write <path> <text>", "replace <old> with <new> in <path>", ' +
  '"run <command>", "ask <question>? [<choice> | <choice> …]", "task <agent> <prompt>".';

/** The name of the built-in subagent tool, offered when the agent has agents. */
const TASK_TOOL = 'task';

/**
 * Answers one Messages API request (a `ScriptFunction` for `startMessagesApiServer`).
 *
 * @example
 * const server = await startMessagesApiServer({ script: offlineModel });
 */
export function offlineModel(request: MessagesRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last === undefined) return reply(HELP);
  if (asksForSummary(request)) return reply(summaryOf(request.messages));
  const results = toolResultsOf(last.content);
  if (results.length > 0) return reply(summarise(results));
  const text = textOf(last.content).trim();
  const task = /^task\s+(\S+)\s+([\s\S]+)$/i.exec(text);
  if (task && !request.tools?.some((tool) => tool.name === TASK_TOOL)) {
    return reply('I have no subagents to hand a task to (start run with --agents FILE).');
  }
  const call = toolCallFor(text);
  if (call === null) return reply(HELP);
  return reply([{ type: 'text', text: `Running ${call.name}.` }, call]);
}

type ToolUse = Extract<ScriptedBlock, { type: 'tool_use' }>;

/** A compaction's summary request: the one request that forbids every tool. */
function asksForSummary(request: MessagesRequestBody): boolean {
  const choice = (request as { tool_choice?: unknown }).tool_choice;
  return isRecord(choice) && choice.type === 'none';
}

/** A summary a script can write: what the user asked, in order, and how many tools ran. */
function summaryOf(messages: MessagesRequestBody['messages']): string {
  const asked: string[] = [];
  let calls = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      calls += Array.isArray(message.content)
        ? message.content.filter((block) => isRecord(block) && block.type === 'tool_use').length
        : 0;
      continue;
    }
    const texts = textsOf(message.content);
    // The last text of the last message is the request for this summary.
    if (index === messages.length - 1) texts.pop();
    for (const text of texts) {
      if (text.startsWith(SUMMARY_HEADING)) asked.push('(what an earlier summary held)');
      else if (text.trim() !== '') asked.push(JSON.stringify(shorten(text.trim(), 80)));
    }
  }
  const requests = asked.length === 0 ? 'nothing yet' : asked.join('; ');
  return `The user asked, in order: ${requests}. Tool calls made: ${calls}.`;
}

function shorten(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

function toolCallFor(text: string): ToolUse | null {
  const tool = (name: string, input: Record<string, unknown>): ToolUse => ({
    type: 'tool_use',
    name,
    input,
  });
  if (/^(list|ls)\b/i.test(text)) return tool('list_files', { path: '.' });
  let match = /^read\s+(\S+)/i.exec(text);
  if (match) return tool('read_file', { path: match[1] });
  match = /^write\s+(\S+)\s+([\s\S]+)$/i.exec(text);
  if (match) return tool('write_file', { path: match[1], content: `${match[2]}\n` });
  match = /^replace\s+(.+?)\s+with\s+(.+?)\s+in\s+(\S+)$/i.exec(text);
  if (match) {
    return tool('edit_file', { path: match[3], old_string: match[1], new_string: match[2] });
  }
  // "task researcher read notes.txt": the agent's name, then the prompt it works on.
  match = /^task\s+(\S+)\s+([\s\S]+)$/i.exec(text);
  if (match) return tool(TASK_TOOL, { agent: match[1], prompt: match[2]!.trim() });
  match = /^run\s+([\s\S]+)$/i.exec(text);
  if (match) return tool('bash', { command: match[1] });
  // "ask Which database? PostgreSQL | SQLite": the question, with the choices after it if any.
  match = /^ask\s+([^?]+\?)\s*([\s\S]*)$/i.exec(text);
  if (match) {
    const choices = match[2]!
      .split('|')
      .map((choice) => choice.trim())
      .filter((choice) => choice !== '')
      .slice(0, 6);
    const question: Record<string, unknown> = { header: 'Question', question: match[1] };
    if (choices.length >= 2) question.options = choices.map((label) => ({ label }));
    return tool('ask_user', { questions: [question] });
  }
  return null;
}

function summarise(results: { content: string; isError: boolean }[]): string {
  return results
    .map(({ content, isError }) => {
      const shown = content.length > 400 ? `${content.slice(0, 400)}…` : content;
      return isError ? `That failed: ${shown}` : `Result:\n${shown}`;
    })
    .join('\n');
}

function textOf(content: unknown): string {
  return textsOf(content).join('');
}

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) =>
    isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
}

function toolResultsOf(content: unknown): { content: string; isError: boolean }[] {
  if (!Array.isArray(content)) return [];
  const results: { content: string; isError: boolean }[] = [];
  for (const block of content as unknown[]) {
    if (!isRecord(block) || block.type !== 'tool_result') continue;
    results.push({
      content: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
      isError: block.is_error === true,
    });
  }
  return results;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
