/**
 * Stately's inspector for agents running in a Node service: inspection events go, sanitised,
 * over a WebSocket to a relay (this package's, started here, or one elsewhere), which forwards
 * them to the Stately inspector UI open in a browser. `@statelyai/inspect` is an optional peer
 * dependency, loaded only when this is called.
 */
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';
import { importOptionalPeer } from '../persistence/index.js';
import {
  resolveSanitizeOptions,
  type SanitizeOptions,
  sanitizeWith,
} from './sanitizeForInspection.js';
import {
  loadWebSocket,
  type SocketConstructor,
  StatelySocketAdapter,
} from './statelySocketAdapter.js';
import type { StatelyRelay, StatelyRelayOptions } from './startStatelyRelay.js';

/**
 * Options of {@link createStatelyInspector}.
 *
 * @example
 * const options: StatelyInspectorOptions = { relay: {}, sanitize: { maxStringLength: 500 } };
 */
export interface StatelyInspectorOptions {
  /**
   * The relay's WebSocket address. Default: the relay started here when `relay` is given, else
   * `ws://localhost:8080` (where Stately's own relay listens by default).
   */
  url?: string;
  /**
   * Also start a relay in this process, serving at `relayUrl` a page that embeds the Stately
   * inspector UI (which loads from stately.ai). It listens on `127.0.0.1` and a free port unless
   * told otherwise; another interface needs a `token`, which the page's URL then carries.
   */
  relay?: StatelyRelayOptions;
  /** What leaves the process: redaction, string and array cuts. */
  sanitize?: SanitizeOptions;
  /** Inspection events kept while the relay is unreachable. Default 1,000. */
  maxBufferedEvents?: number;
  /** Told when the relay cannot be reached. Default: `console.warn`. */
  onError?: (error: unknown) => void;
  /** The WebSocket class to use. Default: the platform's, else the `ws` package. */
  WebSocket?: SocketConstructor;
}

/**
 * A running Stately inspector link.
 *
 * @example
 * const stately = await createStatelyInspector({ relay: {} });
 * const agent = createAgent({ inspect: stately.observer });
 */
export interface StatelyInspector {
  /** The inspection observer to pass as `createAgent({ inspect })` or `createActor(…, { inspect })`. */
  readonly observer: Observer<InspectionEvent>;
  /** Where events are sent. */
  readonly url: string;
  /** The relay's page (open it to see Stately's UI), when `relay` was asked for. */
  readonly relayUrl: string | undefined;
  /** Closes the link (and the relay, if started here). */
  stop(): Promise<void>;
}

/**
 * Streams agents to Stately's inspector through its WebSocket relay, with every event sanitised
 * on the way out (credentials redacted, long strings and blobs cut, cycles broken). The machine
 * definition Stately draws from passes unchanged.
 *
 * @example
 * import { createAgent } from 'agent-statechart';
 * import { createStatelyInspector } from 'agent-statechart/inspect';
 *
 * const stately = await createStatelyInspector({ relay: {} });
 * console.log(`open ${stately.relayUrl}`);
 * const agent = createAgent({ inspect: stately.observer });
 * agent.send('Summarise README.md');
 * await agent.waitUntilIdle();
 * await agent.shutdown();
 * await stately.stop();
 */
export async function createStatelyInspector(
  options: StatelyInspectorOptions = {},
): Promise<StatelyInspector> {
  const feature = 'createStatelyInspector';
  const { createInspector } = await importOptionalPeer(
    '@statelyai/inspect',
    feature,
    () => import('@statelyai/inspect'),
  );
  const limits = resolveSanitizeOptions(options.sanitize);
  const onError =
    options.onError ?? ((error) => console.warn('agent-statechart: Stately inspector', error));

  const Socket = options.WebSocket ?? (await loadWebSocket());
  // The relay's HTTP server is loaded only when a relay is asked for: the root entry, which
  // offers this function, loads no node:http of its own.
  const relay: StatelyRelay | undefined =
    options.relay === undefined
      ? undefined
      : await import('./startStatelyRelay.js').then(({ startStatelyRelay }) =>
          startStatelyRelay(options.relay),
        );
  const url = options.url ?? relay?.socketUrl ?? 'ws://localhost:8080';
  const adapter = new StatelySocketAdapter({
    url,
    Socket,
    onError,
    ...(options.maxBufferedEvents === undefined ? {} : { maxBuffered: options.maxBufferedEvents }),
  });
  const inspector = createInspector(adapter, {
    serialize: (event) => sanitizeStatelyEvent(event, limits),
  });
  inspector.start();

  const inspect = inspector.inspect;
  return {
    observer: {
      next: (event) => {
        // Stately shows only these three; the rest (microsteps, actions) would each cost a timer
        // in `@statelyai/inspect` before being dropped. Its conversion runs later, on a timer, so
        // a malformed event must be stopped here, where a failure can still be caught.
        if (!FORWARDED.has(event.type) || typeof event.actorRef?.sessionId !== 'string') return;
        try {
          inspect.next?.(event);
        } catch (error) {
          // Inspection must never break the agent it watches.
          onError(error);
        }
      },
    },
    url,
    relayUrl: relay?.pageUrl,
    async stop() {
      await adapter.close();
      await relay?.stop();
    },
  };
}

const FORWARDED = new Set(['@xstate.actor', '@xstate.event', '@xstate.snapshot']);

/**
 * Sanitises one Stately event. The `definition` (the machine config, as Stately's JSON string) is
 * kept whole: cutting it would break the chart, and it holds the machine's shape, not its data.
 */
function sanitizeStatelyEvent(
  event: StatelyInspectionEvent,
  limits: Required<SanitizeOptions>,
): StatelyInspectionEvent {
  const { definition, ...rest } = event as StatelyInspectionEvent & { definition?: string };
  const clean = sanitizeWith(rest, limits) as Record<string, unknown>;
  if (definition !== undefined) clean.definition = definition;
  // Same shape, fewer secrets: the sanitiser keeps every key it does not redact.
  return clean as unknown as StatelyInspectionEvent;
}
