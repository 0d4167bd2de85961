import path from 'node:path';

/**
 * Files whose change can run code or leak credentials later (shell start-up
 * files, tool configuration, secrets). Writing one is a safety ask that no
 * rule or mode clears (SPEC section 7).
 */
const DANGEROUS_FILES = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.profile',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.inputrc',
  '.gitconfig',
  '.git-credentials',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.pgpass',
  '.vimrc',
  '.exrc',
  '.envrc',
  '.mcp.json',
  '.ripgreprc',
  'authorized_keys',
]);

/** Directories whose contents configure tools that run code (hooks, editors) or hold keys. */
const DANGEROUS_DIRECTORIES = new Set([
  '.git',
  '.ssh',
  '.gnupg',
  '.aws',
  '.kube',
  '.docker',
  '.vscode',
  '.idea',
  '.husky',
]);

/**
 * Start-up and configuration files known by their whole place (matched on
 * the lower-cased absolute path): the system shells' start-up files, git's
 * system and XDG configuration, fish's and zsh's configuration directories,
 * user services and autostart entries. Each runs code at the next login,
 * shell or git command.
 */
const DANGEROUS_PLACES: readonly RegExp[] = [
  /^\/etc\/(?:profile|bash\.bashrc|bashrc|bash\.bash_logout|environment|zshrc|zshenv|zprofile|zlogin|zlogout|gitconfig|ld\.so\.preload|sudoers|inputrc)$/,
  /^\/etc\/(?:profile\.d|zsh|fish|sudoers\.d|environment\.d)(?:\/|$)/,
  /\/\.config\/(?:git|fish|zsh|environment\.d|autostart|systemd)(?:\/|$)/,
  /\/\.zsh(?:\/|$)/,
];

/**
 * The names of the dangerous files and directories (`.bashrc`, `.ssh`, …),
 * `.git` left out: a sandbox keeps them read-only where they exist at the
 * top of a writable directory.
 */
export function dangerousNames(): string[] {
  return [...DANGEROUS_FILES, ...DANGEROUS_DIRECTORIES].filter((name) => name !== '.git');
}

/**
 * Why writing to `absolute` is dangerous, or undefined when it is not: the
 * file is a dangerous file (`.bashrc`, `.env*`, …), or the path is or lies
 * inside a dangerous directory (`.git`, `.ssh`, …). Case-insensitive, so
 * `.GIT/config` on a case-insensitive file system is caught too.
 */
export function dangerousPathReason(absolute: string): string | undefined {
  const segments = absolute.split(path.sep).filter((segment) => segment !== '');
  for (const segment of segments) {
    const lower = segment.toLowerCase();
    if (DANGEROUS_DIRECTORIES.has(lower)) return `${absolute} is inside the ${segment} directory`;
  }
  const joined = `/${segments.join('/').toLowerCase()}`;
  if (DANGEROUS_PLACES.some((place) => place.test(joined))) {
    return `${absolute} is a start-up or configuration file that runs code`;
  }
  const name = (segments.at(-1) ?? '').toLowerCase();
  if (DANGEROUS_FILES.has(name) || name.startsWith('.env')) {
    return `${absolute} is a sensitive file (${segments.at(-1) ?? ''})`;
  }
  return undefined;
}

/**
 * Whether a glob (one path segment, bash rules: `*` does not match a
 * leading dot) could match a dangerous file or directory name, so that
 * `> ~/.bash*` or `rm -r .g*` are treated like the names they expand to.
 */
export function globMayMatchDangerousName(matches: (name: string) => boolean): boolean {
  const names = [
    ...DANGEROUS_FILES,
    ...DANGEROUS_DIRECTORIES,
    '.env',
    '.env.local',
    '.env.production',
  ];
  return names.some((name) => matches(name));
}

/** Device files a command may write to harmlessly (`2>/dev/null`). */
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** Whether the path is a device file other than the harmless sinks (`/dev/sda`, `/dev/mem`). */
export function isDeviceWrite(absolute: string): boolean {
  if (HARMLESS_DEVICES.has(absolute) || /^\/dev\/fd\/\d+$/.test(absolute)) return false;
  return absolute === '/dev' || absolute.startsWith('/dev/');
}

/** Whether the path is a harmless sink (`/dev/null`, `/dev/stderr`, …) that writes nothing. */
export function isHarmlessSink(absolute: string): boolean {
  return HARMLESS_DEVICES.has(absolute) || /^\/dev\/fd\/\d+$/.test(absolute);
}
