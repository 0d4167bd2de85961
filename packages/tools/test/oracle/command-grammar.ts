import fc from 'fast-check';
import {
  GIT_GLOBAL,
  GIT_NAME_WORDS,
  GIT_SUBCOMMANDS,
  PROGRAMS,
  type LongOption,
  type ProgramSpec,
} from './program-table.js';
import { claimedOptions } from './claimed-options.js';
import { Draw, LOOPBACK_PORT, quote, value, type Word } from './words.js';

/**
 * The oracle's grammar: command lines built from read-only programs with
 * their real options (short, joined, attached values, GNU long options and
 * their unambiguous — or ambiguous — prefixes), values and operands in every
 * quoting style, expansions, redirections (to /dev/null, to files, to
 * `/dev/tcp/127.0.0.1/…`, with no command at all), assignments before the
 * program, separators, pipelines, compound commands, comments, line
 * continuations and here-documents.
 */

/** One generated command line, and its top-level parts (each a command line of its own) for narrowing a failure down. */
export type GeneratedCommand = { command: string; parts: string[] };

/** Every program name the grammar runs: the oracle's proven command list. */
export const GRAMMAR_PROGRAMS: ReadonlySet<string> = new Set([
  ...Object.keys(PROGRAMS),
  'git',
  '[',
  'bash',
  'timeout',
]);

const PROGRAM_NAMES = Object.keys(PROGRAMS);
const GIT_NAMES = Object.keys(GIT_SUBCOMMANDS);
const WRAPPED = PROGRAM_NAMES.filter((name) => PROGRAMS[name]?.runs !== true);

const SEPARATORS = ['; ', ' && ', ' || ', ' & ', '\n', ';', ' &&\n'];
const PIPES = [' | ', ' |& ', '|'];
const ASSIGNMENTS = [
  'LANG=C',
  'LC_ALL=C',
  'TZ=UTC',
  'NO_COLOR=1',
  'GIT_PAGER=cat',
  'PAGER=cat',
  'X=1',
];
const EXTRA_ASSIGNMENTS = [
  'GIT_DIR=.git',
  'GIT_PAGER=od',
  'PAGER=less',
  'GIT_EXTERNAL_DIFF=od',
  "LESSOPEN='|id'",
];

/** Redirections that write nothing, drawn half of the time. */
const QUIET_REDIRECTIONS = [
  '> /dev/null',
  '2> /dev/null',
  '2>&1',
  '&> /dev/null',
  '< README.md',
  '<<< foo',
];

function redirection(draw: Draw): string {
  return draw.pick(draw.tame || draw.chance(50) ? QUIET_REDIRECTIONS : REDIRECTIONS);
}

const REDIRECTIONS = [
  ...['> /dev/null', '2> /dev/null', '&> /dev/null', '>> /dev/null', '2>&1', '>&2', '1>&2'],
  ...['< README.md', '< /dev/null', '<<< foo', '0< notes.txt', '2>/dev/null', '>/dev/stdout'],
  ...['> out.txt', '>> notes.txt', '> README.md', '>| out.txt', '2> err.log', '&> out.txt'],
  ...['<> notes.txt', '3> out.txt', `< /dev/tcp/127.0.0.1/${LOOPBACK_PORT}`],
  ...[`> /dev/tcp/127.0.0.1/${LOOPBACK_PORT}`, '> ~/.bashrc', '> .git/hooks/pre-commit'],
  ...['> /dev/stderr', '> /dev/fd/2', '>&-', '<&-', '2>&-', '>"out.txt"', ">'.git/config'"],
  ...['> /proc/self/cwd/out.txt', '>$HOME/.profile', '1>>.env', '>\\\nout.txt'],
  ...['>&out.txt', '&>>out.txt', '{fd}> out.txt', '{x}<> notes.txt', '> R*.md', '> ~+/out.txt'],
  ...["> $'out.txt'", '2>&1 >out.txt', '> >(cat)', '>&2-', '4<>.env', '> "$PWD"/out.txt'],
  ...['> {a,b}', '>>.git/HEAD', '0<>README.md', '<&3', '>\\|out.txt'],
];

const HEREDOC_OPENERS: readonly [string, string][] = [
  ['<<EOF', 'EOF'],
  ["<<'EOF'", 'EOF'],
  ['<<"EOF"', 'EOF'],
  ['<<-EOF', 'EOF'],
  ['<<E"O"F', 'EOF'],
  ['<<\\EOF', 'EOF'],
  ['<<EO\\\nF', 'EOF'],
];
const HEREDOC_BODIES = ['hello', '$HOME', '$(id)', '`id`', 'a\\\nb', "'x'"];

/** fast-check arbitrary of generated command lines. */
export const commandLine: fc.Arbitrary<GeneratedCommand> = fc
  .gen()
  .map((generate) => line(new Draw(generate)));

/**
 * Writes made with read-only programs' own options, hidden by the tricks
 * below: if the analysis reads a trick the way bash does, it sees the write
 * and asks; if not, the oracle sees the write happen.
 */
const HIDDEN_WRITES = [
  'sort -o out.txt README.md',
  "sed -n 'w out.txt' README.md",
  'uniq README.md out.txt',
  'xxd README.md out.txt',
  'awk \'BEGIN { print 1 > "out.txt" }\'',
  'find . -maxdepth 0 -fprint out.txt',
  'git branch new-branch',
  'date > out.txt',
  '/usr/bin/time -o out.txt true',
];

/**
 * Places where tree-sitter-bash and bash have read a line differently
 * (issue #10, class 1), with a hidden write where bash would run it.
 * `W` is replaced by one of {@link HIDDEN_WRITES}.
 */
const TRICKS = [
  "echo $'\\\\'; W #'",
  "echo $'\\\\' ; W # '",
  "echo $'a\\'' ; W #'",
  'cat <<EO\\\nF\nx\nEOF\nW',
  'cat <<E"O"F\nx\nEOF\nW',
  "cat <<'E'OF\nx\nEOF\nW",
  'cat <<-EOF\n\tx\n\tEOF\nW',
  "[[ 'a[$(W)]' -eq 1 ]]",
  "[[ $'a[\\x24(W)]' -eq 1 ]]",
  '[[ x -eq a[`W`] ]]',
  'ls #\\\nW',
  'echo a\\\n;W',
  'true | time W',
  'echo x\\\n> out.txt',
  'ls() { W; }; ls',
  '{W}',
  'echo "$\'\\\\\'"; W',
  'printf -v PATH x; W',
];

function trick(draw: Draw): string {
  const writer = draw.pick(HIDDEN_WRITES);
  const template = draw.pick(TRICKS);
  // `{W}` is brace expansion: the hidden write as one word with commas for spaces.
  return template === '{W}' ? `{${writer.split(' ').join(',')}}` : template.replace('W', writer);
}

function line(draw: Draw): GeneratedCommand {
  if (draw.chance(6)) return { command: trick(draw), parts: [] };
  const count = draw.chance(60) ? 1 : draw.int(2, 3);
  const parts: string[] = [];
  let command = '';
  for (let i = 0; i < count; i++) {
    const part = pipeline(draw, 2);
    parts.push(part);
    command += i === 0 ? part : draw.pick(SEPARATORS) + part;
  }
  if (draw.chance(8) && !command.includes('\n')) {
    const [opener, delimiter] = draw.pick(HEREDOC_OPENERS);
    const simple = simpleCommand(draw, 1);
    const heredoc = `${simple} ${opener}`;
    command += `${draw.pick(SEPARATORS.filter((s) => s !== '\n'))}${heredoc}\n${draw.pick(HEREDOC_BODIES)}\n${delimiter}`;
    return { command, parts: [] };
  }
  if (draw.chance(5)) command += draw.pick([' # done', ' #', '# x', ' # ; touch x']);
  return { command, parts };
}

function pipeline(draw: Draw, depth: number): string {
  let text = command(draw, depth);
  if (draw.chance(20)) text += draw.pick(PIPES) + command(draw, depth);
  return draw.chance(4) ? `! ${text}` : text;
}

function command(draw: Draw, depth: number): string {
  if (depth > 0 && draw.chance(8)) return compound(draw, depth - 1);
  if (draw.chance(6)) return testCommand(draw);
  if (draw.chance(3)) return redirection(draw);
  return simpleCommand(draw, 1);
}

function compound(draw: Draw, depth: number): string {
  const inner = (): string => pipeline(draw, depth);
  switch (draw.int(0, 9)) {
    case 0:
      return `{ ${inner()}; }`;
    case 1:
      return `( ${inner()} )`;
    case 2:
      return `if ${inner()}; then ${inner()}; fi`;
    case 3:
      return `if ${inner()}; then ${inner()}; else ${inner()}; fi`;
    case 4:
      return `for f in README.md notes.txt; do ${inner()}; done`;
    case 5:
      return `while false; do ${inner()}; done`;
    case 6:
      return `case x in x) ${inner()};; esac`;
    case 7:
      return `time ${inner()}`;
    case 8:
      return `f() { ${inner()}; }; f`;
    default:
      return `(( 1 )) && ${inner()}`;
  }
}

function testCommand(draw: Draw): string {
  const operand = (): string => quote(draw, value(draw, 'file'));
  const unary = (): string =>
    `${draw.pick(['-f', '-d', '-e', '-s', '-n', '-z', '-w', '-r'])} ${operand()}`;
  const binary = (): string =>
    `${operand()} ${draw.pick(['=', '!=', '-nt', '-ot', '-ef', '\\>', '\\<', '>', '<'])} ${operand()}`;
  const expression = draw.chance(50) ? unary() : binary();
  switch (draw.int(0, 2)) {
    case 0:
      return `test ${expression}`;
    case 1:
      return `[ ${expression} ]`;
    default:
      return `[[ ${expression} ]]`;
  }
}

/** Assignments, the program and its arguments, redirections before and after. */
function simpleCommand(draw: Draw, wrapDepth: number): string {
  const words: string[] = [];
  if (draw.chance(10))
    words.push(draw.pick(draw.tame || draw.chance(70) ? ASSIGNMENTS : EXTRA_ASSIGNMENTS));
  if (draw.chance(4)) words.push(redirection(draw));
  const name = draw.chance(12) ? 'git' : draw.pick(PROGRAM_NAMES);
  words.push(programWord(draw, name));
  words.push(...(name === 'git' ? gitArguments(draw) : programArguments(draw, name, wrapDepth)));
  if (draw.chance(20)) words.push(redirection(draw));
  if (draw.chance(5)) words.push(redirection(draw));
  return words.join(draw.chance(3) ? ' \\\n' : ' ');
}

/** The program as written: its name (in any quoting), a system path, or a glob that matches only it. */
function programWord(draw: Draw, name: string): string {
  const form = draw.int(0, 19);
  if (form === 0) return `/usr/bin/${name}`;
  if (form === 1) return `/bin/${name}`;
  if (form === 2 && name.length > 1) {
    const at = draw.int(0, name.length - 1);
    return `/usr/bin/${name.slice(0, at)}[${name[at] ?? ''}]${name.slice(at + 1)}`;
  }
  if (form === 3) return `\\${name}`;
  if (form === 4) return `command ${name}`;
  if (form === 5)
    return `${draw.pick(['command -p', 'builtin', 'exec', 'command --', 'nohup'])} ${name}`;
  return quote(draw, { text: name, raw: false });
}

function programArguments(draw: Draw, name: string, wrapDepth: number): string[] {
  if (name === 'find') return findArguments(draw, wrapDepth);
  const spec = PROGRAMS[name];
  if (spec === undefined) return [];
  const own = draw.chance(30) ? claimedOptions(draw, name) : [];
  const words = [...(own.length > 0 ? own : options(draw, spec)), ...operands(draw, spec)];
  if (spec.runs === true) {
    if (name === 'timeout' && !words.some((word) => /^[0-9]/.test(word))) words.push('1');
    if (wrapDepth > 0 && (name !== 'xargs' || draw.chance(80))) {
      const inner = draw.pick(WRAPPED.filter((program) => program !== 'cd'));
      words.push(programWord(draw, inner), ...programArguments(draw, inner, wrapDepth - 1));
    }
  }
  if (draw.chance(10)) words.splice(draw.int(0, words.length), 0, '--');
  return words;
}

function gitArguments(draw: Draw): string[] {
  const words = draw.chance(25) ? options(draw, GIT_GLOBAL, 1) : [];
  const subcommand = draw.pick(GIT_NAMES);
  words.push(quote(draw, { text: subcommand, raw: false }));
  const spec = GIT_SUBCOMMANDS[subcommand];
  if (spec === undefined) return words;
  words.push(...options(draw, spec));
  if (spec.operands.includes('name') && draw.chance(70)) {
    words.push(quote(draw, { text: draw.pick(GIT_NAME_WORDS), raw: false }));
  }
  words.push(...operands(draw, spec));
  return words;
}

/** 0–3 options: joined short flags, short options with values, long options and prefixes of them. */
function options(draw: Draw, spec: ProgramSpec, most = 2): string[] {
  const words: string[] = [];
  const count = draw.int(0, most);
  for (let i = 0; i < count; i++) {
    const which = draw.int(0, 2);
    if (which === 0 && spec.long !== undefined && Object.keys(spec.long).length > 0) {
      words.push(...longOption(draw, spec.long));
    } else {
      words.push(...shortOptions(draw, spec));
    }
  }
  return words;
}

function longOption(draw: Draw, long: Readonly<Record<string, LongOption>>): string[] {
  const name = draw.pick(Object.keys(long));
  const kind = long[name] ?? 'flag';
  // GNU getopt takes any unambiguous prefix; an ambiguous one is refused by the program.
  const written = draw.chance(35) ? name.slice(0, draw.int(1, name.length)) : name;
  const option = `--${written}`;
  if (kind === 'flag') return [quote(draw, { text: option, raw: false })];
  if (typeof kind === 'object') {
    if (draw.chance(50)) return [quote(draw, { text: option, raw: false })];
    return [joined(draw, `${option}=`, value(draw, kind.optional))];
  }
  const given = value(draw, kind);
  if (draw.chance(50)) return [joined(draw, `${option}=`, given)];
  return [quote(draw, { text: option, raw: false }), quote(draw, given)];
}

function shortOptions(draw: Draw, spec: ProgramSpec): string[] {
  const flags = spec.flags ?? '';
  const valued = Object.entries(spec.valued ?? {});
  const optional = Object.entries(spec.optional ?? {});
  let cluster = '-';
  for (let i = draw.int(flags === '' ? 0 : 1, Math.min(flags.length, 3)); i > 0; i--) {
    cluster += draw.pick([...flags]);
  }
  const last = draw.int(0, 2);
  if (last === 1 && valued.length > 0) {
    const [letter, kind] = draw.pick(valued);
    const given = value(draw, kind);
    if (draw.chance(50)) return [joined(draw, cluster + letter, given)];
    return [quote(draw, { text: cluster + letter, raw: false }), quote(draw, given)];
  }
  if (last === 2 && optional.length > 0) {
    const [letter, kind] = draw.pick(optional);
    if (draw.chance(50)) return [quote(draw, { text: cluster + letter, raw: false })];
    return [joined(draw, cluster + letter, value(draw, kind))];
  }
  return cluster === '-' ? [] : [quote(draw, { text: cluster, raw: false })];
}

/** An option and its value in one word (`-oFILE`, `--output=FILE`). */
function joined(draw: Draw, option: string, given: Word): string {
  return given.raw
    ? quote(draw, { text: option, raw: false }) + given.text
    : quote(draw, { text: option + given.text, raw: false });
}

function operands(draw: Draw, spec: ProgramSpec): string[] {
  const words: string[] = [];
  const count = draw.int(0, spec.maxOperands);
  for (let i = 0; i < count; i++) {
    const kind = spec.operands[Math.min(i, spec.operands.length - 1)];
    if (kind !== undefined) words.push(quote(draw, value(draw, kind)));
  }
  return words;
}

const FIND_TESTS: readonly (readonly string[])[] = [
  ['-name', '*.md'],
  ['-iname', 'readme*'],
  ['-type', 'f'],
  ['-type', 'd'],
  ['-maxdepth', '1'],
  ['-mindepth', '1'],
  ['-newer', 'README.md'],
  ['-size', '+0'],
  ['-empty'],
  ['-path', './src/*'],
  ['-not', '-name', 'x'],
  ['-prune'],
  ['-o'],
  ['-print'],
  ['-print0'],
  ['-ls'],
  ['-printf', '%p\\n'],
  ['-quit'],
  ['-fprint', 'out.txt'],
  ['-fprint0', 'out.txt'],
  ['-fprintf', 'out.txt', '%p'],
  ['-fls', '.git/config'],
  ['-delete'],
];

function findArguments(draw: Draw, wrapDepth: number): string[] {
  const words: string[] = [];
  if (draw.chance(15)) words.push(draw.pick(['-L', '-H', '-P']));
  words.push(quote(draw, { text: draw.pick(['.', 'src', 'docs', '.git']), raw: false }));
  for (let i = draw.int(0, 3); i > 0; i--) {
    words.push(...draw.pick(FIND_TESTS).map((text) => quote(draw, { text, raw: false })));
  }
  if (wrapDepth > 0 && draw.chance(20)) {
    const action = draw.pick(['-exec', '-execdir', '-ok', '-okdir']);
    const inner = draw.pick(WRAPPED);
    words.push(action, programWord(draw, inner), ...programArguments(draw, inner, 0), '{}');
    words.push(draw.pick(['\\;', "';'", '";"', '+']));
  }
  return words;
}
