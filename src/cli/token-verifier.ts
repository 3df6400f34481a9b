import { loadConfig } from '../config.js';
import { SignetError } from '../errors.js';
import { createLogger } from '../log.js';

/** `signet token-verifier`: runs until SIGTERM or SIGINT. */
export async function tokenVerifier(): Promise<void> {
  const config = loadConfig(process.env);
  if (config.oauth === null) {
    throw new SignetError('config_invalid', 'SIGNET_AUTH_MODE is keys: the token verifier runs only with oauth or keys+oauth', [
      { where: 'SIGNET_AUTH_MODE', message: 'must be oauth or keys+oauth for signet token-verifier' },
    ]);
  }
  const log = createLogger(config.logLevel);
  const { runTokenVerifier } = await import('../transports/token-verifier.js');
  const running = await runTokenVerifier(config.oauth, log, config.http.tls);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
