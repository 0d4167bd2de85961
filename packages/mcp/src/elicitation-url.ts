/** A link an MCP server asks the person to open: offered (with its host spelled out), or refused. */
export type ElicitationUrlCheck =
  { ok: true; url: string; host: string } | { ok: false; reason: string };

/** Whether a host name is this machine (loopback). */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * Checks the link of a URL-mode elicitation before anyone is shown it: only
 * `https:` links, and `http:` to this machine (loopback), are offered;
 * `javascript:`, `file:`, `data:` and every other scheme are refused (the
 * server gets `decline`), and so is a link that does not parse. `host` is
 * the host as the URL parser reads it (an internationalised name in its
 * `xn--` form, no user name in front), to spell out where the link leads.
 */
export function checkElicitationUrl(url: string): ElicitationUrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'the link is not a valid URL' };
  }
  const web =
    parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopback(parsed.hostname));
  if (!web) {
    return {
      ok: false,
      reason: `only https: links (and http: to this machine) are offered, not ${parsed.protocol}${parsed.protocol === 'http:' ? ` to ${parsed.host}` : ''}`,
    };
  }
  return { ok: true, url: parsed.href, host: parsed.host };
}
