import { type Env, loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { createLogger } from '../../src/log.js';
import { MINI_DOCTRINE } from './paths.js';
import { tempDir } from './tmp-doctrine.js';

/** An in-process context over a doctrine, with its own data dir (fresh key). */
export function testContext(env: Env = {}): AppContext {
  const config = loadConfig({ SIGNET_DOCTRINE_DIR: MINI_DOCTRINE, SIGNET_DATA_DIR: tempDir('signet-data-'), ...env });
  return createContext(config, createLogger('silent'));
}
