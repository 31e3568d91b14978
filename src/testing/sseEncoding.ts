/**
 * Server-sent event framing as the Messages API uses it: one `event:` line, one `data:` line of
 * JSON, and a blank line closing the frame.
 */

/**
 * One server-sent event before framing: its name and the JSON value of its `data` line.
 *
 * @example
 * const event: SseEvent = { event: 'message_stop', data: { type: 'message_stop' } };
 */
export interface SseEvent {
  event: string;
  data: unknown;
}

/**
 * Frames one event as the Messages API sends it: `event: X\ndata: {json}\n\n`.
 *
 * `JSON.stringify` never emits a raw newline, so the data always fits on one `data:` line.
 *
 * @example
 * encodeSseEvent({ event: 'ping', data: { type: 'ping' } });
 * // 'event: ping\ndata: {"type":"ping"}\n\n'
 */
export function encodeSseEvent({ event, data }: SseEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Cuts a recorded SSE stream into its frames without changing a byte: joining the result gives
 * the input back. A frame ends at a blank line (`\n\n` or `\r\n\r\n`); trailing whitespace after
 * the last frame stays with that frame so nothing is lost or sent as an event of its own.
 *
 * Replays go frame by frame so that delays and cuts fall between events, as they would on the
 * wire, while the bytes stay verbatim.
 *
 * @example
 * splitSseFrames('event: a\ndata: {}\n\nevent: b\ndata: {}\n\n');
 * // ['event: a\ndata: {}\n\n', 'event: b\ndata: {}\n\n']
 */
export function splitSseFrames(stream: string): string[] {
  const frames: string[] = [];
  const frameEnd = /\r?\n\r?\n/g;
  let start = 0;
  for (let match = frameEnd.exec(stream); match !== null; match = frameEnd.exec(stream)) {
    const end = match.index + match[0].length;
    frames.push(stream.slice(start, end));
    start = end;
  }
  const rest = stream.slice(start);
  if (rest.length === 0) return frames;
  const last = frames.length - 1;
  if (rest.trim() === '' && last >= 0) {
    frames[last] = `${frames[last]}${rest}`;
  } else {
    frames.push(rest);
  }
  return frames;
}

/**
 * Reads one frame back: its event name and the text of its `data:` lines (joined by newlines, as
 * server-sent events define). Comment lines and other fields are skipped.
 *
 * @example
 * parseSseFrame('event: ping\ndata: {"type": "ping"}\n\n');
 * // { event: 'ping', data: '{"type": "ping"}' }
 */
export function parseSseFrame(frame: string): { event: string | undefined; data: string } {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of frame.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { event, data: data.join('\n') };
}
