/**
 * LangGraph.js as a per-turn subject: the same loop, the way its docs build an agent: a `StateGraph`
 * whose `messages` channel has an append reducer, a `model` node, a `tools` node, and a
 * conditional edge model → tools → model until the model answers without tool calls. The model
 * streams its deltas through the custom stream writer (`config.writer`, the lightest streaming
 * path LangGraph has) and the tools are instant and synchronous, so what is measured is the
 * graph's own overhead. Run without a checkpointer (the caller keeps the transcript) and with
 * `MemorySaver` (the graph keeps it, per thread).
 */
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  type LangGraphRunnableConfig,
  MemorySaver,
  START,
  StateGraph,
} from '@langchain/langgraph';
import type { Message, ToolResultBlock } from '../../src/index.js';
import type { Delta, TurnScript } from './conversation.js';
import { toolCallsOf } from '../subjects/toolCallsOf.js';

const LoopState = Annotation.Root({
  messages: Annotation<Message[]>({
    reducer: (current, update) => current.concat(update),
    default: () => [],
  }),
});
type LoopStateType = typeof LoopState.State;

function isToolResults(message: Message | undefined): boolean {
  return Array.isArray(message?.content) && message.content[0]?.type === 'tool_result';
}

function writeDeltas(config: LangGraphRunnableConfig, deltas: readonly Delta[]): void {
  for (const delta of deltas) {
    config.writer?.(delta.type === 'LlmTextDelta' ? delta.content : delta.argumentsFragment);
  }
}

/** The agent graph for one scripted turn: first response calls two tools, the second answers. */
export function buildLoopGraph(script: TurnScript) {
  return new StateGraph(LoopState)
    .addNode('model', (state: LoopStateType, config: LangGraphRunnableConfig) => {
      const afterTools = isToolResults(state.messages[state.messages.length - 1]);
      writeDeltas(config, afterTools ? script.secondDeltas : script.firstDeltas);
      const response = afterTools ? script.secondResponse : script.firstResponse;
      return { messages: [response.message] };
    })
    .addNode('tools', (state: LoopStateType) => {
      const calls = toolCallsOf(state.messages[state.messages.length - 1]);
      const content = calls.map((call): ToolResultBlock => {
        const result = script.toolResults.find((event) => event.callId === call.id);
        const output =
          result !== undefined && 'output' in result.outcome ? String(result.outcome.output) : '';
        return { type: 'tool_result', tool_use_id: call.id, content: output };
      });
      return { messages: [{ role: 'user' as const, content }] };
    })
    .addEdge(START, 'model')
    .addConditionalEdges(
      'model',
      (state: LoopStateType) =>
        toolCallsOf(state.messages[state.messages.length - 1]).length > 0 ? 'tools' : END,
      ['tools', END],
    )
    .addEdge('tools', 'model');
}

/** One session of the graph with its text listener. */
export interface LangGraphSession {
  runTurn(): Promise<void>;
  /** Length of the transcript as the graph (or the caller) holds it now. */
  countMessages(): Promise<number>;
  readonly textSeen: number;
}

/**
 * Without a checkpointer the graph is stateless: the caller keeps the transcript and passes it in
 * every turn, reading the final state off the `values` stream.
 */
export function statelessSession(
  graph: ReturnType<typeof compileLoop>,
  script: TurnScript,
  prior: readonly Message[],
): LangGraphSession {
  let messages: Message[] = prior.slice();
  let textSeen = 0;
  return {
    async runTurn() {
      const input = { messages: messages.concat([script.user]) };
      const stream = await graph.stream(input, { streamMode: ['custom', 'values'] });
      for await (const [mode, chunk] of stream) {
        if (mode === 'custom') textSeen += String(chunk).length;
        else messages = chunk.messages;
      }
    },
    countMessages: () => Promise.resolve(messages.length),
    get textSeen() {
      return textSeen;
    },
  };
}

/** With a checkpointer the graph keeps the transcript per thread; the caller sends the new input. */
export async function checkpointedSession(
  graph: ReturnType<typeof compileLoop>,
  script: TurnScript,
  prior: readonly Message[],
  threadId: string,
): Promise<LangGraphSession> {
  const config = { configurable: { thread_id: threadId } };
  await graph.updateState(config, { messages: prior.slice() }, START);
  let textSeen = 0;
  return {
    async runTurn() {
      const stream = await graph.stream(
        { messages: [script.user] },
        { ...config, streamMode: 'custom' as const },
      );
      for await (const chunk of stream) textSeen += String(chunk).length;
    },
    async countMessages() {
      const state = await graph.getState(config);
      return (state.values as LoopStateType).messages.length;
    },
    get textSeen() {
      return textSeen;
    },
  };
}

export function compileLoop(script: TurnScript, checkpointer?: BaseCheckpointSaver) {
  return buildLoopGraph(script).compile(checkpointer === undefined ? {} : { checkpointer });
}

export function newMemorySaver(): MemorySaver {
  return new MemorySaver();
}
