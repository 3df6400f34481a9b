import { attestationSigner } from './check/attestation.js';
import type { Config } from './config.js';
import { loadDoctrine } from './doctrine/load.js';
import { checkPinnedHash, checkPublisher } from './doctrine/publisher.js';
import { DoctrineSearch } from './doctrine/search.js';
import type { Doctrine } from './doctrine/types.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import { buildResources, type ResourceSet } from './resources.js';
import { type DoctrineFooter, SIGNATURE_FORMAT, SIGNED_MESSAGE } from './signing/format.js';
import { loadServerKeys, type ServerKeys } from './signing/keyring.js';
import { nodePrimitives } from './signing/node-primitives.js';
import { Signer } from './signing/signer.js';
import { type LoadedSigningKey, loadOrCreateSigningKey } from './signing/signing-key.js';
import { verifyOutput } from './signing/verify.js';
import { ToolDispatcher } from './tools/dispatch.js';
import type { ToolContext } from './tools/types.js';
import { VERSION } from './version.js';

/** Everything a server instance needs, built once at start and shared read-only. */
export interface AppContext {
  config: Config;
  doctrine: Doctrine;
  signer: Signer;
  keyOrigin: LoadedSigningKey['origin'];
  /** Current, retired and revoked signing keys; verify_output trusts the first two by default. */
  keys: ServerKeys;
  footer: DoctrineFooter;
  tools: ToolDispatcher;
  resources: ResourceSet;
  log: Logger;
  serverInfo: { name: string; title: string; version: string };
  metrics: Metrics | null;
}

export function createContext(config: Config, log: Logger, options: { metrics?: Metrics } = {}): AppContext {
  const m = options.metrics;
  const doctrine = loadDoctrine(config.doctrineDir);
  checkPublisher(doctrine, config.doctrinePublisherKey);
  checkPinnedHash(doctrine, config.doctrineHash);
  const loaded = loadOrCreateSigningKey({ keyFile: config.signingKeyFile, dataDir: config.dataDir });
  const signer = new Signer(loaded.key);
  const keys = loadServerKeys(signer.publicKeySpki, { dataDir: config.dataDir, trustFile: config.trustFile });
  if (m) signer.onSign = () => m.signatures.inc();
  // The doctrine signature cannot change while the doctrine and key don't: sign it once.
  const footer: DoctrineFooter = {
    signature_format: SIGNATURE_FORMAT,
    doctrine_name: doctrine.meta.name,
    doctrine_version: doctrine.meta.version,
    doctrine_hash: doctrine.hash,
    doctrine_signature: signer.sign(SIGNED_MESSAGE.doctrine(SIGNATURE_FORMAT, doctrine.hash)),
    doctrine_public_key: signer.publicKeySpki,
  };
  const toolCtx: ToolContext = {
    doctrine,
    search: new DoctrineSearch(doctrine),
    footer,
    signingKeys: keys.list,
    trust: keys.trust,
    verify: (output, trust) => verifyOutput(output, { trust, primitives: nodePrimitives }),
    attestationSigner: attestationSigner(signer),
  };
  const tools = new ToolDispatcher(toolCtx, signer, {
    cacheEntries: config.cacheEntries,
    cacheBytes: config.cacheBytes,
    maxArgumentBytes: config.maxArgumentBytes,
    maxArgumentDepth: config.maxArgumentDepth,
    onInternalError: (err, tool) =>
      log.error({ tool, err: err instanceof Error ? { name: err.name, message: err.message } : String(err) }, 'tool failed'),
    onCall: m
      ? (tool, ok, cached, seconds) => {
          m.toolCalls.inc({ tool, outcome: ok ? 'ok' : 'error', cached: cached ? 'true' : 'false' });
          if (seconds !== null) m.toolDuration.observe({ tool }, seconds);
        }
      : undefined,
  });
  return {
    config,
    doctrine,
    signer,
    keyOrigin: loaded.origin,
    keys,
    footer,
    tools,
    resources: buildResources(doctrine, footer, signer),
    log,
    serverInfo: { name: 'signet', title: 'Signet', version: VERSION },
    metrics: m ?? null,
  };
}
