/**
 * One process of the subagent crash test: opens the stored session (a new one, or one a killed
 * process left), sends the input unless the session holds it, and prints, once the session is
 * idle, its own record and its subagents' logs. Killed by its counting store at the chosen write,
 * the parent's or the subagent's (they share the store).
 */
import { createAgent } from '../../../src/index.js';
import { subagentLinkOf } from '../../../src/persistence/subagentSessions.js';
import { type ChildSettings, openChildSession, printWhenIdle } from '../crash/childSession.js';
import { INPUT, turnAgentOptions } from './subagentTurn.js';

interface Settings extends ChildSettings {
  sideFile: string;
}

const { settings, counted } = openChildSession<Settings>();
const { store } = counted;
const agent = createAgent({
  ...turnAgentOptions(settings),
  retryDelayScale: 0.05,
  store,
  sessionId: settings.sessionId,
});
agent.on('error', ({ message }) => process.stderr.write(`agent error: ${message}\n`));
await agent.ready;
const log = await store.entries(settings.sessionId);
if (!log.some((entry) => entry.kind === 'event' && entry.data.type === 'UserInput')) {
  agent.send(INPUT);
}
await printWhenIdle(agent, counted, settings.sessionId, async () => {
  const children = (await store.list()).filter(
    (session) => subagentLinkOf(session.metadata)?.parentSessionId === settings.sessionId,
  );
  return {
    children: await Promise.all(
      children.map(async (child) => ({
        sessionId: child.sessionId,
        link: subagentLinkOf(child.metadata),
        log: await store.entries(child.sessionId),
      })),
    ),
  };
});
