import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, temporaryDirectory } from '../../test/context.js';
import { Edit } from './edit-tool.js';
import { Write } from './write-tool.js';

let root: { path: string; remove: () => void };
let write: Write;
let edit: Edit;
beforeAll(() => {
  root = temporaryDirectory();
  write = new Write({ cwd: root.path });
  edit = new Edit({ cwd: root.path });
});
afterAll(() => root.remove());

const file = (name: string): string => path.join(root.path, name);

describe('Write', () => {
  it('creates parent directories and reports creation', async () => {
    const result = await collect(write.execute({ file_path: 'a/b/c.txt', content: 'hello' }));
    expect(readFileSync(file('a/b/c.txt'), 'utf8')).toBe('hello');
    expect(result.text).toBe(`Created ${file('a/b/c.txt')} (5 bytes).`);
    expect(result.metadata).toMatchObject({ created: true, bytes: 5 });
  });

  it('replaces a file atomically, keeping its mode and leaving no temporary file', async () => {
    writeFileSync(file('script.sh'), 'old');
    chmodSync(file('script.sh'), 0o751);
    const result = await collect(write.execute({ file_path: file('script.sh'), content: 'new' }));
    expect(result.text).toContain('Updated');
    expect(readFileSync(file('script.sh'), 'utf8')).toBe('new');
    expect(statSync(file('script.sh')).mode & 0o777).toBe(0o751);
    expect(readdirSync(root.path).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writes through a symlink to its target', async () => {
    mkdirSync(file('real'));
    writeFileSync(file('real/t.txt'), 'x');
    symlinkSync(file('real/t.txt'), file('link.txt'));
    await collect(write.execute({ file_path: 'link.txt', content: 'through' }));
    expect(readFileSync(file('real/t.txt'), 'utf8')).toBe('through');
  });
});

describe('Edit', () => {
  it('replaces a unique string and shows the changed lines', async () => {
    writeFileSync(file('e.ts'), 'const a = 1;\nconst b = 2;\n');
    const result = await collect(
      edit.execute({ file_path: 'e.ts', old_string: 'b = 2', new_string: 'b = 3' }),
    );
    expect(readFileSync(file('e.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    expect(result.text).toBe(
      `Edited ${file('e.ts')}: replaced 1 occurrence.\n     1\tconst a = 1;\n     2\tconst b = 3;\n     3\t`,
    );
  });

  it('fails clearly when the string is missing or not unique', async () => {
    writeFileSync(file('dup.txt'), 'x x x');
    await expect(
      collect(edit.execute({ file_path: 'dup.txt', old_string: 'y', new_string: 'z' })),
    ).rejects.toMatchObject({
      code: 'string_not_found',
    });
    await expect(
      collect(edit.execute({ file_path: 'dup.txt', old_string: 'x', new_string: 'z' })),
    ).rejects.toMatchObject({
      code: 'string_not_unique',
      message: expect.stringContaining('occurs 3 times'),
    });
    expect(readFileSync(file('dup.txt'), 'utf8')).toBe('x x x');
  });

  it('replaces every occurrence with replace_all, literally (no $ patterns)', async () => {
    writeFileSync(file('all.txt'), 'x x x');
    const result = await collect(
      edit.execute({ file_path: 'all.txt', old_string: 'x', new_string: "$&'", replace_all: true }),
    );
    expect(readFileSync(file('all.txt'), 'utf8')).toBe("$&' $&' $&'");
    expect(result.metadata).toMatchObject({ replacements: 3 });
  });

  it('refuses a no-op, a missing file and a binary file', async () => {
    writeFileSync(file('same.txt'), 'a');
    await expect(
      collect(edit.execute({ file_path: 'same.txt', old_string: 'a', new_string: 'a' })),
    ).rejects.toMatchObject({ code: 'no_change' });
    await expect(
      collect(edit.execute({ file_path: 'nope.txt', old_string: 'a', new_string: 'b' })),
    ).rejects.toMatchObject({ code: 'file_not_found' });
    writeFileSync(file('bin.dat'), Buffer.from([0, 1, 2, 97]));
    await expect(
      collect(edit.execute({ file_path: 'bin.dat', old_string: 'a', new_string: 'b' })),
    ).rejects.toMatchObject({ code: 'binary_file' });
  });

  it('requires a non-empty old_string', () => {
    expect(
      edit.inputSchema.safeParse({ file_path: 'x', old_string: '', new_string: 'y' }).success,
    ).toBe(false);
  });
});
