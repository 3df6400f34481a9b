// Every code block of the doctrine's documents is marked with what it is, so the tests can
// check or run it: nginx configurations carry their context (nginx -t runs each one,
// test/stack/doctrine-nginx.test.ts), shell and JavaScript recipes name the test that runs
// them (or say why none can), and YAML and JSON examples are checked here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { Pod } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { doctrineSnippets, MANUAL_REASONS, RECIPE_RUNNERS } from '../../helpers/doctrine-snippets.js';
import { ROOT } from '../../helpers/paths.js';

const snippets = doctrineSnippets();
const where = (s: { doc: string; line: number }) => `${s.doc}:${s.line}`;

describe('code blocks of the doctrine', () => {
  it('are all of a known kind, and the kinds that need attributes have them', () => {
    expect(snippets.length).toBeGreaterThan(20);
    for (const s of snippets) {
      expect(['nginx', 'sh', 'js', 'json', 'yaml', 'dockerfile', ''], where(s)).toContain(s.lang);
      if (s.lang === 'nginx') expect(['main', 'http', 'server', 'location'], `${where(s)} context`).toContain(s.attrs['context']);
      if (s.lang === 'sh') {
        expect('run' in s.attrs !== 'manual' in s.attrs, `${where(s)}: run=<recipe> or manual=<reason>`).toBe(true);
        if ('manual' in s.attrs) expect(Object.keys(MANUAL_REASONS), where(s)).toContain(s.attrs['manual']);
      }
      if (s.lang === 'js') expect(s.attrs['run'], `${where(s)}: run=<recipe>`).toBeTruthy();
      if (s.lang === 'yaml') expect(['compose', 'kubernetes', 'pod-spec'], `${where(s)} kind`).toContain(s.attrs['kind']);
    }
  });

  it('name each nginx configuration and recipe once', () => {
    for (const key of ['name', 'run']) {
      const values = snippets.map((s) => s.attrs[key]).filter((v): v is string => v !== undefined);
      expect(new Set(values).size, key).toBe(values.length);
    }
  });

  it('have every recipe run by the test that the runner list names, and no runner without a recipe', () => {
    const ids = snippets.map((s) => s.attrs['run']).filter((v): v is string => v !== undefined);
    expect([...ids].sort()).toEqual(Object.keys(RECIPE_RUNNERS).sort());
    for (const [id, file] of Object.entries(RECIPE_RUNNERS)) {
      const runs = new RegExp(`(runRecipe|snippet|jsRecipe)\\([^)]*'${id}'`);
      expect(readFileSync(join(ROOT, file), 'utf8'), `${file} runs ${id}`).toMatch(runs);
    }
  });

  it('hold JSON that parses', () => {
    for (const s of snippets.filter((x) => x.lang === 'json')) expect(() => JSON.parse(s.code.replace(/…/g, '')), where(s)).not.toThrow();
  });

  it('hold Kubernetes objects that validate against the Kubernetes schemas', () => {
    const models: Record<string, new (o: object) => { validate(): void }> = { NetworkPolicy };
    const checked = snippets.filter((s) => s.lang === 'yaml' && s.attrs['kind'] !== 'compose');
    expect(checked.length).toBeGreaterThanOrEqual(3);
    for (const s of checked) {
      const value = parse(s.code) as Record<string, any>;
      if (s.attrs['kind'] === 'pod-spec') {
        expect(() => new Pod({ metadata: { name: 'doctrine-example' }, spec: value['spec'] }).validate(), where(s)).not.toThrow();
      } else {
        const Model = models[value['kind']];
        expect(Model, `${where(s)}: a model for ${value['kind']}`).toBeDefined();
        expect(() => new Model!(value).validate(), where(s)).not.toThrow();
      }
    }
  });
});
