/**
 * The same loop as a hand-written reducer, the per-turn floor. One mutable state object, a
 * `switch` per event, actions pushed into a caller-owned array: no statechart, no snapshots, no
 * copies (messages are pushed in place, text is appended to a string). It keeps the chart's
 * rules that cost something per event (tool results in call order, bounded retries, queued
 * input) so it does the same work, not less.
 */
import type {
  AgentAction,
  AgentEvent,
  LlmRequest,
  Message,
  ToolCall,
  ToolOutcome,
  ToolResultBlock,
} from '../../src/index.js';
import type { Delta } from './conversation.js';
import type { LoopSubject } from './loopSubject.js';

type StateName = 'WaitingForUserInput' | 'CallingLlm' | 'ExecutingTools' | 'Error' | 'ShuttingDown';

export interface HandState {
  state: StateName;
  messages: Message[];
  queue: Message[];
  streamingText: string;
  streamingArgs: Map<string, string>;
  calls: ToolCall[];
  outcomes: Map<string, ToolOutcome>;
  retries: number;
}

const MAX_RETRIES = 3;
const MODEL = 'claude-sonnet-5-5';

export function createHandState(prior: readonly Message[]): HandState {
  const messages = prior.slice();
  // Grow the array once now, as a long-lived session's array already has: appends are then
  // amortised O(1), not one O(n) reallocation on the first push of a freshly sliced array.
  messages.push(messages[0] ?? { role: 'user', content: '' });
  messages.pop();
  return {
    state: 'WaitingForUserInput',
    messages,
    queue: [],
    streamingText: '',
    streamingArgs: new Map(),
    calls: [],
    outcomes: new Map(),
    retries: 0,
  };
}

function request(state: HandState): LlmRequest {
  return { model: MODEL, maxTokens: 4096, messages: state.messages };
}

function startTurn(state: HandState, message: Message, out: AgentAction[]): void {
  state.messages.push(message);
  state.retries = 0;
  state.state = 'CallingLlm';
  out.push({ type: 'SendLlmRequest', request: request(state), attempt: state.retries + 1 });
}

function endTurn(state: HandState, out: AgentAction[]): void {
  state.state = 'WaitingForUserInput';
  const next = state.queue.shift();
  if (next === undefined) out.push({ type: 'WaitForInput' });
  else startTurn(state, next, out);
}

/** Applies one event; the actions the caller must perform are pushed onto `out`. */
export function reduce(state: HandState, event: AgentEvent, out: AgentAction[]): void {
  switch (event.type) {
    case 'UserInput':
      if (state.state === 'WaitingForUserInput') startTurn(state, event.message, out);
      else if (state.state !== 'ShuttingDown') state.queue.push(event.message);
      return;
    case 'LlmTextDelta':
      if (state.state !== 'CallingLlm') return;
      state.streamingText += event.content;
      out.push({ type: 'DisplayMessage', text: event.content });
      return;
    case 'LlmToolCallDelta':
      if (state.state !== 'CallingLlm') return;
      state.streamingArgs.set(
        event.callId,
        (state.streamingArgs.get(event.callId) ?? '') + event.argumentsFragment,
      );
      return;
    case 'LlmCompleted': {
      if (state.state !== 'CallingLlm') return;
      const message = event.response.message;
      state.messages.push(message);
      state.streamingText = '';
      state.streamingArgs.clear();
      // Attempts count per model call, as the chart counts them.
      state.retries = 0;
      state.calls = [];
      state.outcomes.clear();
      if (typeof message.content !== 'string') {
        for (const block of message.content) {
          if (block.type === 'tool_use') {
            const use = block as ToolCall & { type: 'tool_use' };
            state.calls.push({ id: use.id, name: use.name, input: use.input });
          }
        }
      }
      if (state.calls.length === 0) return endTurn(state, out);
      state.state = 'ExecutingTools';
      out.push({ type: 'ExecuteTools', calls: state.calls });
      return;
    }
    case 'ToolCompleted': {
      if (state.state !== 'ExecutingTools' || state.outcomes.has(event.callId)) return;
      state.outcomes.set(event.callId, event.outcome);
      if (state.outcomes.size < state.calls.length) return;
      // Every call answered: results in the order the model asked for them.
      const content: ToolResultBlock[] = state.calls.map((call) => resultBlock(call, state));
      state.messages.push({ role: 'user', content });
      state.state = 'CallingLlm';
      out.push({ type: 'SendLlmRequest', request: request(state), attempt: state.retries + 1 });
      return;
    }
    case 'LlmError':
      if (state.state !== 'CallingLlm') return;
      if (state.retries + 1 < MAX_RETRIES) {
        state.retries += 1;
        state.state = 'Error';
        out.push({
          type: 'ScheduleRetry',
          delayMs: 200 * 2 ** state.retries,
          attempt: state.retries + 1,
        });
      } else {
        out.push({ type: 'DisplayError', message: event.error.message });
        endTurn(state, out);
      }
      return;
    case 'RetryTimeoutFired':
      if (state.state !== 'Error') return;
      state.state = 'CallingLlm';
      out.push({ type: 'SendLlmRequest', request: request(state), attempt: state.retries + 1 });
      return;
    case 'ShutdownRequested':
      state.state = 'ShuttingDown';
      out.push({ type: 'Shutdown', discardedInput: state.queue.splice(0) });
      return;
    default:
      return;
  }
}

function resultBlock(call: ToolCall, state: HandState): ToolResultBlock {
  const outcome = state.outcomes.get(call.id);
  if (outcome === undefined || outcome.status === 'error') {
    const message = outcome?.status === 'error' ? outcome.error.message : 'not run';
    return { type: 'tool_result', tool_use_id: call.id, content: message, is_error: true };
  }
  const output = 'output' in outcome ? outcome.output : outcome.content;
  const content = typeof output === 'string' ? output : JSON.stringify(output);
  return { type: 'tool_result', tool_use_id: call.id, content };
}

/** The reducer with a caller loop that performs `DisplayMessage` by calling a text listener. */
export function handReducerSubject(
  prior: readonly Message[],
): LoopSubject & { handState: HandState } {
  const state = createHandState(prior);
  let textSeen = 0;
  const deliver = (event: AgentEvent): void => {
    // A fresh array per event: emptying a reused one (`out.length = 0`) gives up its backing
    // store, so the next push reallocates it, and costs about three times as much here.
    const out: AgentAction[] = [];
    reduce(state, event, out);
    for (const action of out) if (action.type === 'DisplayMessage') textSeen += action.text.length;
  };
  return {
    handState: state,
    deliver,
    deliverTick(deltas: readonly Delta[]) {
      for (const delta of deltas) deliver(delta);
    },
    get state() {
      return state.state;
    },
    get messageCount() {
      return state.messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}
