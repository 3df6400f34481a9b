// The pen test's load attacks on the process stack (issue 17: H2 flood, M3 slowloris). They
// load both cores, so they run in the "load" project, after the rest of the suite and one file
// at a time (vitest.config.ts): timing-sensitive tests elsewhere never share the machine with them.
import { readFileSync } from 'node:fs';
import { defineFloodSuite } from './flood-suite.js';
import { runKeys, startProcessStack } from './process-stack.js';
import { defineSlowlorisSuite } from './slowloris-suite.js';

/** The image's heap settings, read from the Dockerfile rather than copied. */
const IMAGE_NODE_OPTIONS = /NODE_OPTIONS="([^"]+)"/.exec(readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8'))![1]!;

defineSlowlorisSuite('process stack', async () => {
  const s = await startProcessStack();
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    key: s.key,
    clientAddress: '127.0.0.31',
    attackAddress: '127.0.0.30',
    connectionsPerClient: 64,
    stop: s.stop,
  };
});

defineFloodSuite('process stack', async () => {
  // The server's heap sized as the image sizes it (Dockerfile's NODE_OPTIONS), so that its memory
  // is held to the limit the image and the manifests give it.
  const s = await startProcessStack({}, { NODE_OPTIONS: IMAGE_NODE_OPTIONS }, 'store');
  const floodKey = (await runKeys(s.store, ['create', '--name', 'flood'])).out.trim();
  const otherKey = (await runKeys(s.store, ['create', '--name', 'other'])).out.trim();
  const pid = s.server.proc.pid!;
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    floodKey,
    otherKey,
    clientAddress: '127.0.0.7',
    serverMemoryMiB: async () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024,
    // What the image and the Kubernetes manifests give the server.
    memoryLimitMiB: 256,
    sameServer: async () => s.server.proc.exitCode === null && s.server.proc.signalCode === null,
    newKey: async (name) => (await runKeys(s.store, ['create', '--name', name])).out.trim(),
    stop: s.stop,
  };
});
