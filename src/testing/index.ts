/**
 * `agent-statechart/testing`: a local Messages API server for testing agents offline against the
 * real SDK and the API's real wire format.
 *
 * @example
 * import { reply, startMessagesApiServer } from 'agent-statechart/testing';
 * const server = await startMessagesApiServer({ script: [reply('Hello!')] });
 */

export { type ApiErrorBody, type ApiErrorType, apiErrorBody } from './apiErrorBody.js';
export {
  type MessagesApiServer,
  type MessagesApiServerOptions,
  type RecordedRequest,
  type Script,
  type ScriptFunction,
  startMessagesApiServer,
} from './messagesApiServer.js';
export { type MessagesRequestBody, parseMessagesRequest } from './messagesRequest.js';
export { chunkText, type ReplyContext, replyEvents } from './replyEvents.js';
export {
  type HttpErrorTurn,
  httpError,
  internalServerError,
  overloaded,
  type RecordedStreamTurn,
  type ReplyTurn,
  rateLimited,
  recordedStream,
  reply,
  type ScriptedBlock,
  type ScriptedTurn,
  type StreamCut,
  type StreamPacing,
  unauthorized,
} from './scriptedTurn.js';
export { encodeSseEvent, type SseEvent, splitSseFrames } from './sseEncoding.js';
