/**
 * `agent-statechart demo`: a scripted session that passes through all seven states, printed as a
 * state trace and a transcript. Pure mode drives it here: the script plays the model, the tools
 * and the hook, so it runs offline with no API key.
 */
import {
  type AgentAction,
  AgentCore,
  type AgentEvent,
  type AgentStateName,
  type Message,
} from '../machine/index.js';

/** What a demo run printed and where it went, for tests. */
export interface DemoResult {
  states: AgentStateName[];
  lines: string[];
  messages: Message[];
}

const script: AgentEvent[] = [
  {
    type: 'UserInput',
    message: { role: 'user', content: 'Rename the greeting in hello.txt to "Hi".' },
  },
  { type: 'LlmError', error: { kind: 'overloaded', message: 'Overloaded (529)', status: 529 } },
  { type: 'RetryTimeoutFired' },
  { type: 'LlmTextDelta', content: 'Let me read the file first.' },
  {
    type: 'LlmCompleted',
    response: {
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me read the file first.' },
          { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'hello.txt' } },
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'edit_file',
            input: { path: 'hello.txt', old_string: 'Hello', new_string: 'Hi' },
          },
        ],
      },
      stopReason: 'tool_use',
    },
  },
  {
    type: 'ToolCompleted',
    callId: 'toolu_02',
    outcome: { status: 'success', output: 'edited hello.txt' },
  },
  {
    type: 'ToolCompleted',
    callId: 'toolu_01',
    outcome: { status: 'success', output: 'Hello, world' },
  },
  { type: 'PostToolsHookCompleted', actionTaken: true },
  { type: 'LlmTextDelta', content: 'Done: hello.txt now says "Hi, world".' },
  {
    type: 'LlmCompleted',
    response: {
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'Done: hello.txt now says "Hi, world".' }],
      },
      stopReason: 'end_turn',
    },
  },
  { type: 'ShutdownRequested' },
];

function describeAction(action: AgentAction): string {
  switch (action.type) {
    case 'SendLlmRequest':
      return `SendLlmRequest (${action.request.messages.length} messages)`;
    case 'ExecuteTools':
      return `ExecuteTools ${action.calls.map((call) => call.name).join(', ')}`;
    case 'ScheduleRetry':
      return `ScheduleRetry attempt ${action.attempt} in ${action.delayMs} ms`;
    case 'DisplayMessage':
      return `DisplayMessage ${JSON.stringify(action.text)}`;
    default:
      return action.type;
  }
}

/**
 * Runs the scripted session and prints it.
 *
 * @example
 * const { states } = runDemo((line) => console.log(line));
 */
export function runDemo(print: (line: string) => void): DemoResult {
  const lines: string[] = [];
  const out = (line: string) => {
    lines.push(line);
    print(line);
  };
  const core = new AgentCore({ maxRetries: 3 });
  const states: AgentStateName[] = [core.state];
  out(`state ${core.state}`);
  for (const event of script) {
    const actions = core.handleEvent(event);
    // ProcessingLlmResponse is transient: show it when an LlmCompleted passed through it.
    if (event.type === 'LlmCompleted') states.push('ProcessingLlmResponse');
    if (states.at(-1) !== core.state) states.push(core.state);
    out(
      `  ${event.type} → ${core.state}${actions.length ? `  [${actions.map(describeAction).join('; ')}]` : ''}`,
    );
  }
  out('');
  out(`states visited: ${[...new Set(states)].join(', ')}`);
  out('transcript:');
  for (const message of core.context.messages)
    out(`  ${message.role}: ${JSON.stringify(message.content)}`);
  return { states, lines, messages: core.context.messages };
}
