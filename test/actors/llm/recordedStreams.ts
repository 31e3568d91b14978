/**
 * Every stream in test/fixtures/anthropic-sse, and the same streams written the other ways the
 * event-stream format allows, for the tests that hold the lean transport to the SDK's reading.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { splitSseFrames } from '../../../src/testing/index.js';

const DIRECTORY = fileURLToPath(new URL('../../fixtures/anthropic-sse/', import.meta.url));

/** The recorded (and constructed) streams, by file name. */
export const RECORDED_STREAMS: ReadonlyArray<{ name: string; sse: string }> = readdirSync(DIRECTORY)
  .filter((name) => name.endsWith('.sse'))
  .sort()
  .map((name) => ({ name, sse: readFileSync(`${DIRECTORY}${name}`, 'utf8') }));

/** The stream's `data` JSON spread over one `data:` line per line of its indented form. */
function dataOverManyLines(frame: string): string {
  return frame.replace(/^data: ?(.*)$/m, (_line, json: string) =>
    JSON.stringify(JSON.parse(json), null, 1)
      .split('\n')
      .map((part) => `data:${part}`)
      .join('\n'),
  );
}

/**
 * `sse` as recorded and written in each other way the standard reads the same: CRLF or CR line
 * ends, a byte order mark, comments and `id`/`retry` fields between and inside events, data over
 * many lines, no space after the colons.
 */
export function streamVariants(sse: string): Array<{ variant: string; sse: string }> {
  const frames = splitSseFrames(sse);
  return [
    { variant: 'as recorded', sse },
    { variant: 'CRLF line ends', sse: sse.replace(/\r?\n/g, '\r\n') },
    { variant: 'CR line ends', sse: sse.replace(/\r?\n/g, '\r') },
    { variant: 'a byte order mark', sse: `\uFEFF${sse}` },
    {
      variant: 'comments, ids and retries',
      sse: frames
        .map(
          (frame, index) => `: keep-alive\nid: ${index}\n${frame.replace('\n', '\nretry: 10\n')}`,
        )
        .join(''),
    },
    { variant: 'data over many lines', sse: frames.map(dataOverManyLines).join('') },
    { variant: 'no space after the colons', sse: sse.replace(/^(event|data): /gm, '$1:') },
  ];
}
