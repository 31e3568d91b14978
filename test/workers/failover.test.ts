/**
 * Many workers, one PostgreSQL, workers dying: 3 worker processes drive 200 sessions of 3 turns
 * each (a read-only tool, a mutating tool counted in a side file, an approval the client gives)
 * against a scripted model in its own process. One worker is SIGKILLed mid-load and restarted
 * later; another is SIGSTOPped past its lease and SIGCONTed (it must find itself declared dead and
 * exit, its late writes refused). Smaller tests kill a worker while the model's question to the
 * user waits or the stop hook decides, or while a subagent's call runs in a drive of its own, pause one mid-call, interrupt a turn and stream a drive to several readers. Every session must complete with no input lost, no tool_use
 * left without its result and no mutating call run twice, and a client reading the drives'
 * streams must rebuild exactly the assistant texts each session stored; the time from a worker's
 * death to the next step of each session it held is measured and printed.
 *
 * `SESSIONS` and `TURNS` in the environment scale it down for a quick look (not under CI, which
 * runs at least the defaults); `CONVERSATIONS` (default 60 at a time) and `CONCURRENCY` (each
 * worker's, default 40) load it more.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  connectSessionClient,
  type DriveStreamValue,
  type Recovery,
  type SessionClient,
  sessionOfDrive,
} from '../../src/dbos/index.js';
import { type AgentEvent, findTranscriptViolations, type Message } from '../../src/index.js';
import { openSession } from '../../src/persistence/openSession.js';
import { startPostgres, type PostgresServer } from '../support/postgresServer.js';
import { testSize } from '../support/testSize.js';

const installation = inject('postgresInstallation');
const SESSIONS = testSize('SESSIONS', 200);
const TURNS = testSize('TURNS', 3);
const CONVERSATIONS = testSize('CONVERSATIONS', 60);
const LEASE_MS = 2_000;
const WORKER = join(import.meta.dirname, 'workerMain.ts');
const MODEL = join(import.meta.dirname, 'scriptedModelMain.ts');

interface Worker {
  name: string;
  /** Set before the test stops it on purpose. */
  expected: boolean;
  child: ChildProcess;
  executorId: string;
  output: string[];
  exited: Promise<number | null>;
  /** The end of what it wrote to stderr. */
  stderr: () => string;
}

let server: PostgresServer;
let directory: string;
let model: ChildProcess;
let modelUrl: string;
let client: SessionClient;
let dbos: DBOSClient;
const workers = new Map<string, Worker>();
const retired: Worker[] = [];
/** Workers that exited without the test stopping them (declared dead while merely slow). */
const unexpectedExits: string[] = [];
let finished = false;

function startChild(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before starting`)));
  });
}

async function startWorker(name: string): Promise<Worker> {
  const child = startChild(WORKER, {
    DATABASE_URL: server.connectionString,
    MODEL_URL: modelUrl,
    SIDE_FILE: join(directory, 'side-effects.txt'),
    SPANS_FILE: join(directory, 'spans.jsonl'),
    LEASE_MS: String(LEASE_MS),
  });
  const output: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (process.env.FAILOVER_LOG) process.stderr.write(`[${name}] ${chunk.toString()}`);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = await firstLine(child, `worker ${name}`).catch((error: Error) => {
    throw new Error(`${error.message}: ${stderr}`);
  });
  createInterface({ input: child.stdout! }).on('line', (line) => output.push(line));
  const worker: Worker = {
    name,
    expected: false,
    child,
    executorId: ready.replace(/^ready /, ''),
    output,
    exited,
    stderr: () => stderr.slice(-2000),
  };
  workers.set(name, worker);
  // As a supervisor would: a worker that exits on its own is started again, so the test goes on
  // to its end; the exit fails the test it happened in (afterEach).
  void exited.then((code) => {
    if (worker.expected || finished) return;
    unexpectedExits.push(`${name} exited ${code}: ${stderr.slice(-500)}`);
    retired.push(worker);
    void startWorker(name);
  });
  return worker;
}

/**
 * The sessions whose drives the surviving workers took over from `worker` once it was declared
 * dead, from the recoveries every worker printed.
 */
function recoveredFrom(worker: Worker): string[] {
  return [...workers.values(), ...retired]
    .flatMap((each) => each.output)
    .filter((line) => line.startsWith('recovered '))
    .map((line) => JSON.parse(line.slice('recovered '.length)) as Recovery)
    .filter((recovery) => recovery.dead.includes(worker.executorId))
    .flatMap((recovery) => recovery.workflows.map((id) => sessionOfDrive(id)!));
}

/**
 * Drives one session through its turns as a client would, approving every mutating call; returns
 * the drives it enqueued, in order.
 */
async function converse(sessionId: string, onTurn: (ms: number) => void): Promise<string[]> {
  const drives: string[] = [];
  const send = async (event: AgentEvent) => {
    const { workflowId } = await client.send(sessionId, event);
    drives.push(workflowId);
    return workflowId;
  };
  for (let turn = 1; turn <= TURNS; turn++) {
    const started = Date.now();
    let workflowId = await send({
      type: 'UserInput',
      message: { role: 'user', content: `turn ${turn} of ${sessionId}` },
    });
    for (;;) {
      const result = await client.result(workflowId);
      if (result.awaitingApproval.length === 0) break;
      for (const call of result.awaitingApproval) {
        workflowId = await send({ type: 'ToolApproval', callId: call.id, decision: 'allow' });
      }
    }
    onTurn(Date.now() - started);
  }
  return drives;
}

/**
 * The assistant texts a client rebuilds from the streams of a session's drives, read in the order
 * they were enqueued: the text since the last `llmStart`, kept when the `llmEnd` for the same
 * place in the transcript says `completed` or `interrupted` (dropped when it fails, or when the
 * call starts over: a retry, or another worker taking the drive over); an `llmEnd` said again
 * for a call already ended is taken once. Text outside a call is a fault, kept as such so the
 * comparison shows it.
 */
async function rebuiltTexts(drives: string[]): Promise<string[]> {
  const texts: string[] = [];
  let call: { transcriptIndex: number; text: string } | undefined;
  for (const workflowId of drives) {
    for await (const value of client.events(workflowId)) {
      if (value.type === 'llmStart') call = { transcriptIndex: value.transcriptIndex, text: '' };
      if (value.type === 'text') {
        if (call === undefined) texts.push(`text outside a call: ${value.text}`);
        else call.text += value.text;
      }
      if (value.type === 'llmEnd' && call?.transcriptIndex === value.transcriptIndex) {
        if (value.status !== 'failed') texts.push(call.text);
        call = undefined;
      }
    }
  }
  return texts;
}

/** The text of each assistant message of a stored transcript, in order. */
function storedTexts(messages: Message[]): string[] {
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
    );
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** The drives running on a worker, as DBOS lists them. */
async function drivesOn(worker: Worker): Promise<string[]> {
  const running = await dbos.listWorkflows({
    status: 'PENDING',
    executorId: worker.executorId,
    loadInput: false,
    loadOutput: false,
  });
  return running.map((workflow) => workflow.workflowID);
}

/** The sessions a worker was driving, by the workflows DBOS lists as running on it. */
async function sessionsOn(worker: Worker): Promise<string[]> {
  return (await drivesOn(worker)).map((workflowId) => sessionOfDrive(workflowId)!);
}

/**
 * For each session, how long after `since` it moved on (`firstStep`): its next step recorded an
 * entry in its log, or, when its drive had nothing left to record (killed after its last write),
 * that drive ended. And when a worker picked a drive of it up (`pickUp`), which comes first.
 * Read once the load is over, from the log's entry times and DBOS's workflow table.
 */
async function movedOn(db: pg.Client, sessions: string[], since: number) {
  const { rows } = await db.query<{ session_id: string; at: number }>(
    `SELECT session_id, min(at) AS at FROM (
       SELECT session_id, at FROM agent_statechart.entries WHERE session_id = ANY($1) AND at > $2
       UNION ALL
       SELECT queue_partition_key, completed_at FROM dbos.workflow_status
         WHERE queue_partition_key = ANY($1) AND completed_at > $2
     ) moved GROUP BY session_id`,
    [sessions, since],
  );
  expect(rows.map((row) => row.session_id).sort()).toEqual([...sessions].sort());
  const picked = await db.query<{ at: number }>(
    `SELECT min(started_at_epoch_ms) AS at FROM dbos.workflow_status
      WHERE queue_partition_key = ANY($1) AND started_at_epoch_ms > $2 GROUP BY queue_partition_key`,
    [sessions, since],
  );
  const delays = (values: Array<{ at: number }>) => values.map((row) => Number(row.at) - since);
  return { firstStep: delays(rows), pickUp: delays(picked.rows) };
}

/** The spans the workers ended so far, each with the process that ended it. */
async function readSpans() {
  return (await readFile(join(directory, 'spans.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { pid: number; traceId: string; conversation: string });
}

/** p50 and p99 of `values`, and how many there are. */
function spread(values: number[]) {
  return { n: values.length, p50: percentile(values, 50), p99: percentile(values, 99) };
}

describe.skipIf(installation === null)('many workers on one PostgreSQL', () => {
  beforeAll(async () => {
    server = await startPostgres({
      installation: installation!,
      database: 'service',
      settings: { max_connections: 300 },
    });
    directory = await mkdtemp(join(tmpdir(), 'failover-'));
    await writeFile(join(directory, 'side-effects.txt'), '');
    await writeFile(join(directory, 'side-effects.txt.hold'), '');
    model = startChild(MODEL, {});
    modelUrl = await firstLine(model, 'the scripted model');
    // The first worker builds the schemas; the others then start side by side.
    await startWorker('A');
    await Promise.all([startWorker('B'), startWorker('C')]);
    client = await connectSessionClient({ connectionString: server.connectionString });
    dbos = await DBOSClient.create({
      systemDatabaseUrl: server.connectionString,
      applicationName: 'agent-statechart',
    });
  }, 120_000);

  afterEach(() => {
    expect(unexpectedExits.splice(0), 'workers that exited without the test stopping them').toEqual(
      [],
    );
  });

  afterAll(async () => {
    finished = true;
    // A worker that exited on its own after the last test's own check is a failure too.
    const lateExits = unexpectedExits.splice(0);
    for (const worker of [...workers.values(), ...retired]) {
      worker.child.kill('SIGCONT');
      worker.child.kill('SIGKILL');
    }
    model?.kill('SIGKILL');
    await dbos?.destroy();
    await client?.close();
    await server?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
    expect(lateExits, 'workers that exited without the test stopping them').toEqual([]);
  });

  it('streams a drive to readers on any connection; one that reconnects at an offset misses nothing', async () => {
    const read = async (
      reader: SessionClient,
      workflowId: string,
      offset = 0,
      limit = Infinity,
    ) => {
      const values: DriveStreamValue[] = [];
      for await (const value of reader.events(workflowId, offset)) {
        values.push(value);
        if (values.length === limit) break;
      }
      return values;
    };
    const texts = (values: DriveStreamValue[]) =>
      values.flatMap((value) => (value.type === 'text' ? [value.text] : [])).join('');
    await client.createSession('streamed');
    const first = await client.send('streamed', {
      type: 'UserInput',
      message: { role: 'user', content: 'turn 1 of streamed' },
    });
    // A reader takes two values and goes away; another, on a connection of its own, goes on
    // from there while the drive runs on whichever worker took it.
    const head = await read(client, first.workflowId, 0, 2);
    const other = await connectSessionClient({ connectionString: server.connectionString });
    const rest = await read(other, first.workflowId, head.length).finally(() => other.close());
    const whole = await read(client, first.workflowId);
    expect([...head, ...rest]).toEqual(whole);
    expect(whole[0]).toEqual({
      type: 'llmStart',
      attempt: 1,
      transcriptIndex: 1,
      executor: expect.any(String) as unknown,
    });
    expect(texts(whole)).toBe('Working on streamed:1.');
    expect(whole.filter((value) => value.type === 'llmEnd')).toEqual([
      { type: 'llmEnd', status: 'completed', transcriptIndex: 1 },
    ]);
    const approvals = whole.filter((value) => value.type === 'approvalRequest');
    expect(approvals).toMatchObject([{ call: { name: 'bump' } }]);
    const approval = approvals[0];
    expect(whole.at(-1)).toEqual({
      type: 'idle',
      state: 'ExecutingTools',
      awaitingApproval: [approval?.call],
      awaitingAnswer: [],
    });

    const second = await client.send('streamed', {
      type: 'ToolApproval',
      callId: (approval as Extract<DriveStreamValue, { type: 'approvalRequest' }>).call.id,
      decision: 'allow',
    });
    const after = await read(client, second.workflowId);
    // A drive opens by saying again how the latest model call ended (a worker may have died
    // before it could); the call just approved is not asked for again, and the next model call
    // is announced once, by the step that makes it.
    expect(after.map((value) => value.type)).toEqual([
      'llmEnd',
      'toolStart',
      'toolEnd',
      'llmStart',
      ...after.filter((value) => value.type === 'text').map(() => 'text'),
      'llmEnd',
      'usage',
      'idle',
    ]);
    expect(texts(after)).toBe('done streamed:1');
    expect(after.at(-1)).toEqual({
      type: 'idle',
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    // The two drives' streams give the session's stored texts back.
    const { core } = await openSession(client.store, 'streamed', { mustExist: true });
    expect(await rebuiltTexts([first.workflowId, second.workflowId])).toEqual(
      storedTexts(core.context.messages),
    );
  });

  it('tells its readers of the error a drive ends on (a reply cut off at max_tokens), its text streamed in batches', async () => {
    await client.createSession('cut-off');
    const { workflowId } = await client.send('cut-off', {
      type: 'UserInput',
      message: { role: 'user', content: 'write at length' },
    });
    const values: DriveStreamValue[] = [];
    for await (const value of client.events(workflowId)) values.push(value);
    expect(values.filter((value) => value.type === 'error')).toEqual([
      {
        type: 'error',
        message: expect.stringMatching(/cut off at max_tokens/) as unknown,
        source: 'chart',
      },
    ]);
    // The model sent 500 deltas within a few frames; each write to the stream is a row.
    const texts = values.flatMap((value) => (value.type === 'text' ? [value.text] : []));
    expect(texts.join('')).toBe('Once upon a time '.repeat(200).slice(0, 2_000));
    expect(texts.length).toBeLessThan(100);
    expect(values.at(-1)).toEqual({
      type: 'idle',
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
  });

  it('refuses the late writes of a worker paused past its lease, whose session another finished', async () => {
    const holdFile = join(directory, 'side-effects.txt.hold');
    await client.createSession('held');
    const { workflowId } = await client.send('held', {
      type: 'UserInput',
      message: { role: 'user', content: 'hold held' },
    });
    while (!(await readFile(holdFile, 'utf8')).includes('held')) await sleep(20);
    // The worker running the call is paused in the middle of it, past its lease.
    let holder: Worker | undefined;
    for (const worker of workers.values()) {
      if ((await sessionsOn(worker)).includes('held')) holder = worker;
    }
    expect(holder).toBeDefined();
    holder!.expected = true;
    holder!.child.kill('SIGSTOP');
    // Another worker runs the read-only call again and ends the turn.
    expect(await client.result(workflowId)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    // Woken, its call ends and it tries to record that: refused; it learns it was declared dead.
    holder!.child.kill('SIGCONT');
    expect(await holder!.exited, holder!.stderr()).toBe(75);
    retired.push(holder!);
    expect(holder!.output).toContain('fenced held');
    expect(holder!.output).toContain('declared dead');
    const { core } = await openSession(client.store, 'held', { mustExist: true });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
    const results = core.context.messages.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.filter((block) => block.type === 'tool_result'),
    );
    expect(results).toHaveLength(1);
    expect(core.context.messages.at(-1)).toMatchObject({ role: 'assistant' });
    // What the paused worker streamed before it was stopped, and what the one that took over
    // streamed, give the stored texts back.
    expect(await rebuiltTexts([workflowId])).toEqual(storedTexts(core.context.messages));
    await startWorker(holder!.name);
  });

  it("asks again, from the worker that took the drive over, the question a killed worker's model asked; the answer sent then ends the turn", async () => {
    const holdFile = join(directory, 'side-effects.txt.hold');
    await client.createSession('asked');
    const { workflowId } = await client.send('asked', {
      type: 'UserInput',
      message: { role: 'user', content: 'ask asked' },
    });
    const streamed: DriveStreamValue[] = [];
    const reading = (async () => {
      for await (const value of client.events(workflowId)) streamed.push(value);
    })();
    // The model asked, and its other call (`hold`, slow) runs while the question waits.
    while (!(await readFile(holdFile, 'utf8')).includes('asked')) await sleep(20);
    let holder: Worker | undefined;
    for (const worker of workers.values()) {
      if ((await sessionsOn(worker)).includes('asked')) holder = worker;
    }
    expect(holder).toBeDefined();
    holder!.expected = true;
    holder!.child.kill('SIGKILL');
    await holder!.exited;
    retired.push(holder!);

    // Another worker takes the drive over, runs the read-only call again, and rests with the
    // question still open: the drive's result says it to any client.
    const question = {
      header: 'Colour',
      question: 'Which colour for asked?',
      options: [{ label: 'red' }, { label: 'blue' }],
    };
    const result = await client.result(workflowId);
    expect(result).toEqual({
      state: 'ExecutingTools',
      awaitingApproval: [],
      awaitingAnswer: [{ callId: expect.any(String) as unknown, questions: [question] }],
    });
    await reading;
    const { callId } = result.awaitingAnswer[0]!;
    // The stream said the question once, as the killed worker's model asked it, and ends with
    // what the worker that took over says the session waits for.
    expect(streamed.filter((value) => value.type === 'question')).toEqual([
      { type: 'question', callId, questions: [question] },
    ]);
    expect(streamed.at(-1)).toEqual({ type: 'idle', ...result });
    await expect.poll(() => recoveredFrom(holder!)).toContain('asked');
    expect((await dbos.getWorkflow(workflowId))?.executorId).not.toBe(holder!.executorId);
    expect((await readFile(holdFile, 'utf8')).match(/^asked$/gm)).toHaveLength(2);

    // The answer, sent through the client, reaches whichever worker drives the session now.
    const answered = await client.send('asked', { type: 'UserAnswer', callId, answers: ['blue'] });
    expect(await client.result(answered.workflowId)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    const { core } = await openSession(client.store, 'asked', { mustExist: true });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
    expect(storedTexts(core.context.messages).at(-1)).toBe('chose blue for asked');
    await startWorker(holder!.name);
  });

  it('runs the stop hook again on the worker that took the drive over from one killed while it decided; the turn goes on once', async () => {
    const stopFile = join(directory, 'side-effects.txt.stop');
    const noted = async () =>
      (await readFile(stopFile, 'utf8').catch(() => '')).match(/^checked$/gm);
    await client.createSession('checked');
    const { workflowId } = await client.send('checked', {
      type: 'UserInput',
      message: { role: 'user', content: 'verify checked' },
    });
    while ((await noted()) === null) await sleep(20);
    let holder: Worker | undefined;
    for (const worker of workers.values()) {
      if ((await sessionsOn(worker)).includes('checked')) holder = worker;
    }
    expect(holder).toBeDefined();
    holder!.expected = true;
    holder!.child.kill('SIGKILL');
    await holder!.exited;
    retired.push(holder!);

    expect(await client.result(workflowId)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    await expect.poll(() => recoveredFrom(holder!)).toContain('checked');
    // The killed worker's hook had not answered, so it was asked again; its answer went in once.
    expect(await noted()).toHaveLength(2);
    const { core } = await openSession(client.store, 'checked', { mustExist: true });
    expect(core.context.messages).toEqual([
      { role: 'user', content: 'verify checked' },
      { role: 'assistant', content: [{ type: 'text', text: 'unverified checked' }] },
      { role: 'user', content: '[stop hook] verify checked' },
      { role: 'assistant', content: [{ type: 'text', text: 'verified checked' }] },
    ]);
    await startWorker(holder!.name);
  });

  it('takes over, on another worker, the drive of a subagent whose worker was killed mid-call; its answer wakes the parent, whose turn ends with it', async ({
    onTestFinished,
  }) => {
    const holdFile = join(directory, 'side-effects.txt.hold');
    const held = async () => (await readFile(holdFile, 'utf8')).match(/^sub-delegated$/gm);
    await client.createSession('delegated');
    const { workflowId } = await client.send('delegated', {
      type: 'UserInput',
      message: { role: 'user', content: 'delegate delegated' },
    });
    // The parent's drive rests while its subagent works, in a session and a drive of its own.
    const rested = await client.result(workflowId);
    const child = 'delegated/toolu_task_delegated';
    expect(rested).toEqual({
      state: 'ExecutingTools',
      awaitingApproval: [],
      awaitingAnswer: [],
      subagents: [
        {
          callId: 'toolu_task_delegated',
          agent: 'researcher',
          sessionId: child,
          workflowId: `session:${child}:input:1`,
          wakeWorkflowId: 'session:delegated:task:toolu_task_delegated',
        },
      ],
    });
    const subagent = rested.subagents![0]!;
    // The subagent's model called `hold` (slow, read-only); the worker running it is killed.
    while ((await held()) === null) await sleep(20);
    let holder: Worker | undefined;
    for (const worker of workers.values()) {
      if ((await sessionsOn(worker)).includes(child)) holder = worker;
    }
    expect(holder).toBeDefined();
    holder!.expected = true;
    holder!.child.kill('SIGKILL');
    await holder!.exited;
    retired.push(holder!);

    // Another worker takes the subagent's drive over, runs the read-only call again, and rests
    // with the subagent's mutating call waiting for its approval, sent to the subagent's session.
    const waiting = await client.result(subagent.workflowId);
    expect(waiting).toMatchObject({
      state: 'ExecutingTools',
      awaitingApproval: [expect.objectContaining({ name: 'bump' }) as unknown],
      awaitingAnswer: [],
    });
    expect(waiting.subagents).toBeUndefined();
    await expect.poll(() => recoveredFrom(holder!)).toContain(child);
    expect((await dbos.getWorkflow(subagent.workflowId))?.executorId).not.toBe(holder!.executorId);
    expect(await held()).toHaveLength(2);
    const approved = await client.send(child, {
      type: 'ToolApproval',
      callId: waiting.awaitingApproval[0]!.id,
      decision: 'allow',
    });
    expect((await client.result(approved.workflowId)).state).toBe('WaitingForUserInput');

    // The subagent's answer woke the parent, whose turn ends with it as the task's result.
    expect(await client.result(subagent.wakeWorkflowId)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    const parent = await openSession(client.store, 'delegated', { mustExist: true });
    const researched = await openSession(client.store, child, { mustExist: true });
    expect(findTranscriptViolations(parent.core.context.messages)).toEqual([]);
    expect(findTranscriptViolations(researched.core.context.messages)).toEqual([]);
    const answer = storedTexts(researched.core.context.messages).at(-1);
    expect(answer).toMatch(/^researched delegated after .*bumped sub-delegated/);
    expect(parent.core.context.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(JSON.stringify(parent.core.context.messages[2])).toContain('researched delegated');
    expect(storedTexts(parent.core.context.messages).at(-1)).toMatch(
      /^Done: .*researched delegated after .*bumped sub-delegated/,
    );

    // One subagent session, its prompt taken once; its mutating call ran once.
    const db = new pg.Client({ connectionString: server.connectionString });
    onTestFinished(() => db.end().catch(() => undefined));
    await db.connect();
    const sessions = await db.query<{ session_id: string }>(
      `SELECT session_id FROM agent_statechart.sessions WHERE session_id LIKE 'delegated/%'`,
    );
    expect(sessions.rows.map((row) => row.session_id)).toEqual([child]);
    const inbox = await db.query<{ type: string }>(
      `SELECT input::json->>'type' AS type FROM agent_statechart.inbox
        WHERE session_id = $1 ORDER BY seq`,
      [child],
    );
    expect(inbox.rows.map((row) => row.type)).toEqual(['UserInput', 'ToolApproval']);
    const inputs = (await client.store.entries(child)).filter(
      (entry) => entry.kind === 'event' && entry.data.type === 'UserInput',
    );
    expect(inputs).toHaveLength(1);
    const bumps = (await readFile(join(directory, 'side-effects.txt'), 'utf8')).match(
      /^sub-delegated /gm,
    );
    expect(bumps).toHaveLength(1);

    // Traced as one: the subagent's turn went on in its parent's trace, on the worker that was
    // killed (its model call's span ended there) and then on another.
    const spans = async () =>
      (await readSpans()).filter((span) => span.conversation.split('/')[0] === 'delegated');
    await expect
      .poll(async () => {
        const ofChild = (await spans()).filter((span) => span.conversation === child);
        return new Set(ofChild.map((span) => span.pid)).size;
      })
      .toBeGreaterThanOrEqual(2);
    const ofTree = await spans();
    expect(new Set(ofTree.map((span) => span.conversation))).toEqual(new Set(['delegated', child]));
    expect(new Set(ofTree.map((span) => span.traceId)).size).toBe(1);
    expect(
      ofTree.some((span) => span.conversation === child && span.pid === holder!.child.pid),
    ).toBe(true);
    await startWorker(holder!.name);
  });

  it("passes a parent's interrupt on to its subagent before recording it: the worker killed in between leaves the subagent told, and the one taking over records it once", async ({
    onTestFinished,
  }) => {
    await client.createSession('cutoff');
    const sent = await client.send('cutoff', {
      type: 'UserInput',
      message: { role: 'user', content: 'delegate cutoff' },
    });
    const [subagent] = (await client.result(sent.workflowId)).subagents ?? [];
    const child = 'cutoff/toolu_task_cutoff';
    expect(subagent?.sessionId).toBe(child);
    // The subagent rests, its mutating call waiting for an approval.
    const waiting = await client.result(subagent!.workflowId);
    expect(waiting.awaitingApproval).toEqual([expect.objectContaining({ name: 'bump' })]);

    // The worker that takes the parent's interrupt is held as it records it: a trigger on the
    // log waits for a lock this test holds.
    const lock = new pg.Client({ connectionString: server.connectionString });
    const db = new pg.Client({ connectionString: server.connectionString });
    onTestFinished(async () => {
      await db.query('DROP TRIGGER IF EXISTS hold_interrupt ON agent_statechart.entries');
      await lock.end().catch(() => undefined);
      await db.end().catch(() => undefined);
    });
    await lock.connect();
    await db.connect();
    await lock.query('SELECT pg_advisory_lock(4242)');
    await db.query(`
      CREATE OR REPLACE FUNCTION agent_statechart.hold_interrupt() RETURNS trigger AS $$
      BEGIN
        IF NEW.session_id = 'cutoff' AND NEW.kind = 'event'
           AND (NEW.data::json)->>'type' = 'Interrupt' THEN
          PERFORM pg_advisory_xact_lock(4242);
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await db.query(`CREATE TRIGGER hold_interrupt BEFORE INSERT ON agent_statechart.entries
      FOR EACH ROW EXECUTE FUNCTION agent_statechart.hold_interrupt()`);
    const interrupt = await client.send('cutoff', { type: 'Interrupt' });
    const inboxOf = async (sessionId: string) =>
      (
        await db.query<{ type: string }>(
          `SELECT input::json->>'type' AS type FROM agent_statechart.inbox
            WHERE session_id = $1 ORDER BY seq`,
          [sessionId],
        )
      ).rows.map((row) => row.type);
    // The subagent was told while its parent's interrupt was not yet in the parent's log.
    await expect
      .poll(() => inboxOf(child), { timeout: 15_000 })
      .toEqual(['UserInput', 'Interrupt']);
    let holder: Worker | undefined;
    await expect
      .poll(async () => {
        for (const worker of workers.values()) {
          if ((await drivesOn(worker)).includes(interrupt.workflowId)) holder = worker;
        }
        return holder?.name;
      })
      .toBeDefined();
    expect(
      (await client.store.entries('cutoff')).filter(
        (entry) => entry.kind === 'event' && entry.data.type === 'Interrupt',
      ),
    ).toEqual([]);
    holder!.expected = true;
    holder!.child.kill('SIGKILL');
    await holder!.exited;
    retired.push(holder!);
    await lock.query('SELECT pg_advisory_unlock(4242)');

    // Another worker takes the parent's drive over and records the interrupt once; the
    // subagent's turn ends on the interrupt it was sent, its mutating call never run.
    expect(await client.result(interrupt.workflowId)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    await expect
      .poll(async () => {
        const session = await openSession(client.store, child, { mustExist: true });
        return session.resume === undefined ? session.core.state : 'busy';
      })
      .toBe('WaitingForUserInput');
    const interruptsOf = async (sessionId: string) =>
      (await client.store.entries(sessionId)).filter(
        (entry) => entry.kind === 'event' && entry.data.type === 'Interrupt',
      );
    expect(await interruptsOf('cutoff')).toHaveLength(1);
    expect(await interruptsOf(child)).toHaveLength(1);
    expect(await inboxOf(child)).toEqual(['UserInput', 'Interrupt']);
    const parent = await openSession(client.store, 'cutoff', { mustExist: true });
    const researcher = await openSession(client.store, child, { mustExist: true });
    expect(findTranscriptViolations(parent.core.context.messages)).toEqual([]);
    expect(findTranscriptViolations(researcher.core.context.messages)).toEqual([]);
    expect(parent.core.context.messages[2]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_task_cutoff', is_error: true }],
    });
    const bumps = (await readFile(join(directory, 'side-effects.txt'), 'utf8')).match(
      /^sub-cutoff /gm,
    );
    expect(bumps).toBeNull();
    await startWorker(holder!.name);
  });

  it('stops taking work once it learns it was declared dead: what is sent while it lingers goes to the others', async ({
    onTestFinished,
  }) => {
    const sleeper = workers.get('C')!;
    sleeper.expected = true;
    sleeper.child.kill('SIGSTOP');
    const ids = Array.from({ length: 24 }, (_, index) => `burst${index}`);
    for (const id of ids) await client.createSession(id);
    await sleep(LEASE_MS * 2.5);
    sleeper.child.kill('SIGCONT');
    const stoppedLine = async () => {
      for (;;) {
        const line = sleeper.output.find((text) => text.startsWith('stopped taking work '));
        if (line !== undefined) return Number(line.slice('stopped taking work '.length));
        if (sleeper.child.exitCode !== null) throw new Error(`it exited: ${sleeper.stderr()}`);
        await sleep(20);
      }
    };
    const stoppedAt = await stoppedLine();
    // It lingers (3 s) before it exits: drives enqueued now would be its to dequeue if it still
    // polled the queue.
    const sent = await Promise.all(
      ids.map((id) =>
        client.send(id, {
          type: 'UserInput',
          message: { role: 'user', content: `turn 1 of ${id}` },
        }),
      ),
    );
    expect(await sleeper.exited, sleeper.stderr()).toBe(75);
    retired.push(sleeper);
    await startWorker(sleeper.name);
    for (const { workflowId } of sent) {
      expect((await client.result(workflowId)).awaitingApproval).toHaveLength(1);
    }
    const db = new pg.Client({ connectionString: server.connectionString });
    onTestFinished(() => db.end().catch(() => undefined));
    await db.connect();
    const { rows } = await db.query<{ workflow_uuid: string }>(
      `SELECT workflow_uuid FROM dbos.workflow_status
        WHERE executor_id = $1 AND started_at_epoch_ms >= $2`,
      [sleeper.executorId, stoppedAt],
    );
    expect(rows).toEqual([]);
  });

  it('takes an Interrupt sent during a turn before the drive does more: the model is not called again', async () => {
    await client.createSession('interrupted');
    const { workflowId } = await client.send('interrupted', {
      type: 'UserInput',
      message: { role: 'user', content: 'hold interrupted' },
    });
    const holdFile = join(directory, 'side-effects.txt.hold');
    while (!(await readFile(holdFile, 'utf8')).includes('interrupted')) await sleep(20);
    const interrupt = await client.send('interrupted', { type: 'Interrupt' });
    expect(await client.result(workflowId)).toEqual({
      state: 'WaitingForUserInput',
      awaitingApproval: [],
      awaitingAnswer: [],
    });
    expect((await client.result(interrupt.workflowId)).state).toBe('WaitingForUserInput');
    const { core } = await openSession(client.store, 'interrupted', { mustExist: true });
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
    // The call ran to its end; the model was not asked about its result.
    expect(core.context.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });

  it(`completes ${SESSIONS} sessions of ${TURNS} turns while one worker is killed and another paused past its lease`, async ({
    onTestFinished,
  }) => {
    const ids = Array.from({ length: SESSIONS }, (_, index) => `s${index}`);
    for (const id of ids) await client.createSession(id);
    let turnsDone = 0;
    const turnTimes: number[] = [];
    const total = SESSIONS * TURNS;
    const drives = new Map<string, string[]>();
    const load = inParallel(ids, CONVERSATIONS, async (id) => {
      drives.set(
        id,
        await converse(id, (ms) => {
          turnsDone += 1;
          turnTimes.push(ms);
        }),
      );
    });
    const failed = load.then(
      () => undefined,
      (error: unknown) => error,
    );

    const progress = setInterval(() => {
      if (process.env.FAILOVER_LOG) console.error(`progress ${turnsDone}/${total}`);
    }, 5_000);
    void failed.finally(() => clearInterval(progress));
    const until = async (fraction: number) => {
      while (turnsDone < total * fraction) await sleep(50);
    };

    // A worker dies in the middle of the load, and comes back later under a new id.
    await until(0.25);
    const victim = workers.get('A')!;
    // The clock starts before the listing: a drive that ends between the two still counts as
    // moving on after it.
    const killedAt = Date.now();
    const killedDrives = await drivesOn(victim);
    const killedSessions = killedDrives.map((workflowId) => sessionOfDrive(workflowId)!);
    // Else the failover below would be checked on nothing.
    expect(killedSessions, 'drives running on the worker about to be killed').not.toEqual([]);
    victim.expected = true;
    victim.child.kill('SIGKILL');
    await victim.exited;
    retired.push(victim);
    await sleep(LEASE_MS * 2);
    await startWorker('A');

    // Another is paused past its lease: the others take its sessions over; woken, it finds
    // itself declared dead and exits, and what it still tried to write was refused.
    await until(0.5);
    const paused = workers.get('B')!;
    const pausedAt = Date.now();
    const pausedSessions = await sessionsOn(paused);
    expect(pausedSessions, 'drives running on the worker about to be paused').not.toEqual([]);
    paused.expected = true;
    paused.child.kill('SIGSTOP');
    await sleep(LEASE_MS * 2.5);
    paused.child.kill('SIGCONT');
    expect(await paused.exited, paused.stderr()).toBe(75);
    expect(paused.output).toContain('declared dead');
    // What it had in flight went on when it woke; the writes of it that reached the store were
    // refused (the test before this one makes sure of one).
    const lateWrites = paused.output.filter((line) => line.startsWith('fenced')).length;
    retired.push(paused);
    await startWorker('B');

    expect(await failed).toBeUndefined();
    const db = new pg.Client({ connectionString: server.connectionString });
    // Ended when the test ends, passed or failed: the server stops after it.
    onTestFinished(() => db.end().catch(() => undefined));
    await db.connect();
    const killDelays = await movedOn(db, killedSessions, killedAt);
    const pauseDelays = await movedOn(db, pausedSessions, pausedAt);
    // The killed worker still held drives when it died: the others took them over, some of
    // them of the sessions listed just before the kill.
    const takenOver = recoveredFrom(victim);
    expect(
      takenOver.filter((id) => killedSessions.includes(id)),
      'taken over',
    ).not.toEqual([]);
    // Which workers finished the killed worker's drives.
    const finishers = await db.query<{ executor_id: string; n: number }>(
      `SELECT executor_id, count(*)::int AS n FROM dbos.workflow_status
        WHERE workflow_uuid = ANY($1) GROUP BY executor_id`,
      [killedDrives],
    );
    const nameOf = (executorId: string) =>
      [...workers.values(), ...retired].find((worker) => worker.executorId === executorId)?.name ??
      executorId;
    const takenOverBy = Object.fromEntries(
      finishers.rows.map((row) => [nameOf(row.executor_id), row.n]),
    );

    // A turn taken over goes on in its trace: the killed worker's ended spans and the spans of
    // the worker that finished the turn share one trace id, and a trace holds one session.
    // (A subagent's turns go on in its parent's trace: a trace holds one top session.)
    const traces = new Map<string, { pids: Set<number>; sessions: Set<string> }>();
    for (const span of await readSpans()) {
      const trace = traces.get(span.traceId) ?? { pids: new Set(), sessions: new Set() };
      trace.pids.add(span.pid);
      trace.sessions.add(span.conversation.split('/')[0]!);
      traces.set(span.traceId, trace);
    }
    expect([...traces.values()].filter((trace) => trace.sessions.size !== 1)).toEqual([]);
    const killedPid = victim.child.pid!;
    const carriedOn = [...traces.values()].filter(
      (trace) => trace.pids.has(killedPid) && trace.pids.size > 1,
    );
    expect(carriedOn, 'traces the killed worker began and another went on with').not.toEqual([]);

    // Every session completed every turn, each input taken once, every tool_use answered.
    let interrupted = 0;
    for (const id of ids) {
      const { core } = await openSession(client.store, id, { mustExist: true });
      const messages: Message[] = core.context.messages;
      expect(findTranscriptViolations(messages), id).toEqual([]);
      const texts = messages.flatMap((message) =>
        typeof message.content === 'string'
          ? [message.content]
          : message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])),
      );
      for (let turn = 1; turn <= TURNS; turn++) {
        expect(
          texts.filter((text) => text === `turn ${turn} of ${id}`),
          id,
        ).toHaveLength(1);
        expect(
          texts.filter((text) => text === `done ${id}:${turn}`),
          id,
        ).toHaveLength(1);
      }
      for (const message of messages) {
        if (typeof message.content === 'string') continue;
        for (const block of message.content) {
          if (
            block.type === 'tool_result' &&
            JSON.stringify(block.content).includes('process stopped')
          )
            interrupted += 1;
        }
      }
      expect(core.state).toBe('WaitingForUserInput');
    }
    // A client that reads each session's drives rebuilds exactly its stored texts, across the
    // kill and the pause. (Soft: the checks after this one still run, and the report says how
    // many sessions a client could not rebuild.)
    const notRebuilt: string[] = [];
    await inParallel(ids, 20, async (id) => {
      const { core } = await openSession(client.store, id, { mustExist: true });
      const [rebuilt, stored] = [
        await rebuiltTexts(drives.get(id)!),
        storedTexts(core.context.messages),
      ];
      if (JSON.stringify(rebuilt) !== JSON.stringify(stored)) notRebuilt.push(id);
      expect.soft(rebuilt, `the texts a client rebuilds of ${id}`).toEqual(stored);
    });
    // No input was left in an inbox.
    const { rows } = await db.query<{ left: number; all: number }>(
      `SELECT count(*) FILTER (WHERE i.seq > s.inbox_taken)::int AS left, count(*)::int AS all
         FROM agent_statechart.inbox i JOIN agent_statechart.sessions s USING (session_id)`,
    );
    expect(rows[0]).toEqual({ left: 0, all: expect.any(Number) as unknown });

    // No mutating call ran twice.
    const lines = (await readFile(join(directory, 'side-effects.txt'), 'utf8'))
      .split('\n')
      .filter(Boolean);
    const keys = lines.map((line) => line.split(' ')[0]!);
    const twice = keys.filter((key, index) => keys.indexOf(key) !== index);
    expect(twice).toEqual([]);
    expect(keys.length + interrupted).toBeGreaterThanOrEqual(total);

    const fenced = [...workers.values(), ...retired].flatMap((worker) =>
      worker.output.filter((line) => line.startsWith('fenced')),
    );
    const report = {
      sessions: SESSIONS,
      turns: total,
      inputs: rows[0]!.all,
      sideEffects: keys.length,
      answeredInterrupted: interrupted,
      fencedWrites: fenced.length,
      pausedLateWritesRefused: lateWrites,
      textsNotRebuilt: notRebuilt,
      unexpectedExits,
      turnMs: { p50: percentile(turnTimes, 50), p99: percentile(turnTimes, 99) },
      killed: {
        firstStep: spread(killDelays.firstStep),
        pickUp: spread(killDelays.pickUp),
        takenOverBy,
      },
      paused: { firstStep: spread(pauseDelays.firstStep), pickUp: spread(pauseDelays.pickUp) },
    };
    console.log(`failover: ${JSON.stringify(report)}`);
  }, 600_000);
});
