/**
 * (c) The naive XState machine (bench/subjects/naiveXstate.ts) with real actors: the model call
 * streams with the SDK and sends every delta to the machine as its own event, a full transition
 * each; each tool call is a child actor running the tool.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { type AnyEventObject, createActor, fromCallback } from 'xstate';
import type { AgentEvent, Message, ToolCall } from '../../../src/index.js';
import { naiveMachine } from '../../subjects/naiveMachine.js';
import * as turn from '../agentTurn.js';
import { API_KEY, type DensitySubject } from '../densitySubject.js';

function modelCall(client: Anthropic) {
  return fromCallback<AnyEventObject, { messages: Message[] }>(({ input, sendBack }) => {
    const send = (event: AgentEvent) => sendBack(event);
    const stream = client.messages.stream({
      model: turn.MODEL,
      max_tokens: turn.MAX_TOKENS,
      messages: input.messages as MessageParam[],
      tools: [turn.TOOL_DEFINITION],
    });
    stream.on('text', (content) => send({ type: 'LlmTextDelta', content }));
    stream.on('streamEvent', (event) => {
      if (event.type !== 'content_block_delta' || event.delta.type !== 'input_json_delta') return;
      send({
        type: 'LlmToolCallDelta',
        callId: String(event.index),
        toolName: turn.TOOL_NAME,
        argumentsFragment: event.delta.partial_json,
      });
    });
    stream.finalMessage().then(
      (message) =>
        send({
          type: 'LlmCompleted',
          response: {
            message: { role: 'assistant', content: message.content as Message['content'] },
            stopReason: message.stop_reason ?? undefined,
          },
        }),
      (error: unknown) =>
        send({ type: 'LlmError', error: { kind: 'unknown', message: String(error) } }),
    );
    return () => stream.abort();
  });
}

const toolRun = fromCallback<AnyEventObject, { call: ToolCall }>(({ input, sendBack }) => {
  const { call } = input;
  // A tool runs asynchronously, as any real tool actor does.
  void Promise.resolve().then(() => {
    const name = (call.input as { name?: unknown }).name;
    const output = typeof name === 'string' ? turn.readNote(name) : 'input.name must be a string';
    sendBack({
      type: 'ToolCompleted',
      callId: call.id,
      outcome: { status: 'success', output },
    } satisfies AgentEvent);
  });
});

export const naiveMachineSubject: DensitySubject = {
  createAgent(baseURL) {
    const client = new Anthropic({ baseURL, apiKey: API_KEY, maxRetries: 0 });
    const machine = naiveMachine.provide({ actors: { llm: modelCall(client), tool: toolRun } });
    const actor = createActor(machine, { input: { messages: [] } });
    let textSeen = 0;
    actor.on('DisplayMessage', ({ text }) => {
      textSeen += text.length;
    });
    actor.start();
    return {
      runTurn() {
        return new Promise<void>((resolve) => {
          actor.send({ type: 'UserInput', message: { role: 'user', content: turn.PROMPT } });
          const subscription = actor.subscribe((snapshot) => {
            if (snapshot.value !== 'WaitingForUserInput') return;
            subscription.unsubscribe();
            resolve();
          });
        });
      },
      check: () => turn.turnProblem(textSeen, actor.getSnapshot().context.messages.length),
      close: () => {
        actor.stop();
        return Promise.resolve();
      },
    };
  },
};
