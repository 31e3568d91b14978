/**
 * The model client of an agent's `llm` actor, from `createAgent`'s `anthropic` and `transport`
 * options: the client given, or one built on the first call over the transport chosen.
 */

import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import { AgentStatechartError } from '../../machine/index.js';
import { autoLlmClient, createLeanTransport, leanTransportObstacle } from './leanTransport.js';
import type { LlmTransport } from './llmTransport.js';

/**
 * How the package's own model calls go over the wire when it builds the client itself:
 *
 * - `'lean'`: the request the SDK builds, sent over a keep-alive `node:http`/`node:https` pool,
 *   its event stream decoded by the package (see `createLeanTransport`); options it cannot honour
 *   are refused;
 * - `'sdk'`: the SDK's own streaming (`fetch`);
 * - `'auto'` (the default): lean where it honours every option, else the SDK.
 *
 * A client instance passed as `anthropic` always streams through the SDK.
 *
 * @example
 * const agent = createAgent({ anthropic: { apiKey }, transport: 'sdk' });
 */
export type LlmTransportChoice = 'auto' | 'lean' | 'sdk';

const CHOICES: readonly string[] = ['auto', 'lean', 'sdk'] satisfies LlmTransportChoice[];

/**
 * The `llm` actor's client: the instance given, else a factory that builds one on the first call
 * (so a missing API key is an `auth` error of that call, not a throw at start-up), SDK retries
 * off: the chart retries.
 *
 * @example
 * const llm = createLlmActor({ client: llmClientFor({ apiKey }, 'auto') });
 */
export function llmClientFor(
  anthropic: Anthropic | ClientOptions | undefined,
  transport: LlmTransportChoice = 'auto',
): Anthropic | (() => Anthropic | LlmTransport) {
  if (isClient(anthropic)) return anthropic;
  switch (transport) {
    case 'sdk':
      return () => new Anthropic({ ...anthropic, maxRetries: 0 });
    case 'lean':
      return () => createLeanTransport(anthropic);
    case 'auto':
      return () => autoLlmClient(anthropic);
  }
}

/**
 * The environment variable that chooses the transport of every agent whose `transport` option is
 * left out (`auto`, `lean` or `sdk`): a switch for operations, to go back to the SDK's own
 * streaming without a change to the code.
 *
 * @example
 * // AGENT_STATECHART_TRANSPORT=sdk node service.js
 */
export const TRANSPORT_ENV = 'AGENT_STATECHART_TRANSPORT';

/**
 * The transport an agent streams with: the `transport` option, else {@link TRANSPORT_ENV}, else
 * `'auto'`. Refuses one that cannot be what it says, with `INVALID_OPTION` naming where it came
 * from: an unknown name, `'lean'` with a client instance, or `'lean'` with options it cannot
 * honour. A client instance streams through the SDK whatever the environment says.
 *
 * @example
 * resolveLlmTransport({ fetch: myFetch }, 'lean'); // throws: … cannot honour a custom fetch …
 */
export function resolveLlmTransport(
  anthropic: Anthropic | ClientOptions | undefined,
  transport: LlmTransportChoice | undefined,
  env: NodeJS.ProcessEnv = process.env,
): LlmTransportChoice {
  const fromEnv = (env[TRANSPORT_ENV] ?? '').trim();
  if (transport === undefined && fromEnv === '') return 'auto';
  const source = transport === undefined ? TRANSPORT_ENV : 'transport';
  const choice = (transport ?? fromEnv) as LlmTransportChoice;
  if (!CHOICES.includes(choice)) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `${source} is ${JSON.stringify(choice)}; use one of ${CHOICES.join(', ')}`,
    );
  }
  if (choice !== 'lean') return choice;
  if (isClient(anthropic)) {
    if (transport === undefined) return 'auto';
    throw new AgentStatechartError(
      'INVALID_OPTION',
      "transport 'lean' builds its own client: pass anthropic as options ({ apiKey, baseURL, … }), or keep your client instance with transport 'sdk' or 'auto'",
    );
  }
  const obstacle = leanTransportObstacle(anthropic ?? {});
  if (obstacle !== undefined) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `${source} 'lean' cannot honour ${obstacle} in the anthropic options: use 'sdk' or 'auto'`,
    );
  }
  return choice;
}

/**
 * A client instance rather than options to build one: the SDK's `Anthropic`, or another client
 * on the SDK's base (Bedrock, Vertex), which has `messages` where options have none.
 *
 * @example
 * isClient(new Anthropic()); // true
 * isClient({ apiKey: 'sk-…' }); // false
 */
export function isClient(value: Anthropic | ClientOptions | undefined): value is Anthropic {
  return value instanceof Anthropic || (typeof value === 'object' && 'messages' in value);
}
