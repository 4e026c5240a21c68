/**
 * A Redis URL or cluster node as logs and errors show it: everything between
 * `//` (or the start, without a scheme) and the last `@` is masked, so a user
 * name or password holding `/`, `@` or `:` never shows, even in part.
 */
export function redactRedisUrl(url: string): string {
  // Credentials before the host, and any query (ioredis reads `?password=` too).
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, '$1***@').replace(/\?[\s\S]*$/, '?***');
}

/**
 * What stops ioredis from reading `url` as a single Redis, or `undefined`
 * when it can. Never quotes the URL.
 */
export function redisUrlProblem(url: string): string | undefined {
  if (!/^rediss?:\/\//.test(url)) return 'it must start with redis:// or rediss:// (in lower case)';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a URL: a user name or password holding "/", "@", ":", "%", "#" or "?" must be percent-encoded (encodeURIComponent), and the port must be a number';
  }
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
  } catch {
    return 'its user name or password holds a "%" that does not start a percent-escape: write it %25';
  }
  // A bare "#" or "?" in a password ends the URL's authority there: the host goes missing, or a fragment appears.
  const encode =
    'if the password holds "#" or "?", percent-encode it (encodeURIComponent: "#" is %23, "?" is %3F)';
  if (parsed.hostname === '') return `it names no host; ${encode}`;
  if (parsed.search !== '' || parsed.hash !== '') {
    return `it must not carry a query or fragment: ${encode}; give credentials before the host (redis://user:password@host:6379) and other settings as options`;
  }
  if (!/^\/?\d*$/.test(parsed.pathname)) {
    return 'what follows the host must be a database number such as /0: a password holding "/" must write it %2F';
  }
  return undefined;
}
