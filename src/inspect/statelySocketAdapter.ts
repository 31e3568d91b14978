/**
 * The WebSocket link from this process to Stately's relay. `@statelyai/inspect` has its own
 * (`createWebSocketInspector`), but it cannot be stopped while connecting or while the relay is
 * down: it retries every 5 s forever and keeps the process alive. This one stops for good, backs
 * off, never holds the process open, and bounds what it buffers while disconnected.
 */
import { importOptionalPeer } from '../persistence/index.js';

/** The part of a WebSocket (WHATWG or `ws`) this adapter uses. */
interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  // `never` parameters accept both the WHATWG and the `ws` handler signatures.
  onopen: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
}

/**
 * A WebSocket class: the platform's (`globalThis.WebSocket`, Node 22+ and browsers) or `ws`'s.
 *
 * @example
 * const Socket: SocketConstructor = (await import('ws')).WebSocket;
 */
export type SocketConstructor = new (url: string) => SocketLike;

const OPEN = 1;

/**
 * Finds a WebSocket client: the platform's, else the `ws` package (Node 20).
 *
 * @example
 * const Socket = await loadWebSocket();
 */
export async function loadWebSocket(): Promise<SocketConstructor> {
  const platform = (globalThis as { WebSocket?: SocketConstructor }).WebSocket;
  if (platform !== undefined) return platform;
  const module = await importOptionalPeer(
    'ws',
    'Streaming to the Stately inspector on Node 20',
    () => import('ws'),
  );
  return module.WebSocket;
}

/**
 * Options of {@link StatelySocketAdapter}.
 *
 * @example
 * const options: StatelySocketAdapterOptions = { url: 'ws://localhost:8080', Socket, onError: console.warn };
 */
export interface StatelySocketAdapterOptions {
  url: string;
  Socket: SocketConstructor;
  /** Messages kept while disconnected; the oldest are dropped beyond it. Default 1,000. */
  maxBuffered?: number;
  /** Told when the relay cannot be reached (once per outage, not per retry). */
  onError: (error: Error) => void;
}

/**
 * A Stately inspector adapter (`{ start, stop, send }`, as `createInspector` takes it) that sends
 * each inspection event as one JSON text message.
 *
 * @example
 * const adapter = new StatelySocketAdapter({ url: 'ws://localhost:8080', Socket, onError: console.warn });
 * const inspector = createInspector(adapter, { serialize });
 */
export class StatelySocketAdapter {
  readonly #options: StatelySocketAdapterOptions;
  readonly #buffer: string[] = [];
  #socket: SocketLike | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryDelayMs = 500;
  #stopped = false;
  #reported = false;
  #closed: (() => void) | undefined;

  /**
   * @example
   * new StatelySocketAdapter({ url, Socket: await loadWebSocket(), onError });
   */
  constructor(options: StatelySocketAdapterOptions) {
    this.#options = options;
  }

  /**
   * Connects (and keeps reconnecting, with backoff, until {@link stop}).
   *
   * @example
   * adapter.start();
   */
  start(): void {
    if (this.#stopped || this.#socket !== undefined) return;
    let socket: SocketLike;
    try {
      socket = new this.#options.Socket(this.#options.url);
    } catch (error) {
      // A malformed URL throws at once; retrying would not help.
      this.#stopped = true;
      this.#options.onError(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.#socket = socket;
    socket.onopen = () => {
      this.#retryDelayMs = 500;
      this.#reported = false;
      for (const message of this.#buffer.splice(0)) socket.send(message);
    };
    socket.onerror = () => {
      if (this.#stopped || this.#reported) return;
      this.#reported = true;
      this.#options.onError(
        new Error(`cannot reach the Stately inspector relay at ${this.#options.url}; retrying`),
      );
    };
    socket.onclose = () => {
      this.#socket = undefined;
      if (this.#stopped) {
        this.#closed?.();
        return;
      }
      this.#retryTimer = setTimeout(() => this.start(), this.#retryDelayMs);
      this.#retryTimer.unref();
      this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, 10_000);
    };
  }

  /**
   * Sends one inspection event, or buffers it until connected.
   *
   * @example
   * adapter.send(event);
   */
  send(event: unknown): void {
    if (this.#stopped) return;
    const message = JSON.stringify(event);
    if (this.#socket?.readyState === OPEN) {
      this.#socket.send(message);
      return;
    }
    this.#buffer.push(message);
    if (this.#buffer.length > (this.#options.maxBuffered ?? 1_000)) this.#buffer.shift();
  }

  /**
   * Closes the connection for good; nothing reconnects afterwards.
   *
   * @example
   * adapter.stop();
   */
  stop(): void {
    void this.close();
  }

  /**
   * {@link stop}, resolving once the socket is closed.
   *
   * @example
   * await adapter.close();
   */
  close(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#buffer.length = 0;
    const socket = this.#socket;
    if (socket === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#closed = resolve;
      // Should a socket never report its close, stopping must still finish.
      setTimeout(resolve, 1_000).unref();
      socket.close();
    });
  }
}
