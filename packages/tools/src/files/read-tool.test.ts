import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, temporaryDirectory } from '../../test/context.js';
import { FileToolError } from '../errors.js';
import { Read } from './read-tool.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489',
  'hex',
);

let root: { path: string; remove: () => void };
let read: Read;
beforeAll(() => {
  root = temporaryDirectory();
  read = new Read({ cwd: root.path });
  writeFileSync(path.join(root.path, 'five.txt'), 'one\ntwo\nthree\nfour\nfive\n');
  writeFileSync(path.join(root.path, 'empty.txt'), '');
  writeFileSync(path.join(root.path, 'pixel.dat'), PNG);
  writeFileSync(
    path.join(root.path, 'blob.bin'),
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]),
  );
  writeFileSync(path.join(root.path, 'long.txt'), `${'x'.repeat(2500)}\n`);
  mkdirSync(path.join(root.path, 'dir'));
});
afterAll(() => root.remove());

const readFile = (input: { file_path: string; offset?: number; limit?: number }) =>
  collect(read.execute(input));

describe('Read', () => {
  it('numbers the lines', async () => {
    const result = await readFile({ file_path: path.join(root.path, 'five.txt') });
    expect(result.text).toBe('     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive');
    expect(result.metadata).toMatchObject({ totalLines: 5, startLine: 1, lines: 5 });
  });

  it('reads from an offset, up to a limit, and says what it left out', async () => {
    const result = await readFile({ file_path: 'five.txt', offset: 2, limit: 2 });
    expect(result.text).toBe(
      '     2\ttwo\n     3\tthree\n(Showing lines 2-3 of 5. Use offset and limit to read more.)',
    );
  });

  it('says when the offset is past the end or the file is empty', async () => {
    expect((await readFile({ file_path: 'five.txt', offset: 9 })).text).toContain(
      'offset 9 is past the end',
    );
    expect((await readFile({ file_path: 'empty.txt' })).text).toContain('is empty');
  });

  it('cuts very long lines', async () => {
    expect((await readFile({ file_path: 'long.txt' })).text).toMatch(
      /x… \[line cut: 500 more characters\]$/,
    );
  });

  it('returns an image as a data block', async () => {
    const result = await readFile({ file_path: 'pixel.dat' });
    expect(result.blocks[1]).toEqual({
      type: 'data',
      name: 'pixel.dat',
      source: { type: 'base64', data: PNG.toString('base64'), mediaType: 'image/png' },
    });
  });

  it('refuses binary files, directories and missing files clearly', async () => {
    await expect(readFile({ file_path: 'blob.bin' })).rejects.toMatchObject({
      code: 'binary_file',
      message: expect.stringContaining('is a binary file'),
    });
    await expect(readFile({ file_path: 'dir' })).rejects.toMatchObject({ code: 'not_a_file' });
    await expect(readFile({ file_path: 'missing.txt' })).rejects.toBeInstanceOf(FileToolError);
    await expect(readFile({ file_path: 'missing.txt' })).rejects.toMatchObject({
      code: 'file_not_found',
    });
  });

  it('is read-only and concurrency-safe', () => {
    expect(read.isReadOnly({ file_path: 'x' })).toBe(true);
    expect(read.isConcurrencySafe({ file_path: 'x' })).toBe(true);
    expect(read.name).toBe('Read');
  });
});
