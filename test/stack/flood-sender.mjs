// The flooding client of flood-suite.ts, on a thread of its own: the victim it measures is
// another client, and timing the victim on the event loop that pushes the flood's megabytes
// would count the flooder's own callbacks (up to 35 ms) as the server's delay.
// Plain JavaScript: a worker thread loads it without the test runner's transform.
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ url: string, headers: Record<string, string>, localAddress?: string, bodies: Uint8Array[], inFlight: number, minUntil: number, deadline: number, stop: Int32Array }} */
const job = workerData;
const statuses = new Map();
const answers = new Map();

/** One POST on a new connection: its status and the start of its body (0 and the error if it failed). */
function send(body) {
  return new Promise((resolve) => {
    const u = new URL(job.url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: job.headers,
        localAddress: job.localAddress,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          if (text.length < 160) text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', (err) => resolve({ status: 0, body: err.message }));
      },
    );
    req.on('error', (err) => resolve({ status: 0, body: err.message }));
    // Written, then ended: sent chunked, as the suite's other requests are (rawRequest).
    req.write(body);
    req.end();
  });
}

let next = 0;
/** Every body once, then round again until the suite has its samples (stop) and the minimum time passed. */
const more = () => (next < job.bodies.length || Date.now() < job.minUntil || Atomics.load(job.stop, 0) === 0) && Date.now() < job.deadline;

async function sender() {
  while (more()) {
    const r = await send(job.bodies[next++ % job.bodies.length]);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    if (!answers.has(r.status)) answers.set(r.status, r.body.slice(0, 160));
  }
}

await Promise.all(Array.from({ length: job.inFlight }, sender));
parentPort.postMessage({ statuses: [...statuses], answers: [...answers] });
