import type { AnalysedCommand, CommandAnalysis } from '../analysis.js';

/** Programs whose work is talking to other machines, whatever their arguments. */
const NETWORK_PROGRAMS = new Set([
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ftp',
  'ping',
  'dig',
  'host',
  'nslookup',
  'gh',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'deno',
  'pip',
  'pip3',
  'pipx',
  'uv',
  'poetry',
  'cargo',
  'go',
  'gem',
  'bundle',
  'docker',
  'podman',
  'apt',
  'apt-get',
  'brew',
]);

/** git subcommands that talk to a remote. */
const GIT_NETWORK = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule', 'remote']);

/** git's global options that take a value as the next word. */
const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);

/** The subcommand of a git command and the words after it. */
function gitSubcommand(command: AnalysedCommand): { name: string; rest: string[] } {
  const values = command.args.map((arg) => arg.value);
  let index = 0;
  while (index < values.length && (values[index] ?? '').startsWith('-')) {
    if (GIT_VALUE_OPTIONS.has(values[index] ?? '')) index++;
    index++;
  }
  return { name: values[index] ?? '', rest: values.slice(index + 1) };
}

const gitCommands = (analysis: CommandAnalysis): { name: string; rest: string[] }[] =>
  analysis.all.filter((command) => command.program === 'git').map(gitSubcommand);

/**
 * Whether the line runs a network command by name (`curl`, `npm install`,
 * `git push`): an approved line that does gets the host's network in the
 * sandbox. Package managers count whatever their subcommand, since scripts
 * and installs look alike from outside.
 */
export function isNetworkCommand(analysis: CommandAnalysis): boolean {
  return (
    analysis.all.some((command) => NETWORK_PROGRAMS.has(command.program)) ||
    gitCommands(analysis).some((git) => GIT_NETWORK.has(git.name))
  );
}

const hasAny = (rest: readonly string[], pattern: RegExp): boolean =>
  rest.some((value) => pattern.test(value));

/**
 * Whether a git command of the line writes the repository's `.git/config`
 * (a person who approved it saw that): `git config` and `git remote` that
 * change something, branches with upstreams or renamed or deleted,
 * `checkout`/`switch` that set up tracking, `push -u`, submodules and
 * worktrees. Otherwise `.git/config` stays read-only in the sandbox.
 */
export function writesGitConfig(analysis: CommandAnalysis): boolean {
  return gitCommands(analysis).some(({ name, rest }) => {
    switch (name) {
      case 'config':
      case 'submodule':
      case 'worktree':
      case 'init':
      case 'clone':
        return true;
      case 'remote':
        return rest.some((value) => !value.startsWith('-'));
      case 'branch':
        return hasAny(
          rest,
          /^(-[a-zA-Z]*[udDmMcCt]|--(set-upstream|unset-upstream|track|move|copy|delete))/,
        );
      case 'checkout':
      case 'switch':
        return hasAny(rest, /^(-[a-zA-Z]*[bBcCt]|--(track|create|force-create))/);
      case 'push':
        return hasAny(rest, /^(-[a-zA-Z]*u|--set-upstream)/);
      default:
        return false;
    }
  });
}
