import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { orNullIfMissing } from '../orNullIfMissing.js';

/**
 * How {@link writeFileAtomically} writes.
 *
 * @example
 * const options: AtomicWriteOptions = { signal: ctx.signal };
 */
export interface AtomicWriteOptions {
  /** Aborting before the rename leaves the file as it was; after it, the write has happened. */
  signal?: AbortSignal;
  /**
   * Runs when the new content is complete and synced, just before the rename: the moment a
   * crash would matter. For tests; the write waits for it.
   */
  beforeCommit?: () => void | Promise<void>;
}

/**
 * Replaces the file at `path` (a real path: no symbolic link in it) with `content`, atomically:
 * the content goes to a new file in the same directory, which is synced and then renamed over
 * `path`. The rename is the commit point. Before it, the old file is untouched (a crash, an
 * abort or a full disk leave it as it was, and the temporary file is removed unless the process
 * died); after it, the file has the whole new content. The rename puts a new inode in place, so
 * a hard link to the old one (say, from outside the workspace) keeps the old content instead of
 * being written through.
 *
 * The new file keeps the old one's permission bits and, when this process runs as root, its
 * owner. Resolves to whether the file is new.
 *
 * @example
 * const { created } = await writeFileAtomically('/srv/repo/src/a.ts', text, { signal });
 */
export async function writeFileAtomically(
  path: string,
  content: string,
  options: AtomicWriteOptions = {},
): Promise<{ created: boolean }> {
  const { signal } = options;
  signal?.throwIfAborted();
  const existing = await orNullIfMissing(stat(path));
  if (existing?.isDirectory()) {
    throw Object.assign(new Error(`EISDIR: illegal operation on a directory, '${path}'`), {
      code: 'EISDIR',
    });
  }
  // Hidden and random: a listing mid-write shows no stray file, two writers never share one.
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx' creates it or fails: it can never open something planted at that name.
  const handle = await open(temporary, 'wx', existing === null ? 0o666 : existing.mode & 0o777);
  let committed = false;
  try {
    try {
      await handle.writeFile(content, { encoding: 'utf8', signal });
      if (existing !== null) await keepOwnerAndMode(handle, existing);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeCommit?.();
    signal?.throwIfAborted();
    await rename(temporary, path);
    committed = true;
  } finally {
    if (!committed) await rm(temporary, { force: true });
  }
  return { created: existing === null };
}

async function keepOwnerAndMode(
  handle: Awaited<ReturnType<typeof open>>,
  existing: Stats,
): Promise<void> {
  // The mode given to open() passes through the umask; this restores it exactly.
  await handle.chmod(existing.mode & 0o777);
  // Only root may give a file away; anyone else's new file is simply theirs.
  if (process.getuid?.() === 0) await handle.chown(existing.uid, existing.gid);
}
