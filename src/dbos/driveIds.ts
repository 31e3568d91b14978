/**
 * The workflow ids of a session's drives: one per input its inbox took, and one per task call
 * whose subagent's answer wakes it. Each names its session, so a reader can tell whose drive a
 * workflow is.
 */

/**
 * The id of the drive enqueued with input `seq` of a session.
 *
 * @example
 * driveWorkflowId('alice-1', 3); // 'session:alice-1:input:3'
 */
export function driveWorkflowId(sessionId: string, seq: number): string {
  return `session:${sessionId}:input:${seq}`;
}

/**
 * The id of the drive of a session that takes the answer of the subagent a task call of it
 * started: enqueued by the subagent's drive once it rests with its answer, once per task call.
 *
 * @example
 * subagentWakeWorkflowId('alice-1', 'toolu_1'); // 'session:alice-1:task:toolu_1'
 */
export function subagentWakeWorkflowId(sessionId: string, callId: string): string {
  return `session:${sessionId}:task:${callId}`;
}

/**
 * The session a drive's workflow id names (one an input enqueued, or one a subagent's answer
 * did), or `undefined` for another id.
 *
 * @example
 * sessionOfDrive('session:alice-1:input:3'); // 'alice-1'
 * sessionOfDrive('session:alice-1:task:toolu_1'); // 'alice-1'
 */
export function sessionOfDrive(workflowId: string): string | undefined {
  return /^session:(.+):(?:input:\d+|task:[^:]+)$/.exec(workflowId)?.[1];
}
