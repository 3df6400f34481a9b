/**
 * The lifetime an API key gets unless its creator says otherwise: the doctrine's AUTH-005
 * (keys rotated within 90 days in production). `--expires never` opts out, deliberately.
 * Its own module, so the CLI knows it without loading the key store.
 */
export const DEFAULT_KEY_LIFETIME = '90d';
