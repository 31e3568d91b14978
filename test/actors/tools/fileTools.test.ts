import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../../src/actors/tools/builtins/createBuiltinTools.js';
import { MAX_IMAGE_BYTES } from '../../../src/actors/tools/builtins/fileMedia.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { errorMessage, successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const registry = createToolRegistry(
  createBuiltinTools({ readFile: { maxLines: 3 }, listFiles: { maxEntries: 4 } }),
);

function run(workspace: string, name: string, input: unknown) {
  return runToolCall(registry, { id: `call_${name}`, name, input }, { workspace });
}

describe('read_file', () => {
  it('returns the whole content of a short file', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.txt'), 'one\ntwo\n');
    expect(successOutput(await run(workspace, 'read_file', { path: 'a.txt' }))).toBe('one\ntwo\n');
  });

  it('returns a window of lines from offset and limit', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.txt'), 'l1\nl2\nl3\nl4\n');
    const output = await run(workspace, 'read_file', { path: 'a.txt', offset: 2, limit: 2 });
    expect(successOutput(output)).toBe(
      'l2\nl3\n\n[lines 2-3 of 4 shown; call read_file with offset 4 to read on]',
    );
    const rest = await run(workspace, 'read_file', { path: 'a.txt', offset: 4 });
    expect(successOutput(rest)).toBe('l4\n');
  });

  it('caps a call at maxLines and says where to read on', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.txt'), 'a\nb\nc\nd\ne');
    const output = successOutput(await run(workspace, 'read_file', { path: 'a.txt', limit: 100 }));
    expect(output).toBe(
      'a\nb\nc\n\n[lines 1-3 of 5 shown; call read_file with offset 4 to read on]',
    );
  });

  it('explains an offset past the end of the file', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.txt'), 'only\n');
    const outcome = await run(workspace, 'read_file', { path: 'a.txt', offset: 5 });
    expect(errorMessage(outcome)).toBe("offset 5 is past the end of 'a.txt', which has 1 line");
  });

  it('names the missing file by the path the model gave', async () => {
    const workspace = await dirs.make();
    const message = errorMessage(await run(workspace, 'read_file', { path: 'src/nope.ts' }));
    expect(message).toContain("no such file or directory: 'src/nope.ts'");
    expect(message).not.toContain(workspace);
  });

  it.each([
    ['image/png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
    ['image/jpeg', Buffer.from('ffd8ffe000104a464946', 'hex')],
    ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
    ['image/webp', Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1')],
  ])('returns an image the model sees for a %s file, whatever its name', async (type, bytes) => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'picture.bin'), bytes);
    expect(await run(workspace, 'read_file', { path: 'picture.bin' })).toEqual({
      status: 'success',
      content: [
        {
          type: 'image',
          source: { type: 'base64', media_type: type, data: bytes.toString('base64') },
        },
      ],
    });
  });

  it('refuses an image larger than the API takes, saying how to read it', async () => {
    const workspace = await dirs.make();
    const png = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    Buffer.from('89504e470d0a1a0a', 'hex').copy(png);
    await writeFile(join(workspace, 'huge.png'), png);
    expect(errorMessage(await run(workspace, 'read_file', { path: 'huge.png' }))).toBe(
      `'huge.png' is an image of ${MAX_IMAGE_BYTES + 1} bytes, more than the ${MAX_IMAGE_BYTES} the API takes; make a smaller copy (convert, sips) and read that`,
    );
  });

  it('refuses binary files and directories with a hint', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'blob.bin'), Buffer.from([1, 0, 2, 3]));
    await mkdir(join(workspace, 'dir'));
    expect(errorMessage(await run(workspace, 'read_file', { path: 'blob.bin' }))).toContain(
      'binary',
    );
    expect(errorMessage(await run(workspace, 'read_file', { path: 'dir' }))).toContain(
      "'dir' is a directory",
    );
  });
});

describe('list_files', () => {
  it('lists a directory sorted, directories ending in a slash, without .git and node_modules', async () => {
    const workspace = await dirs.make();
    await mkdir(join(workspace, 'src'));
    await mkdir(join(workspace, '.git'));
    await mkdir(join(workspace, 'node_modules'));
    await writeFile(join(workspace, 'b.txt'), '');
    await writeFile(join(workspace, 'src', 'x.ts'), '');
    expect(successOutput(await run(workspace, 'list_files', {}))).toBe('b.txt\nsrc/');
  });

  it('lists recursively with paths relative to the workspace root', async () => {
    const workspace = await dirs.make();
    await mkdir(join(workspace, 'src', 'deep'), { recursive: true });
    await mkdir(join(workspace, 'src', 'node_modules'));
    await writeFile(join(workspace, 'src', 'a.ts'), '');
    await writeFile(join(workspace, 'src', 'deep', 'b.ts'), '');
    await writeFile(join(workspace, 'src', 'node_modules', 'hidden.js'), '');
    const output = await run(workspace, 'list_files', { path: 'src', recursive: true });
    expect(successOutput(output)).toBe('src/a.ts\nsrc/deep/\nsrc/deep/b.ts');
  });

  it('stops after maxEntries with a note', async () => {
    const workspace = await dirs.make();
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await writeFile(join(workspace, name), '');
    const output = String(successOutput(await run(workspace, 'list_files', { path: '.' })));
    expect(output.split('\n\n')[0]).toBe('a\nb\nc\nd');
    expect(output).toContain('[stopped after 4 entries');
  });

  it('says so when a directory is empty, and when the path is a file', async () => {
    const workspace = await dirs.make();
    await mkdir(join(workspace, 'empty'));
    await writeFile(join(workspace, 'f.txt'), '');
    expect(successOutput(await run(workspace, 'list_files', { path: 'empty' }))).toBe(
      '[empty is empty]',
    );
    expect(errorMessage(await run(workspace, 'list_files', { path: 'f.txt' }))).toContain(
      'use read_file',
    );
  });
});

describe('edit_file', () => {
  it('replaces the one exact occurrence and leaves the rest of the file alone', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.ts'), 'let x = 1;\nlet y = 2;\n');
    const outcome = await run(workspace, 'edit_file', {
      path: 'a.ts',
      old_string: 'let x = 1;',
      new_string: 'const x = 1;',
    });
    expect(successOutput(outcome)).toBe("edited 'a.ts': replaced 1 occurrence");
    expect(await readFile(join(workspace, 'a.ts'), 'utf8')).toBe('const x = 1;\nlet y = 2;\n');
  });

  it('keeps replacement patterns such as $& literal', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.txt'), 'price: X');
    await run(workspace, 'edit_file', { path: 'a.txt', old_string: 'X', new_string: '$& $1 $$' });
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('price: $& $1 $$');
  });

  it('explains a missing match and leaves the file unchanged', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.ts'), 'let x = 1;\n');
    const outcome = await run(workspace, 'edit_file', {
      path: 'a.ts',
      old_string: 'let  x = 1;',
      new_string: 'y',
    });
    expect(errorMessage(outcome)).toBe(
      "old_string was not found in 'a.ts'; read the file and copy the text exactly, including whitespace and indentation",
    );
    expect(await readFile(join(workspace, 'a.ts'), 'utf8')).toBe('let x = 1;\n');
  });

  it('refuses an ambiguous match, saying how many places match and to add context', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.ts'), 'x++;\nx++;\nx++;\n');
    const outcome = await run(workspace, 'edit_file', {
      path: 'a.ts',
      old_string: 'x++;',
      new_string: 'x--;',
    });
    const message = errorMessage(outcome);
    expect(message).toContain("old_string matches 3 places in 'a.ts'");
    expect(message).toContain('add surrounding lines');
    expect(message).toContain('replace_all');
    expect(await readFile(join(workspace, 'a.ts'), 'utf8')).toBe('x++;\nx++;\nx++;\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.ts'), 'x++;\nx++;\n');
    const outcome = await run(workspace, 'edit_file', {
      path: 'a.ts',
      old_string: 'x++;',
      new_string: 'x--;',
      replace_all: true,
    });
    expect(successOutput(outcome)).toBe("edited 'a.ts': replaced 2 occurrences");
    expect(await readFile(join(workspace, 'a.ts'), 'utf8')).toBe('x--;\nx--;\n');
  });

  it('refuses an edit that changes nothing', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.ts'), 'same');
    const outcome = await run(workspace, 'edit_file', {
      path: 'a.ts',
      old_string: 'same',
      new_string: 'same',
    });
    expect(errorMessage(outcome)).toContain('nothing would change');
  });
});

describe('write_file', () => {
  it('creates a file and its missing parent directories', async () => {
    const workspace = await dirs.make();
    const outcome = await run(workspace, 'write_file', { path: 'a/b/c.txt', content: 'héllo' });
    expect(successOutput(outcome)).toBe("created 'a/b/c.txt' (6 bytes)");
    expect(await readFile(join(workspace, 'a', 'b', 'c.txt'), 'utf8')).toBe('héllo');
  });

  it('overwrites an existing file', async () => {
    const workspace = await dirs.make();
    await writeFile(join(workspace, 'a.txt'), 'old content');
    const outcome = await run(workspace, 'write_file', { path: 'a.txt', content: 'new' });
    expect(successOutput(outcome)).toBe("overwrote 'a.txt' (3 bytes)");
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('new');
  });

  it('refuses to write over a directory', async () => {
    const workspace = await dirs.make();
    await mkdir(join(workspace, 'dir'));
    const outcome = await run(workspace, 'write_file', { path: 'dir', content: 'x' });
    expect(errorMessage(outcome)).toContain("'dir' is a directory");
  });
});
