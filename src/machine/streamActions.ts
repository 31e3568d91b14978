/**
 * The chart's actions that run for every piece of a stream (model text, tool-call fragments, tool
 * progress): plain functions of the context and the event, each one `assign` or `emit` in the
 * chart, with no action queue.
 */
import { assertEvent } from 'xstate';
import type { AgentAction } from './actions.js';
import type { AgentContext } from './context.js';
import type { AgentEvent } from './events.js';
import { updateRun } from './toolRuns.js';

/**
 * Streamed text is appended to its own field. The hottest transition of a turn: string
 * concatenation builds a rope in V8, O(1) per delta whatever the length.
 */
export function appendStreamedText(
  context: AgentContext,
  event: AgentEvent,
): Pick<AgentContext, 'streamingText'> {
  assertEvent(event, 'LlmTextDelta');
  return { streamingText: context.streamingText + event.content };
}

/** What the user is shown of a text delta. */
export function streamedTextShown(event: AgentEvent): AgentAction {
  assertEvent(event, 'LlmTextDelta');
  return { type: 'DisplayMessage', text: event.content };
}

/** A fragment of a streamed tool call's input joins the call it belongs to. */
export function appendToolCallFragment(
  context: AgentContext,
  event: AgentEvent,
): Pick<AgentContext, 'streamingToolCalls'> {
  assertEvent(event, 'LlmToolCallDelta');
  const calls = context.streamingToolCalls;
  const last = calls[calls.length - 1];
  // Fragments of one call come together; the last call is the one to look at first.
  if (last !== undefined && last.id === event.callId) {
    const updated = { ...last, argumentsJson: last.argumentsJson + event.argumentsFragment };
    return { streamingToolCalls: calls.slice(0, -1).concat([updated]) };
  }
  if (calls.some((call) => call.id === event.callId)) {
    return {
      streamingToolCalls: calls.map((call) =>
        call.id === event.callId
          ? { ...call, argumentsJson: call.argumentsJson + event.argumentsFragment }
          : call,
      ),
    };
  }
  const started = {
    id: event.callId,
    name: event.toolName,
    argumentsJson: event.argumentsFragment,
  };
  return { streamingToolCalls: calls.concat([started]) };
}

/** A running call's latest progress report, for whoever shows it. */
export function recordToolProgress(
  context: AgentContext,
  event: AgentEvent,
): Pick<AgentContext, 'toolRuns'> {
  assertEvent(event, 'ToolProgress');
  return { toolRuns: updateRun(context.toolRuns, event.callId, { progress: event.progress }) };
}
