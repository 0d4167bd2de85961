import { describe, expect, it } from 'vitest';
import { readTrace } from './strace-trace.js';
import { violationsOf } from './write-class.js';

const PROGRAMS = new Set(['bash', 'cat', 'git', 'tac']);
const kinds = (lines: string[], tmp?: string): string[] =>
  violationsOf(readTrace(lines.join('\n')), PROGRAMS, tmp).map((violation) => violation.kind);

describe('violationsOf', () => {
  it('counts opens for writing, creating or truncating, whether or not they succeeded', () => {
    expect(
      kinds(['1 openat(AT_FDCWD</p>, "x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</p/x>']),
    ).toEqual(['write']);
    expect(
      kinds(['1 openat(AT_FDCWD</p>, ".", O_WRONLY|O_CREAT, 0666) = -1 EISDIR (Is a directory)']),
    ).toEqual(['write']);
    expect(kinds(['1 open("y", O_RDWR) = -1 EACCES (Permission denied)'])).toEqual(['write']);
    expect(kinds(['1 openat(AT_FDCWD</p>, "x", O_RDONLY|O_CLOEXEC) = 3</p/x>'])).toEqual([]);
  });

  it('lets a write go only to /dev/null, /dev/full, a pipe or the terminal', () => {
    expect(
      kinds([
        '1 openat(AT_FDCWD</p>, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</dev/null<char 1:3>>',
        '1 openat(AT_FDCWD</p>, "/dev/full", O_WRONLY) = 0</dev/full<char 1:7>>',
        '1 openat(AT_FDCWD</p>, "/dev/stdout", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<pipe:[991]>',
        '1 openat(AT_FDCWD</p>, "/dev/tty", O_RDWR|O_NONBLOCK) = -1 ENXIO (No such device or address)',
      ]),
    ).toEqual([]);
    // A path that looks harmless but turns out to be a file is judged by what was opened.
    expect(
      kinds(['1 openat(AT_FDCWD</p>, "/dev/stdout", O_WRONLY, 0666) = 3</p/out.txt>']),
    ).toEqual(['write']);
  });

  it('counts every call that changes the file system', () => {
    const calls = [
      '1 unlink("x") = 0',
      '1 renameat2(AT_FDCWD</p>, "x", AT_FDCWD</p>, "y", RENAME_NOREPLACE) = 0',
      '1 mkdir("d", 0777) = -1 EEXIST (File exists)',
      '1 symlinkat("y", AT_FDCWD</p>, "z") = 0',
      '1 fchmod(3</p/x>, 0644) = 0',
      '1 utimensat(AT_FDCWD</p>, "x", NULL, 0) = 0',
      '1 ftruncate(3</p/x>, 0) = 0',
    ];
    expect(kinds(calls)).toEqual(calls.map(() => 'write'));
  });

  it('exempts git’s index refresh only in a git process', () => {
    const refresh = [
      '5 openat(AT_FDCWD</p>, "/p/.git/index.lock", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0666) = 3</p/.git/index.lock>',
      '5 rename("/p/.git/index.lock", "/p/.git/index") = 0',
    ];
    expect(
      kinds(['5 execve("/usr/bin/git", ["git", "status"], 0x1 /* 5 vars */) = 0', ...refresh]),
    ).toEqual([]);
    expect(kinds(['5 execve("/usr/bin/cat", ["cat"], 0x1 /* 5 vars */) = 0', ...refresh])).toEqual([
      'write',
      'write',
    ]);
  });

  it('exempts a scratch file only when made exclusively in TMPDIR and removed again', () => {
    const made =
      '6 openat(AT_FDCWD</p>, "/sb/tmp/tacX", O_RDWR|O_CREAT|O_EXCL, 0600) = 4</sb/tmp/tacX>';
    expect(kinds([made, '6 unlink("/sb/tmp/tacX") = 0'], '/sb/tmp')).toEqual([]);
    expect(
      kinds(
        [made, '6 unlink("/sb/tmp/tacX") = 0', '6 ftruncate(4</sb/tmp/tacX>(deleted), 0) = 0'],
        '/sb/tmp',
      ),
    ).toEqual([]);
    expect(kinds(['6 ftruncate(1</sb/p/out.txt>, 0) = 0'], '/sb/tmp')).toEqual(['write']);
    expect(kinds([made], '/sb/tmp')).toEqual(['write']);
    expect(
      kinds(
        [
          '6 openat(AT_FDCWD</p>, "/sb/tmp/x", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 4</sb/tmp/x>',
          '6 unlink("/sb/tmp/x") = 0',
        ],
        '/sb/tmp',
      ),
    ).toEqual(['write', 'write']);
  });

  it('counts connects and datagrams to the network; only a failed nscd lookup is exempt', () => {
    expect(
      kinds([
        '1 connect(3<TCP:[1]>, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ENETUNREACH (Network is unreachable)',
        '1 connect(3<UNIX-STREAM:[2]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = 0',
        '1 connect(3<UNIX-STREAM:[2]>, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, 110) = -1 ENOENT (No such file or directory)',
        '1 sendto(3<UDP:[3]>, "x", 1, 0, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.1")}, 16) = 1',
      ]),
    ).toEqual(['network', 'network', 'network', 'network']);
    expect(
      kinds([
        '1 connect(3<UNIX-STREAM:[2]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)',
        '1 sendto(3<NETLINK:[4]>, {nlmsg_len=20}, 20, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 20',
      ]),
    ).toEqual([]);
  });

  it('counts programs run that are not on the list or not from a system directory', () => {
    expect(
      kinds([
        '1 execve("/usr/bin/cat", ["cat"], 0x1 /* 1 var */) = 0',
        '1 execve("/usr/lib/git-core/git", ["git"], 0x1 /* 1 var */) = 0',
      ]),
    ).toEqual([]);
    expect(
      kinds([
        '1 execve("/usr/bin/man", ["man"], 0x1 /* 1 var */) = 0',
        '1 execve("./cat", ["cat"], 0x1 /* 1 var */) = 0',
        '1 execve("/usr/local/bin/sh", ["sh"], 0x1 /* 1 var */) = -1 ENOENT (No such file or directory)',
        '1 execveat(3</usr/bin>, "cat", ["cat"], 0x1 /* 1 var */, 0) = 0',
      ]),
    ).toEqual(['exec', 'exec', 'exec', 'exec']);
  });

  it('fails closed on what it cannot read', () => {
    expect(kinds(['not a call', '1 kill(5, SIGKILL) = 0'])).toEqual(['unreadable', 'unreadable']);
  });
});
