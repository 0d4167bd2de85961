import { describe, expect, it } from 'vitest';
import { analyseCommandLineAsync, type CommandAnalysis } from './analysis.js';

const analyse = (command: string): Promise<CommandAnalysis> => analyseCommandLineAsync(command);

describe('read-only detection (SPEC 7)', () => {
  it.each([
    'ls -la',
    'cat a.txt | head -5 | wc -l',
    'grep -rn TODO src',
    'rg --files',
    'find . -name "*.ts" -type f',
    'git status',
    'git log --oneline -5',
    'git diff HEAD~1 -- src',
    'git show HEAD:README.md',
    'git branch -a',
    'git tag',
    'git remote -v',
    'git config --get user.email',
    'git stash list',
    'git --no-pager log',
    'pwd',
    'which node',
    'echo hi',
    'sed -n 1,5p a.txt',
    "awk '{print $1}' a.txt",
    'sort a.txt | uniq -c',
    'cd src && ls',
    'ls 2>/dev/null',
    'ls > /dev/null 2>&1',
    'find . | xargs grep x',
    'find . | xargs',
    'find . -name x -exec cat {} +',
    'NODE_ENV=test ls',
    'time ls',
    'timeout 5 cat a.txt',
    'command -v node',
    '[ -f a ] && [[ -d b ]]',
    'date +%s',
    'env -i ls',
  ])('%s is read-only', async (command) => {
    const analysis = await analyse(command);
    expect(analysis.readOnly, JSON.stringify(analysis.safety)).toBe(true);
  });

  it.each([
    'ls > out.txt',
    'cat a >> b',
    'rm x',
    'find . -delete',
    'find . -exec rm {} \\;',
    'find . -fprint out',
    'git push',
    'git commit -m x',
    'git branch -D old',
    'git branch new-branch',
    'git tag v1',
    'git remote add o url',
    'git config user.name x',
    'git stash',
    'git -C other status',
    'git log --output=x',
    'git diff --ext-diff',
    'sed -i s/a/b/ f',
    "sed 's/a/b/w out' f",
    'awk \'{system("id")}\'',
    'sort -o out a',
    'uniq a b',
    'tree -o out',
    'rg --pre cat x',
    'date -s tomorrow',
    'hostname evil',
    'printf -v x y',
    'FOO=1 ls',
    'xargs rm',
    'find . | xargs git log',
    'tee out.txt',
    'nohup ls',
    './ls',
    'env',
    'printenv',
    'npm test',
    'echo $(ls)',
    'ls $HOME',
  ])('%s is not read-only', async (command) => {
    expect((await analyse(command)).readOnly).toBe(false);
  });
});

describe('wrappers', () => {
  it('finds the command a wrapper runs', async () => {
    const inner = async (command: string): Promise<string[]> =>
      (await analyse(command)).all.filter((item) => item.depth > 0).map((item) => item.text);
    expect(await inner('timeout -s KILL 5 rm x')).toEqual(['rm x']);
    expect(await inner('nice -n 5 env A=1 rm x')).toEqual(['A=1 rm x', 'env A=1 rm x']);
    expect(await inner('sudo -u root rm x')).toEqual(['rm x']);
    expect(await inner('xargs -n 1 -I{} rm {}')).toEqual(["rm '{}'"]);
    expect(await inner('find . -exec rm {} \\; -exec touch {} +')).toEqual([
      "rm '{}'",
      "touch '{}'",
    ]);
    expect(await inner("bash -c 'rm x; ls'")).toEqual(['rm x', 'ls']);
    expect(await inner("eval 'rm x'")).toEqual(['rm x']);
    expect(await inner("watch -n 1 'rm x'")).toEqual(['rm x']);
  });

  it('gives a find -exec command the start points as its targets', async () => {
    const analysis = await analyse('find src -name "*.o" -exec rm {} +');
    expect(
      analysis.targets.map((target) => [target.kind, target.word.value, target.contents]),
    ).toEqual([['remove', 'src', true]]);
  });

  it('gives an xargs command an unknown target', async () => {
    const analysis = await analyse('xargs rm');
    expect(analysis.targets.map((target) => target.word.dynamic)).toEqual([true]);
  });
});

describe('targets', () => {
  it('finds what file-system commands and redirections change', async () => {
    const targets = async (command: string): Promise<string[]> =>
      (await analyse(command)).targets.map(
        (target) => `${target.kind}:${target.via}:${target.word.value}`,
      );
    expect(await targets('rm -f a b')).toEqual(['remove:argument:a', 'remove:argument:b']);
    expect(await targets('cp -t dest a b')).toEqual([
      'write:argument:a',
      'write:argument:b',
      'write:argument:dest',
    ]);
    expect(await targets('mkdir -m 755 -p d')).toEqual(['write:argument:d']);
    expect(await targets('chmod 644 f')).toEqual(['write:argument:f']);
    expect(await targets('echo x > out 2>&1 2>/dev/null')).toEqual(['write:redirect:out']);
    expect(await targets('git -C repo log --output=log.txt')).toEqual([
      'write:argument:repo',
      'write:argument:log.txt',
    ]);
    expect(await targets('curl -o page.html https://x')).toEqual(['write:argument:page.html']);
    expect(await targets('dd if=a of=b')).toEqual(['write:argument:b']);
    expect(await targets('ls -la')).toEqual([]);
  });

  it('records the cd history each target comes after', async () => {
    const analysis = await analyse('touch a && cd sub && touch b; cd -; touch c');
    expect(analysis.directories).toEqual(['sub', undefined]);
    expect(analysis.targets.map((target) => target.cdIndex)).toEqual([0, 1, 2]);
  });
});

describe('safety findings', () => {
  it.each([
    ['rm -rf --no-such-option x', /rm -rf options/],
    ['sudo ls', /another user/],
    ['dd if=a of=b', /dd/],
    ['mkfs.ext4 /dev/x', /formats/],
    ['chmod 777 x', /chmod/],
    ['chmod o+w x', /chmod/],
    ['chown -R u x', /chown -R/],
    ['kill -9 1', /kill -9/],
    ['kill -s KILL 1', /kill -9/],
    ["sed -i 's/a/b/w out' f", /sed -i script writes other files/],
    ["sed -i '1e id' f", /sed -i script runs commands/],
    ["sed -i '/x/r other' f", /sed -i script reads other files/],
    ['sed -i -f script.sed f', /sed -i -f/],
    ["sed -i'bak/*' s/a/b/ f", /backup suffix/],
    ["perl -pi -e 's/a/b/e' f", /perl -i code/],
    ["perl -pi -e 's/a/@{[system(1)]}/' f", /perl -i code/],
    ["perl -pi -e 'system(1)' f", /perl -i code/],
    ["perl -Mstrict -pi -e 's/a/b/' f", /perl -i: the perl switch -M/],
    ['perl -pi script.pl f', /perl -i/],
    ["sed '1e id' f", /runs commands/],
    ['awk \'BEGIN{system("x")}\'', /awk/],
    ['git -c a=b log', /git -c/],
    ['git config core.pager x', /git config/],
    ['PAGER=x git log', /PAGER/],
    ['export LD_PRELOAD=x', /LD_PRELOAD/],
    ['eval ls', /eval/],
    ['source x', /source/],
    ['\u0261it status', /non-ASCII/],
    ["let 'a[$(id)]=1'", /let/],
    ['declare -n x=PATH', /-n/],
  ])('%s', async (command, reason) => {
    const safety = (await analyse(command)).safety;
    expect(
      safety.some((item) => reason.test(item)),
      JSON.stringify(safety),
    ).toBe(true);
  });

  it.each([
    'rm -r build',
    'rm -f x',
    'chmod 644 x',
    'chmod +x x',
    'kill 1',
    'git log',
    'sed s/a/b/ f',
    'rm -rf x',
    'rm -r -f x',
    'sed -i s/a/b/ f',
    "sed -i.bak -e 's/a/b/g' -e 's/c/d/' f g",
    "perl -pi -e 's/a/b/g; tr/a-z/A-Z/' f",
    "perl -i.orig -pe 's/(\\w+)$/$1!/' f",
    'NODE_ENV=x npm test',
  ])('%s is not a safety ask by itself', async (command) => {
    expect((await analyse(command)).safety).toEqual([]);
  });
});
