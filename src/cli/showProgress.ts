/**
 * What `agent-statechart run` prints while a turn runs: the streamed reply under the model's
 * label, the state, each tool call and how it ended, retries, commits and errors, a prompt that
 * started no turn (the `userPromptSubmit` hook blocked it), which the model never saw, each
 * subagent's tool calls — and the compactions a long conversation goes through on its own.
 */
import type { Agent } from '../agent/index.js';

/**
 * Prints the agent's progress through `write`; `label` names who is speaking (`claude`, or the
 * offline model).
 *
 * @example
 * showProgress(agent, 'claude', (text) => process.stdout.write(text));
 */
export function showProgress(agent: Agent, label: string, write: (text: string) => void): void {
  let streaming = false;
  const endLine = () => {
    if (streaming) write('\n');
    streaming = false;
  };
  agent.on('text', ({ text }) => {
    if (!streaming) write(`${label}> `);
    streaming = true;
    write(text);
  });
  agent.on('state', ({ state }) => {
    if (state === 'ProcessingLlmResponse') return;
    endLine();
    write(`  [${state}]\n`);
  });
  agent.on('toolStart', ({ call }) => {
    endLine();
    write(`  ⚙ ${call.name} ${JSON.stringify(call.input)}\n`);
  });
  agent.on('toolEnd', ({ call, outcome }) => {
    endLine();
    const detail = outcome.status === 'error' ? `: ${outcome.error.message}` : '';
    write(`  ${outcome.status === 'success' ? '✓' : '✗'} ${call.name}${detail}\n`);
  });
  // A subagent's tool calls and failures, under the names of the agents down to it; what it
  // writes is its answer, which comes back as the task call's result.
  agent.on('subagent', ({ path, notification }) => {
    const who = path.map((ref) => ref.agent).join(' › ');
    if (notification.type === 'toolStart') {
      endLine();
      write(`  ⚙ ${who} › ${notification.call.name} ${JSON.stringify(notification.call.input)}\n`);
    } else if (notification.type === 'toolEnd') {
      endLine();
      const { call, outcome } = notification;
      const detail = outcome.status === 'error' ? `: ${outcome.error.message}` : '';
      write(`  ${outcome.status === 'success' ? '✓' : '✗'} ${who} › ${call.name}${detail}\n`);
    } else if (notification.type === 'error') {
      endLine();
      write(`  ! ${who}: ${notification.message}\n`);
    }
  });
  agent.on('retry', ({ delayMs, attempt }) =>
    write(`  ↻ retrying (attempt ${attempt}) in ${delayMs} ms\n`),
  );
  agent.on('commit', ({ sha, files }) =>
    write(`  ⎇ committed ${sha.slice(0, 7)}: ${files.join(', ')}\n`),
  );
  agent.on('promptDropped', ({ reason }) => {
    endLine();
    write(`  prompt not sent: ${reason}\n`);
  });
  // How a `/compact` ended is said by the command itself; the compactions the agent starts on
  // its own are told here. The summary's text is never shown.
  agent.on('compacting', ({ trigger }) => {
    endLine();
    write(
      trigger === 'auto'
        ? '  compacting: the conversation nears the context window, so the model summarises its older part\n'
        : '  compacting: the model summarises the older part of the conversation\n',
    );
  });
  agent.on('compacted', ({ trigger, summarised, kept }) => {
    if (trigger !== 'auto') return;
    endLine();
    write(`${describeCompacted(summarised, kept)}\n`);
  });
  agent.on('compactionSkipped', ({ trigger, reason }) => {
    if (trigger !== 'auto') return;
    endLine();
    write(`  not compacted: ${reason}\n`);
  });
  agent.on('error', ({ message }) => {
    endLine();
    write(`  ! ${message}\n`);
  });
}

/**
 * What a compaction did, as `run` says it.
 *
 * @example
 * describeCompacted(12, 3); // '  compacted 12 messages into a summary; 3 kept as they were'
 */
export function describeCompacted(summarised: number, kept: number): string {
  const messages = `${summarised} message${summarised === 1 ? '' : 's'}`;
  return `  compacted ${messages} into a summary; ${kept} kept as ${kept === 1 ? 'it was' : 'they were'}`;
}
