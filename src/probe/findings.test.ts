import { describe, expect, it } from 'vitest';
import { Findings, PROBE_FACTS } from './findings.js';

describe('Findings', () => {
  it('keeps the first decision, drops the note of a fact decided later, and builds nested facts in sorted order', () => {
    const f = new Findings();
    f.leave('tls.enabled', 'not yet');
    f.decide('tls.enabled', true, { probe: 'tls.1.3', why: 'accepted' });
    f.decide('tls.enabled', false, { probe: 'other', why: 'ignored: already decided' });
    f.decide('authentication.required', true, { probe: 'auth.no-credential', why: '401' });
    f.leave('http.max_body_bytes', 'between 1 and 2 MiB');
    f.leave('http.max_body_bytes', 'a second reason is not kept');
    const built = f.build();
    expect(built.facts).toEqual({ authentication: { required: true }, tls: { enabled: true } });
    expect(Object.keys(built.facts)).toEqual(['authentication', 'tls']);
    expect(built.sources['tls.enabled']).toEqual([{ probe: 'tls.1.3', why: 'accepted' }]);
    expect(built.undecided).toEqual([...PROBE_FACTS].sort().filter((p) => p !== 'tls.enabled' && p !== 'authentication.required'));
    expect(built.notes['http.max_body_bytes']).toBe('between 1 and 2 MiB');
    expect(built.notes['tls.enabled']).toBeUndefined();
    expect(built.notes['tools.input_schemas_strict']).toBe('no exchange of this probe bears on it');
  });

  it('refuses a decision without evidence', () => {
    expect(() => new Findings().decide('tls.enabled', true)).toThrow(/without evidence/);
  });
});
