/**
 * The test MCP server (testServer.ts) over stdio. Start it from the repository root with
 *
 *   node --import tsx test/support/mcp/stdioServer.ts
 *
 * (tsx's loader is resolved from the working directory; from elsewhere pass its absolute URL, as
 * `stdioServerCommand()` in startMcpHttpServer.ts does). Environment: see testServer.ts.
 *
 * stdout carries the protocol and nothing else; anything to say goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestServer } from './testServer.js';

// A stray console.log (ours or a dependency's) would corrupt the JSON-RPC stream on stdout.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

const server = createTestServer();
await server.connect(new StdioServerTransport());

// The SDK's stdio transport does not watch for the end of stdin, and a running tool (a `slow`
// one's timers) would keep the process alive after the client has gone; a client closing stdin
// means it is done with us.
process.stdin.once('end', () => {
  void server.close().finally(() => process.exit(0));
});
