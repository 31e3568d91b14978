/**
 * (d) LangGraph.js, the way its docs build a tool-calling agent: a `StateGraph` over
 * `MessagesAnnotation` with a model node (`ChatAnthropic` from `@langchain/anthropic`, streaming,
 * tools bound) and a `ToolNode`, routed by `toolsCondition`; text reaches the caller through
 * `streamMode: 'messages'`. One compiled graph serves every agent of the process, as a service
 * would share it. Without a checkpointer the caller keeps the transcript (read off the `values`
 * stream); with `MemorySaver` the graph keeps it per thread.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import * as turn from '../agentTurn.js';
import { API_KEY, type DensitySubject } from '../densitySubject.js';
import { NOTE_INPUT } from '../noteInput.js';

const readNoteTool = tool(({ name }) => turn.readNote(name), {
  name: turn.TOOL_NAME,
  description: turn.TOOL_DESCRIPTION,
  schema: NOTE_INPUT,
});

function compileGraph(baseURL: string, checkpointed: boolean) {
  const model = new ChatAnthropic({
    model: turn.MODEL,
    maxTokens: turn.MAX_TOKENS,
    apiKey: API_KEY,
    anthropicApiUrl: baseURL,
    streaming: true,
    maxRetries: 0,
  }).bindTools([readNoteTool]);
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state: typeof MessagesAnnotation.State) => ({
      messages: [await model.invoke(state.messages)],
    }))
    .addNode('tools', new ToolNode([readNoteTool]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile(checkpointed ? { checkpointer: new MemorySaver() } : {});
}

type Graph = ReturnType<typeof compileGraph>;

/** Text of a streamed model chunk from the agent node; nothing for any other message. */
function streamedText(chunk: BaseMessage, metadata: Record<string, unknown>): number {
  if (metadata.langgraph_node !== 'agent' || !AIMessage.isInstance(chunk)) return 0;
  return chunk.text.length;
}

export function langGraphSubject(checkpointed: boolean): DensitySubject {
  const graphs = new Map<string, Graph>();
  let threads = 0;
  const graphFor = (baseURL: string): Graph => {
    let graph = graphs.get(baseURL);
    if (graph === undefined) graphs.set(baseURL, (graph = compileGraph(baseURL, checkpointed)));
    return graph;
  };
  return {
    createAgent(baseURL) {
      const graph = graphFor(baseURL);
      const config = { configurable: { thread_id: `agent-${threads++}` } };
      let textSeen = 0;
      let transcript: BaseMessage[] = [];
      const input = () => ({ messages: [...transcript, new HumanMessage(turn.PROMPT)] });
      return {
        async runTurn() {
          if (checkpointed) {
            const stream = await graph.stream(
              { messages: [new HumanMessage(turn.PROMPT)] },
              { ...config, streamMode: 'messages' },
            );
            for await (const [chunk, metadata] of stream) textSeen += streamedText(chunk, metadata);
            return;
          }
          const stream = await graph.stream(input(), { streamMode: ['messages', 'values'] });
          for await (const [mode, value] of stream) {
            if (mode === 'messages') textSeen += streamedText(value[0], value[1]);
            else transcript = value.messages;
          }
        },
        async check() {
          if (!checkpointed) return turn.turnProblem(textSeen, transcript.length);
          const state = await graph.getState(config);
          return turn.turnProblem(
            textSeen,
            (state.values as typeof MessagesAnnotation.State).messages.length,
          );
        },
      };
    },
  };
}
