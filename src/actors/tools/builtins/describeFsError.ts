/**
 * Rewrites a Node file-system error as a short message naming the path the model used (not the
 * absolute one) and what to do about it. Other errors pass through unchanged.
 *
 * @example
 * try {
 *   await readFile(absolute, 'utf8');
 * } catch (error) {
 *   throw describeFsError(error, 'src/a.ts');
 * }
 */
export function describeFsError(error: unknown, displayPath: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return new Error(
        `no such file or directory: '${displayPath}'; check the path with list_files`,
        { cause: error },
      );
    case 'ENOTDIR':
      return new Error(`a part of '${displayPath}' is a file, not a directory`, { cause: error });
    case 'EISDIR':
      return new Error(
        `'${displayPath}' is a directory, not a file; use list_files to see inside it`,
        {
          cause: error,
        },
      );
    case 'EACCES':
    case 'EPERM':
      return new Error(`permission denied: '${displayPath}'`, { cause: error });
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * The error of a write cancelled before its commit point: the model learns the file is unchanged.
 *
 * @example
 * throw cancelledBeforeWriting('src/a.ts');
 */
export function cancelledBeforeWriting(displayPath: string): Error {
  return new Error(`cancelled before '${displayPath}' was written; the file is unchanged`);
}
