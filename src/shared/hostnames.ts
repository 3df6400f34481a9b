// Host names as the Host check compares them: lower case, IPv6 in brackets, no port.

/** localhost, 127.0.0.1 and [::1]: what a DNS-rebinding page can never make a browser send. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** The hostname of a Host header value (IPv6 keeps its brackets); null when malformed. */
export function hostnameOf(host: string): string | null {
  try {
    const name = new URL(`http://${host}`).hostname;
    return name === '' ? null : name;
  } catch {
    return null;
  }
}
