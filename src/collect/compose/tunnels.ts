// A tunnel of the stack that forwards a public endpoint to the server: `cloudflared --url
// http://server:8000`, `ngrok http server:8000`, or ngrok started from a configuration file among
// the files whose tunnel's `addr` names it (KumarDeepankar/mcp_gateway's ngrok.yml: `addr:
// mcp-server:8000`). Such a tunnel only forwards: the internet reaches the server through it,
// whatever the host publishes or its firewall allows.

import { literal } from '../../shared/regexp.js';
import type { Context } from '../context.js';
import type { At } from '../sheet.js';
import { mentions } from './calls.js';
import { commandWordsOf, hostNames, type Svc, volumesOf } from './service.js';

export function tunnelTo(ctx: Context, svcs: Svc[], srv: Svc): { at: At; why: string } | null {
  for (const t of svcs.filter((v) => v.role?.kind === 'tunnel')) {
    const words = commandWordsOf([t.s.spec['entrypoint'], t.s.spec['command']]);
    const ngrok = /ngrok/.test(t.image ?? '');
    const quick = words.some((w) => w === '--url' || w.startsWith('--url=')) || (ngrok && words[0] === 'http');
    if (quick && mentions(t, srv.s.name))
      return { at: t.s.at('command'), why: `${t.s.name} (${t.image}) forwards a public tunnel endpoint to it` };
    const ci = words.findIndex((w) => w === '--config' || w.startsWith('--config='));
    if (!ngrok || ci < 0) continue;
    const paths = (words[ci]!.includes('=') ? words[ci]!.slice(words[ci]!.indexOf('=') + 1) : (words[ci + 1] ?? '')).split(',');
    const names = hostNames(srv, t).map(literal).join('|');
    for (const path of paths) {
      const v = volumesOf(t).find((x) => x.target === path && /^\.{1,2}\//.test(x.source));
      const f = v ? ctx.inputs.get(ctx.inputs.resolve(t.s.at('volumes').file, v.source)) : undefined;
      const m = f ? new RegExp(`^\\s*addr:\\s*["']?(https?://)?(${names}):\\d+`, 'm').exec(f.text) : null;
      if (f && m)
        return {
          at: { file: f.path, line: f.text.slice(0, m.index + m[0].indexOf('addr:')).split('\n').length },
          why: `${t.s.name} runs ngrok with ${f.path}, whose tunnel forwards a public endpoint to ${srv.s.name}`,
        };
    }
  }
  return null;
}
