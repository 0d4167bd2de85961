import { describe, expect, it } from 'vitest';
import { checkElicitationUrl } from './elicitation-url.js';

describe('checkElicitationUrl: only web links are offered', () => {
  it('offers https: anywhere and http: to this machine, with the host spelled out', () => {
    expect(checkElicitationUrl('https://auth.example.com/approve?x=1')).toEqual({
      ok: true,
      url: 'https://auth.example.com/approve?x=1',
      host: 'auth.example.com',
    });
    expect(checkElicitationUrl('https://example.com@evil.test/')).toMatchObject({
      ok: true,
      host: 'evil.test',
    });
    expect(checkElicitationUrl('https://аpple.com/')).toMatchObject({ host: 'xn--pple-43d.com' });
    for (const local of ['http://localhost:8080/cb', 'http://127.0.0.1/x', 'http://[::1]:3000/']) {
      expect(checkElicitationUrl(local)).toMatchObject({ ok: true });
    }
  });

  it('refuses other schemes, plain http: elsewhere, and what does not parse', () => {
    const refused = [
      ['javascript:alert(1)', /not javascript:/],
      ['file:///etc/passwd', /not file:/],
      ['data:text/html,<script>', /not data:/],
      ['vscode://ext/install', /not vscode:/],
      ['http://evil.test/login', /not http: to evil\.test/],
      ['not a url', /not a valid URL/],
    ] as const;
    for (const [url, reason] of refused) {
      const check = checkElicitationUrl(url);
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.reason).toMatch(reason);
    }
  });
});
