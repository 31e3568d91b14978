/**
 * The result of a file-system call, or `null` when its path does not exist (`ENOENT`, or
 * `ENOTDIR`: a part of the path is a file). Any other error passes through.
 *
 * @example
 * const found = await orNullIfMissing(stat(path));
 * if (found === null) console.log('no such file');
 */
export async function orNullIfMissing<T>(pending: Promise<T>): Promise<T | null> {
  try {
    return await pending;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}
