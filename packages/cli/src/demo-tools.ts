import { readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { join, normalize, isAbsolute } from 'node:path';
import { z } from 'zod';
import { AskUser, tool } from '@parley/core';
import type { AnyTool } from '@parley/core';

/**
 * The scripted demo's toolkit: a notebook in a directory of its own. Like
 * every custom tool, `write_note` and `delete_notes` ask before they run;
 * `deploy` is external (the person does it); `AskUser` asks questions.
 */

/** A note path that stays inside the notebook. */
function notePath(directory: string, path: string): string {
  const clean = normalize(path);
  if (isAbsolute(clean) || clean.startsWith('..')) {
    throw new Error(`A note path must stay inside the notebook: ${path}`);
  }
  return join(directory, clean);
}

/** The demo tools, keeping notes in `directory`. */
export function demoTools(directory: string): AnyTool[] {
  const writeNote = tool({
    name: 'write_note',
    description: 'Write a note (Markdown) to the notebook.',
    input: z.object({ path: z.string().min(1), content: z.string() }),
    execute: async ({ path, content }) => {
      await mkdir(directory, { recursive: true });
      await writeFile(notePath(directory, path), content, 'utf8');
      return `Wrote ${content.length} characters to ${path}`;
    },
  });
  const deleteNotes = tool({
    name: 'delete_notes',
    description:
      'Delete every note of the notebook whose name ends with the given suffix ("" for all).',
    input: z.object({ suffix: z.string() }),
    execute: async ({ suffix }) => {
      await mkdir(directory, { recursive: true });
      const names = (await readdir(directory)).filter((name) => name.endsWith(suffix));
      for (const name of names) await rm(join(directory, name), { force: true });
      return `Deleted ${names.length} note${names.length === 1 ? '' : 's'}`;
    },
  });
  const deploy = tool({
    name: 'deploy',
    description: 'Deploy the notebook site. A person does this and reports the outcome.',
    input: z.object({ environment: z.enum(['staging', 'production']) }),
    external: true,
    // The person runs it themselves, so asking them first would be asking twice.
    checkPermissions: () => ({ behavior: 'allow', message: 'A person runs deploy.' }),
  });
  return [writeNote, deleteNotes, deploy, AskUser];
}
