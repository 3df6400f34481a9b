// Shared helpers for the benchmarks: timing loops, percentiles, child servers, autocannon, tables.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const ROOT = new URL('../', import.meta.url).pathname;

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** ops/s and per-op latency percentiles in µs, from the samples (ms) of a timed loop of `total` ms. */
function summary(samples, total) {
  const sorted = Array.from(samples).sort((a, b) => a - b);
  return {
    opsPerSec: (samples.length / total) * 1000,
    p50us: percentile(sorted, 50) * 1000,
    p99us: percentile(sorted, 99) * 1000,
    meanUs: (total / samples.length) * 1000,
  };
}

/** Runs fn `n` times after a warm-up; returns ops/s and per-op latency percentiles in µs. */
export function measure(fn, { n = 3000, warmup = 500 } = {}) {
  for (let i = 0; i < warmup; i++) fn(i);
  const samples = new Float64Array(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    fn(i);
    samples[i] = performance.now() - s;
  }
  return summary(samples, performance.now() - t0);
}

/** measure, for an async fn (each call awaited before the next). */
export async function measureAsync(fn, { n = 2000, warmup = 300 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = new Float64Array(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn(i);
    samples[i] = performance.now() - s;
  }
  return summary(samples, performance.now() - t0);
}

/** Starts a child process and resolves once a stderr/stdout line matches `ready`. */
export function startChild(cmd, args, env, ready = /signet ready|listening/) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let started = false;
    const onData = (c) => {
      if (started) return; // keep draining the pipe, stop keeping what it says
      out += c;
      const m = ready.exec(out);
      if (m) {
        started = true;
        const port = /"port":(\d+)/.exec(out)?.[1] ?? /port (\d+)/.exec(out)?.[1];
        resolve({
          child,
          port: Number(port),
          output: () => out,
          stop: () =>
            new Promise((r) => {
              child.once('exit', r);
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${cmd} exited ${code}: ${out}`)));
  });
}

/** autocannon run; returns throughput and latency percentiles (ms). */
/**
 * @param {{ url: string, connections: number, duration?: number, body?: string, bodies?: (i: number) => string, headers?: Record<string, string> }} options
 */
export async function load({ url, connections, duration = 5, body, bodies, headers = {} }) {
  const opts = {
    url,
    connections,
    duration,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  };
  if (bodies) {
    let i = 0;
    opts.requests = [{ setupRequest: (req) => ({ ...req, body: bodies(i++) }) }];
  } else opts.body = body;
  const r = await autocannon(opts);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    total: r.requests.total,
    durationS: r.duration,
  };
}

export function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export const fmt = (n, d = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';

export function machine() {
  const c = cpus();
  return `${c.length} cores (${c[0]?.model ?? 'unknown'}), Node ${process.version}`;
}

/** Replaces the section between <!-- begin:NAME --> and <!-- end:NAME --> of bench/RESULTS.md. */
export function writeSection(name, markdown) {
  const file = `${ROOT}bench/RESULTS.md`;
  const begin = `<!-- begin:${name} -->`;
  const end = `<!-- end:${name} -->`;
  let text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Benchmark results\n\nWritten by `npm run bench` and `npm run bench:stack`; numbers drift from run to run, ratios hold better.\n';
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  if (text.includes(begin)) text = text.slice(0, text.indexOf(begin)) + block + text.slice(text.indexOf(end) + end.length);
  else text = `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

/** CPU time (user + system) a process has used so far, in µs (Linux /proc; clock ticks of 10 ms). */
export function cpuUs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** CPU µs used so far by a process's children (nginx's workers), 0 when they cannot be read (docker). */
export function childrenCpuUs(pid) {
  let sum = 0;
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid)) sum += cpuUs(Number(p));
    } catch {
      /* gone */
    }
  }
  return sum;
}

/** The system's nginx (Debian's path first), or `nginx` from PATH. */
export const NGINX_BIN = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? 'nginx';

/** Resident set size of a process, in KiB (Linux /proc). */
export function rssKb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * An OAuth issuer on loopback for the auth benchmarks: RFC 8414 metadata and a JWKS with one
 * ES256 key, and `token(sub, scope)` for an access token to `resource` signed with it.
 */
export async function benchIssuer(resource) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/oauth-authorization-server') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end('{}');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  issuer = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  /** @param {string} sub @param {string} scope */
  const token = (sub, scope) =>
    new SignJWT({ scope, client_id: 'bench' })
      .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(resource)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  return { issuer, token, close: () => server.close() };
}
