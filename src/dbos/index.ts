/**
 * `agent-statechart/dbos`: many workers driving sessions stored in PostgreSQL, on DBOS Transact
 * (`@dbos-inc/dbos-sdk`, an optional peer dependency). A workflow per "drive this session until it
 * needs input", on a queue partitioned by session id (one drive per session at a time), the chart
 * in pure mode as the workflow code and its side effects as steps; fenced writes; a dead worker's
 * sessions taken over by the others. The guide: docs/many-workers.md.
 *
 * @example
 * import { startSessionWorker } from 'agent-statechart/dbos';
 * const worker = await startSessionWorker({ connectionString, agent, tools, workspace, llm });
 * const { workflowId } = await worker.send('alice-1', { type: 'UserInput', message: { role: 'user', content: 'hi' } });
 * for await (const value of worker.events(workflowId)) console.log(value);
 */

export {
  createSessionDriver,
  DRIVE_STREAM,
  type DriveResult,
  type DriverDependencies,
  type DriverEngine,
  type DriveStreamValue,
} from './driveSession.js';
export { type Recovery } from './executorLiveness.js';
export { driveWorkflowId, sessionOfDrive, subagentWakeWorkflowId } from './driveIds.js';
export { type TurnStreamValue } from './followTurn.js';
export {
  connectSessionClient,
  DRIVE_WORKFLOW,
  SESSION_QUEUE,
  type SendOptions,
  type SessionClient,
  type SessionClientOptions,
} from './sessionClient.js';
export { type InboxInput, type SessionInbox } from './sessionInbox.js';
export { type RunningSubagent, sessionConfigOf, type SubagentDrives } from './subagentDrives.js';
export {
  type SessionWorker,
  type SessionWorkerOptions,
  startSessionWorker,
} from './sessionWorker.js';
