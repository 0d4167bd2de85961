import { describe, expect, it } from 'vitest';
import { sedScriptEffect } from './sed.js';

describe('sedScriptEffect', () => {
  it.each([
    ['1,10p', 'prints'],
    ['s/a/b/g', 'prints'],
    ['s|a|b|2p', 'prints'],
    ['/^#/d;s/x/y/', 'prints'],
    ['$!N;P;D', 'prints'],
    [':a;N;$!ba;s/\\n/ /g', 'prints'],
    ['y/abc/xyz/', 'prints'],
    ['1i header', 'prints'],
    ['s/[a-z]/X/', 'prints'],
    ['0,/re/{s/a/b/}', 'prints'],
  ])('%s only prints', (script, effect) => {
    expect(sedScriptEffect(script)).toBe(effect);
  });

  it.each([
    ['s/a/b/w out.txt', 'writes'],
    ['w out.txt', 'writes'],
    ['1W out.txt', 'writes'],
    [':a;w /tmp/x', 'writes'],
    ['s/a/b/e', 'executes'],
    ['1e id', 'executes'],
    ['s/x/y/;e id', 'executes'],
    ['/x/!e id', 'executes'],
  ])('%s can write or execute', (script, effect) => {
    expect(sedScriptEffect(script)).toBe(effect);
  });

  it.each(['s/[/]/x/', 'v', 'k', 's/a'])('%s is unknown', (script) => {
    expect(sedScriptEffect(script)).toBe('unknown');
  });
});
