import { describe, expect, it } from 'vitest';
import { fdNotePath, readCall, readTrace, stringArgument } from './strace-trace.js';

// Lines as strace 6.1 writes them with -f -qq -yy (copied from real traces, paths shortened).
const OPEN_WRITE =
  '24400 openat(AT_FDCWD</sb/project>, "docs/guide.md", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</sb/project/docs/guide.md>';
const OPEN_NULL =
  '9204  openat(AT_FDCWD</sb>, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</dev/null<char 1:3>>';
const CONNECT =
  '11265 connect(3<TCP:[24014]>, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ENETUNREACH (Network is unreachable)';
const EXECVE = '11272 execve("/usr/bin/xargs", ["xargs", "echo"], 0x561946ed36d0 /* 5 vars */) = 0';

describe('readTrace', () => {
  it('reads a call: name, arguments, result, the fd note of the result', () => {
    const { events, unreadable } = readTrace(`${OPEN_WRITE}\n${OPEN_NULL}\n`);
    expect(unreadable).toEqual([]);
    expect(events[0]).toMatchObject({
      pid: 24400,
      name: 'openat',
      args: ['AT_FDCWD</sb/project>', '"docs/guide.md"', 'O_WRONLY|O_CREAT|O_TRUNC', '0666'],
      result: '3',
      resultPath: '/sb/project/docs/guide.md',
      errno: undefined,
    });
    expect(events[1]?.resultPath).toBe('/dev/null<char 1:3>');
  });

  it('keeps structures, comments and strings with commas whole, and reads errno', () => {
    const { events } = readTrace(`${CONNECT}\n${EXECVE}\n`);
    expect(events[0]?.args).toHaveLength(3);
    expect(events[0]?.args[1]).toBe(
      '{sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}',
    );
    expect(events[0]).toMatchObject({ result: '-1', errno: 'ENETUNREACH' });
    expect(events[1]?.args).toEqual([
      '"/usr/bin/xargs"',
      '["xargs", "echo"]',
      '0x561946ed36d0 /* 5 vars */',
    ]);
  });

  it('joins a call strace split around another process', () => {
    const text = [
      '11269 execve("/usr/bin/git", ["git", "status"], 0x557d /* 5 vars */ <unfinished ...>',
      '11270 execve("/usr/bin/head", ["head", "-1"], 0x557d /* 5 vars */) = 0',
      '11269 <... execve resumed>)             = 0',
    ].join('\n');
    const { events, unreadable } = readTrace(text);
    expect(unreadable).toEqual([]);
    expect(events.map((event) => [event.pid, stringArgument(event.args[0]), event.result])).toEqual(
      [
        [11270, '/usr/bin/head', '0'],
        [11269, '/usr/bin/git', '0'],
      ],
    );
  });

  it('returns every line it cannot read as a whole call instead of dropping it', () => {
    const text = [
      'garbage',
      '12 <... openat resumed>) = 3',
      '13 openat(AT_FDCWD, "x", O_WRONLY',
      '14 openat(AT_FDCWD, "y", O_RDONLY <unfinished ...>',
      '15 --- SIGCHLD {si_signo=SIGCHLD} ---',
    ].join('\n');
    const { events, unreadable } = readTrace(text);
    expect(events).toEqual([]);
    expect(unreadable).toHaveLength(5);
  });

  it('reads a socket note with its arrow, and a path ending in "-"', () => {
    const socket = readCall(
      7,
      'sendto(3<TCP:[127.0.0.1:40000->127.0.0.1:80]>, "GET", 3, 0, NULL, 0) = 3',
    );
    expect(socket?.args[0]).toBe('3<TCP:[127.0.0.1:40000->127.0.0.1:80]>');
    const dash = readCall(8, 'openat(AT_FDCWD</p>, "-", O_WRONLY|O_CREAT, 0666) = 3</p/->');
    expect(dash?.resultPath).toBe('/p/-');
  });
});

describe('stringArgument and fdNotePath', () => {
  it('decodes strace escapes: named, octal, hex, UTF-8 bytes', () => {
    expect(stringArgument('"a\\nb\\"c\\\\"')).toBe('a\nb"c\\');
    expect(stringArgument('"\\342\\202\\254 \\x41"')).toBe('€ A');
    expect(stringArgument('"x"...')).toBeUndefined();
    expect(stringArgument('AT_FDCWD')).toBeUndefined();
  });

  it('reads the path of an fd note', () => {
    expect(fdNotePath('AT_FDCWD</tmp/x>')).toBe('/tmp/x');
    expect(fdNotePath('3</dev/null<char 1:3>>')).toBe('/dev/null');
    expect(fdNotePath('AT_FDCWD')).toBeUndefined();
  });
});
