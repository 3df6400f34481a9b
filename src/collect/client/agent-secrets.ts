// mcp-agent's and fast-agent's secrets files, merged into their configuration.

import { posix } from 'node:path';
import type { Context } from '../context.js';
import { isPlaceholder, SECRET_NAME } from '../secrets.js';
import type { FactSheet } from '../sheet.js';
import { readYaml } from '../yaml-lines.js';
import { isObj, type Obj } from './entries.js';

/**
 * mcp-agent and fast-agent merge a secrets file beside their configuration into it
 * (`mcp_agent.secrets.yaml`, `fastagent.secrets.yaml`, kept out of git): an entry with no secret
 * of its own may get one there, written in plain text. Read where the files hold it; else open.
 */
export function agentSecrets(ctx: Context, sheet: FactSheet, path: string, server: string): void {
  const m = /(^|\/)(mcp_agent|fastagent)\.config\.ya?ml$/.exec(path);
  if (!m) return;
  const tool = m[2] === 'mcp_agent' ? 'mcp-agent' : 'fast-agent';
  const secretsPath = path.replace(/\.config\.(ya?ml)$/, '.secrets.$1');
  const file = ctx.inputs.get(secretsPath) ?? ctx.inputs.get(secretsPath.replace(/\.ya?ml$/, (e) => (e === '.yaml' ? '.yml' : '.yaml')));
  if (!file) {
    sheet.reopen(
      'client.config_secrets_plaintext',
      `${tool} merges ${posix.basename(secretsPath)} (not among the files) into this configuration: a secret for ${server} may be written there`,
    );
    return;
  }
  const doc = readYaml(file.text)[0];
  const servers = (doc?.value as Obj | undefined)?.['mcp'];
  const spec = isObj(servers) && isObj(servers['servers']) ? servers['servers'][server] : undefined;
  if (!isObj(spec)) return;
  for (const key of ['env', 'headers'])
    for (const [name, value] of Object.entries(isObj(spec[key]) ? spec[key] : {})) {
      const v = String(value ?? '');
      if (
        v &&
        !/\$\{|^\$[A-Za-z_]/.test(v) &&
        !isPlaceholder(v) &&
        (SECRET_NAME.test(name) || /^(Bearer|Token|Basic)\s+\S{8,}$/i.test(v))
      ) {
        sheet.set(
          'client.config_secrets_plaintext',
          true,
          { file: file.path, line: doc!.line(['mcp', 'servers', server, key, name]) },
          `${name} is written in ${file.path}, which ${tool} merges into the entry`,
        );
        return;
      }
    }
}
