import { describe, expect, it } from 'vitest';
import { inert, inertJson } from './inert.js';

describe('inert: untrusted text shows its controls instead of obeying them', () => {
  it('leaves plain text, newlines and tabs alone', () => {
    expect(inert('plain\ttext\nnext line — ünïcödé ✓')).toBe('plain\ttext\nnext line — ünïcödé ✓');
    expect(inert('windows\r\nline')).toBe('windows\nline');
  });

  it('CSI sequences (clear screen, colours, cursor moves) print as text', () => {
    expect(inert('\u001b[2J\u001b[H\u001b[32mPermission granted')).toBe(
      '␛[2J␛[H␛[32mPermission granted',
    );
    expect(inert('over\rwrite\bx\u0007')).toBe('over␍write␈x␇');
    expect(inert('\u009b2J')).toBe('⟨U+009B⟩2J');
  });

  it('OSC 8 links and OSC 52 clipboard writes print as text', () => {
    expect(inert('\u001b]8;;https://evil.test\u0007click\u001b]8;;\u0007')).toBe(
      '␛]8;;https://evil.test␇click␛]8;;␇',
    );
    expect(inert('\u001b]52;c;cm0gLXJmIH4=\u001b\\')).toBe('␛]52;c;cm0gLXJmIH4=␛\\');
    expect(inert('\u009d52;c;eA==\u009c')).toBe('⟨U+009D⟩52;c;eA==⟨U+009C⟩');
  });

  it('inertJson escapes what JSON.stringify leaves raw, keeping the value', () => {
    const value = { name: 'file\u202Etxt.exe', csi: '\u009b2J', esc: '\u001b[2J' };
    const json = inertJson(JSON.stringify(value));
    expect(json).toBe('{"name":"file\\u202etxt.exe","csi":"\\u009b2J","esc":"\\u001b[2J"}');
    expect(JSON.parse(json)).toEqual(value);
  });

  it('bidi overrides and isolates, and DEL, are shown', () => {
    expect(inert('file\u202Etxt.exe')).toBe('file⟨U+202E⟩txt.exe');
    expect(inert('\u2066a\u2069\u200f\u061c\u007f')).toBe('⟨U+2066⟩a⟨U+2069⟩⟨U+200F⟩⟨U+061C⟩␡');
  });
});
