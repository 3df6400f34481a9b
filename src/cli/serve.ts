import { type Config, loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { createLogger } from '../log.js';

export interface ServeOptions {
  http?: boolean;
  host?: string;
  port?: string;
  doctrine?: string;
}

export async function serve(options: ServeOptions): Promise<void> {
  const env = { ...process.env };
  if (options.http) env['SIGNET_TRANSPORT'] = 'http';
  if (options.host) env['SIGNET_HTTP_HOST'] = options.host;
  if (options.port) env['SIGNET_HTTP_PORT'] = options.port;
  if (options.doctrine) env['SIGNET_DOCTRINE_DIR'] = options.doctrine;
  const config: Config = loadConfig(env);
  const log = createLogger(config.logLevel, { buffered: config.transport === 'http' });
  const withMetrics = config.transport === 'http' && config.http.metricsPort !== null;
  const ctx = createContext(config, log, withMetrics ? { metrics: new (await import('../metrics.js')).Metrics() } : {});
  if (config.transport === 'http') {
    const { runHttp } = await import('../transports/http/run.js');
    await runHttp(ctx);
  } else {
    const { runStdio } = await import('../transports/stdio.js');
    await runStdio(ctx);
  }
}
