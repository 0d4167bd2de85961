import type { Word } from './syntax.js';

/** `find` primaries and options with how many words they take; a `!` name writes or deletes. */
const FIND_PRIMARIES: Record<string, number> = {
  ...Object.fromEntries(
    [
      'amin',
      'anewer',
      'atime',
      'cmin',
      'cnewer',
      'ctime',
      'fstype',
      'gid',
      'group',
      'ilname',
      'iname',
      'inum',
      'ipath',
      'iregex',
      'iwholename',
      'links',
      'lname',
      'mmin',
      'mtime',
      'name',
      'newer',
      'path',
      'perm',
      'regex',
      'samefile',
      'size',
      'type',
      'uid',
      'used',
      'user',
      'wholename',
      'xtype',
      'context',
      'maxdepth',
      'mindepth',
      'regextype',
      'files0-from',
      'printf',
    ].map((name) => [`-${name}`, 1]),
  ),
  ...Object.fromEntries(
    [
      'empty',
      'executable',
      'false',
      'true',
      'nogroup',
      'nouser',
      'readable',
      'writable',
      'depth',
      'd',
      'follow',
      'help',
      'ignore_readdir_race',
      'noignore_readdir_race',
      'mount',
      'xdev',
      'noleaf',
      'version',
      'warn',
      'nowarn',
      'daystart',
      'ls',
      'print',
      'print0',
      'prune',
      'quit',
      'not',
      'a',
      'and',
      'o',
      'or',
    ].map((name) => [`-${name}`, 0]),
  ),
  '--help': 0,
  '--version': 0,
  '(': 0,
  ')': 0,
  '!': 0,
  ',': 0,
};

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * Whether `find` itself only reads: every word of its expression is a known
 * test, option or operator with its values, or an `-exec`-style action (whose
 * command is judged on its own). `-delete`, `-fprint`, `-fls` and anything
 * unknown are not read-only.
 */
export function isReadOnlyFind(args: readonly Word[]): boolean {
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d?)$/.test(args[i]?.value ?? '')) i++;
  if (args[i]?.value === '-D') return false;
  while (i < args.length && !/^[-(!),]/.test(args[i]?.value ?? '')) i++;
  for (; i < args.length; i++) {
    const text = args[i]?.value ?? '';
    if (EXEC_ACTIONS.has(text)) {
      while (i < args.length && args[i]?.value !== ';' && args[i]?.value !== '+') i++;
      continue;
    }
    const count = /^-newer[aBcmt][aBcmt]$/.test(text) ? 1 : FIND_PRIMARIES[text];
    if (count === undefined) return false;
    i += count;
    if (i >= args.length && count > 0) return false;
  }
  return true;
}
