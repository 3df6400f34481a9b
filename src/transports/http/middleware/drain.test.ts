import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { closeWhileDraining } from './drain.js';

describe('closeWhileDraining', () => {
  it('adds Connection: close to every answer once draining, and nothing before', async () => {
    let draining = false;
    const a = new Hono();
    a.use('*', closeWhileDraining({ isDraining: () => draining }));
    a.get('/healthz', (c) => c.json({ status: 'ok' }));
    expect((await a.request('/healthz')).headers.get('connection')).toBeNull();
    draining = true;
    const r = await a.request('/healthz');
    expect(r.headers.get('connection')).toBe('close');
    expect(await r.json()).toEqual({ status: 'ok' });
    expect((await a.request('/nope')).headers.get('connection')).toBe('close');
  });
});
