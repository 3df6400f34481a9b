// Where a proxy forwards, as its configuration writes it: `http://127.0.0.1:9543/mcp` and
// Caddy's `h2c://127.0.0.1:9543` are the address `127.0.0.1:9543`.

/** The host and port of a proxy target, its scheme and path left out. */
export const addressOf = (target: string): string => target.replace(/^[^/]*:\/\//, '').split('/')[0] ?? '';
