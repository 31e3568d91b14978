/**
 * Loading optional peer dependencies on first use, so the package works without them and says
 * exactly what to install when a feature needs one.
 */
import { AgentStatechartError } from '../machine/index.js';

/**
 * Runs `load` (a dynamic `import()` of `name`); if the module is not installed, throws an
 * {@link AgentStatechartError} `MISSING_PEER_DEPENDENCY` naming the install command and the feature.
 * Any other failure (a broken install) is rethrown as it is.
 *
 * @example
 * const inspect = await importOptionalPeer('@statelyai/inspect', 'createStatelyInspector', () => import('@statelyai/inspect'));
 */
export async function importOptionalPeer<T>(
  name: string,
  feature: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error, name)) throw error;
    throw new AgentStatechartError(
      'MISSING_PEER_DEPENDENCY',
      `${feature} needs the optional peer dependency ${name}, which is not installed; run \`npm install ${name}\``,
      { cause: error },
    );
  }
}

function isModuleNotFound(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
  // Only the peer itself being absent counts: a missing module inside it is a broken install.
  return notFound && typeof message === 'string' && message.includes(`'${name}'`);
}
