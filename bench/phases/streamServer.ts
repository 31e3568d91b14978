/**
 * The local Messages API server (src/testing), in a process of its own so it does not compete
 * with the client for the event loop. It answers every request with one long text reply,
 * streamed as fast as the socket takes it, and prints its base URL.
 */
import { reply, startMessagesApiServer } from '../../src/testing/index.js';

const STREAM_TEXT = 'abcd'.repeat(4000);

const server = await startMessagesApiServer({
  script: () => reply(STREAM_TEXT, { textChunkSize: 4 }),
});
process.stdout.write(`${server.baseURL}\n`);
