/**
 * Environment variables before a command (`NAME=value cmd`) fall in three
 * groups. Safe ones change nothing about what runs, so rules ignore them
 * (`NODE_ENV=test npm test` matches `npm test:*`). Dangerous ones make
 * programs load or run other code (`PAGER`, `GIT_SSH_COMMAND`, `LD_PRELOAD`):
 * a safety ask. Any other stays part of the text rules are matched against,
 * so `git:*` does not match `FOO=1 git log` and a rule must name it.
 */

const SAFE = new Set([
  'NODE_ENV',
  'NODE_NO_WARNINGS',
  'CI',
  'DEBUG',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'COLUMNS',
  'LINES',
  'RUST_LOG',
  'RUST_BACKTRACE',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'GOOS',
  'GOARCH',
  'CGO_ENABLED',
  'VERBOSE',
  'LOG_LEVEL',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_TERMINAL_PROMPT',
]);

const DANGEROUS = new Set([
  'PATH',
  'HOME',
  'ENV',
  'SHELL',
  'IFS',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'CDPATH',
  'GLOBIGNORE',
  'PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'EDITOR',
  'VISUAL',
  'BROWSER',
  'LESSOPEN',
  'LESSCLOSE',
  'LESSKEY',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'ZDOTDIR',
  'GCONV_PATH',
  'CLASSPATH',
  'MAKEFLAGS',
  'MFLAGS',
  'DOTNET_STARTUP_HOOKS',
  'JDK_JAVA_OPTIONS',
  'MAVEN_OPTS',
  'GRADLE_OPTS',
  'RIPGREP_CONFIG_PATH',
  'LESS',
  'GREP_OPTIONS',
  'GREP_COLOR',
  'GREP_COLORS',
  'TAR_OPTIONS',
  'WGETRC',
  'CURL_HOME',
  'INPUTRC',
  'TMPDIR',
]);

/** Suffixes of variables that point a program at options or configuration of the caller's choosing (`GREP_OPTIONS`, `*_CONFIG_PATH`). */
const DANGEROUS_SUFFIXES = ['_OPTIONS', '_OPTS', '_CONFIG', '_CONFIG_PATH', '_CONFIG_FILE'];

const DANGEROUS_PREFIXES = [
  'LD_',
  'DYLD_',
  'BASH_',
  'GIT_',
  'NODE_',
  'NPM_CONFIG_',
  'YARN_',
  'PYTHON',
  'PERL',
  'RUBY',
  'JAVA_',
  '_JAVA_',
];

/** Whether setting the variable changes nothing about which code runs. */
export function isSafeVariable(name: string): boolean {
  return SAFE.has(name) || name.startsWith('LC_');
}

/** Whether setting the variable can make a program load or run other code. */
export function isDangerousVariable(name: string): boolean {
  if (isSafeVariable(name)) return false;
  const upper = name.toUpperCase();
  return (
    DANGEROUS.has(upper) ||
    DANGEROUS_PREFIXES.some((prefix) => upper.startsWith(prefix)) ||
    DANGEROUS_SUFFIXES.some((suffix) => upper.endsWith(suffix))
  );
}

/**
 * Whether the name is a shell-local one by convention (lower case, as loop
 * and `read` variables are): programs read upper-case variables, apart from
 * the proxy settings (`http_proxy`), which stay outside this group.
 */
function isLocalVariable(name: string): boolean {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !name.endsWith('proxy');
}

/**
 * Whether assigning the variable on a line, or exporting it earlier in the
 * line, leaves what later programs do unchanged: a known safe variable or a
 * shell-local name. Any other (`RIPGREP_CONFIG_PATH`, `GREP_OPTIONS`, one
 * the environment may already export) may change what a read-only program
 * reads or runs, so the line is not proven read-only.
 */
export function leavesProgramsAlone(name: string): boolean {
  return isSafeVariable(name) || isLocalVariable(name);
}
