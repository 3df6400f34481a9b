// npm run doctrine:pin: after a reviewed change to doctrine/, pin its new hash where the shipped
// deployments approve it (SIGNET_DOCTRINE_HASH in docker-compose.yml and the Kubernetes base).
// The server refuses to start on any other doctrine; test/unit/deploy/facts.test.ts checks the pins.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = execFileSync(process.execPath, [`${root}dist/bundle/signet.js`, 'doctrine', 'check', `${root}doctrine`], { encoding: 'utf8' });
const hash = /sha256:[0-9a-f]{64}/.exec(out)?.[0];
if (!hash) throw new Error(`signet doctrine check printed no hash:\n${out}`);
const files = {
  'docker-compose.yml': /(SIGNET_DOCTRINE_HASH: \$\{SIGNET_DOCTRINE_HASH:-)sha256:[0-9a-f]{64}/,
  'deploy/kubernetes/base/signet-deployment.yaml': /(- name: SIGNET_DOCTRINE_HASH\n\s+value: )sha256:[0-9a-f]{64}/,
};
for (const [file, pattern] of Object.entries(files)) {
  const text = readFileSync(root + file, 'utf8');
  if (!pattern.test(text)) throw new Error(`${file}: no SIGNET_DOCTRINE_HASH pin found`);
  writeFileSync(root + file, text.replace(pattern, `$1${hash}`));
}
console.log(`pinned ${hash} in ${Object.keys(files).join(', ')}`);
