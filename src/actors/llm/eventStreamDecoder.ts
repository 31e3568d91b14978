/**
 * Server-sent events read straight from the bytes of a response body, as the WHATWG HTML
 * standard interprets an event stream (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 */

import { StringDecoder } from 'node:string_decoder';

/**
 * Receives one dispatched event: the value of its last `event` field (`undefined` when it had
 * none) and its `data` lines joined by line feeds.
 *
 * @example
 * const listener: EventStreamListener = (type, data) => {
 *   if (type === 'message_stop') console.log('done', data);
 * };
 */
export type EventStreamListener = (type: string | undefined, data: string) => void;

const LINE_FEED = 0x0a;
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Decodes an event stream chunk by chunk, whatever the chunk boundaries: a line, a UTF-8
 * character or a CRLF pair split between two reads comes out as if it had arrived whole.
 *
 * Follows the standard: lines end with CRLF, LF or CR; one byte order mark at the very start is
 * skipped; a line starting with `:` is a comment; `data` lines accumulate, joined by LF; a blank
 * line dispatches; an event the stream ends in the middle of is dropped. `id` and `retry` only
 * matter to a client that reconnects, which a model call never does, so they are read and
 * ignored. One addition, as the Anthropic SDK reads streams: an event with an `event` field and
 * no `data` line is dispatched with empty data (the standard drops it), so an `error` event that
 * carries no body still ends the stream as an error.
 *
 * The listener runs synchronously inside {@link push}; what it throws leaves `push` (the rest of
 * that chunk is then not decoded).
 *
 * @example
 * const decoder = new EventStreamDecoder((type, data) => events.push({ type, data }));
 * response.on('data', (chunk: Buffer) => decoder.push(chunk));
 * response.on('end', () => decoder.end());
 */
export class EventStreamDecoder {
  private readonly utf8 = new StringDecoder('utf8');
  private readonly listener: EventStreamListener;
  /** The part of a line that arrived without its line end yet. */
  private partial = '';
  /** Nothing decoded yet, so a byte order mark may still come. */
  private atStart = true;
  /** The last line ended with CR: a LF opening the next chunk completes that CRLF. */
  private afterCarriageReturn = false;
  private type: string | undefined = undefined;
  private data: string | undefined = undefined;

  constructor(listener: EventStreamListener) {
    this.listener = listener;
  }

  /**
   * Decodes the next bytes of the stream, dispatching every event they complete.
   *
   * @example
   * decoder.push(Buffer.from('event: ping\ndata: {"type":"ping"}\n\n'));
   */
  push(chunk: Uint8Array): void {
    let text = this.utf8.write(chunk);
    if (text === '') return;
    if (this.atStart) {
      this.atStart = false;
      if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
    }
    let start = 0;
    if (this.afterCarriageReturn) {
      this.afterCarriageReturn = false;
      if (text.charCodeAt(0) === LINE_FEED) start = 1;
    }
    this.readLines(text, start);
  }

  /**
   * The stream is over: an event still being read is dropped, as the standard says.
   *
   * @example
   * response.on('end', () => decoder.end());
   */
  end(): void {
    this.utf8.end();
    this.partial = '';
    this.type = undefined;
    this.data = undefined;
  }

  private readLines(text: string, from: number): void {
    let start = from;
    let lineFeed = text.indexOf('\n', start);
    let carriageReturn = text.indexOf('\r', start);
    while (lineFeed !== -1 || carriageReturn !== -1) {
      let end: number;
      let next: number;
      if (carriageReturn === -1 || (lineFeed !== -1 && lineFeed < carriageReturn)) {
        end = lineFeed;
        next = end + 1;
      } else {
        end = carriageReturn;
        next = end + 1;
        if (next === text.length) this.afterCarriageReturn = true;
        else if (text.charCodeAt(next) === LINE_FEED) next += 1;
      }
      const line = text.slice(start, end);
      if (this.partial === '') {
        this.readLine(line);
      } else {
        const whole = this.partial + line;
        this.partial = '';
        this.readLine(whole);
      }
      start = next;
      if (lineFeed !== -1 && lineFeed < start) lineFeed = text.indexOf('\n', start);
      if (carriageReturn !== -1 && carriageReturn < start) {
        carriageReturn = text.indexOf('\r', start);
      }
    }
    if (start < text.length) this.partial += text.slice(start);
  }

  private readLine(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = '';
    if (colon !== -1) {
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    if (field === 'data') this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (field === 'event') this.type = value;
  }

  private dispatch(): void {
    const { type, data } = this;
    if (type === undefined && data === undefined) return;
    this.type = undefined;
    this.data = undefined;
    this.listener(type, data ?? '');
  }
}
