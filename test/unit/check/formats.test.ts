// The report's views: text, SARIF and JUnit say the same failures from the same places, in a
// fixed order, and text from the files (names, reasons, values) cannot break out of them: no
// markup in XML, no control or direction characters on a terminal line.
import { describe, expect, it } from 'vitest';
import { toJunit } from '../../../src/check/format/junit.js';
import { toSarif } from '../../../src/check/format/sarif.js';
import { toText } from '../../../src/check/format/text.js';
import { runCheck } from '../../../src/check/run.js';
import { loadDoctrine } from '../../../src/doctrine/load.js';
import { collectionOf, deploymentFrom, fixtureFacts } from '../../helpers/check-fixtures.js';
import { DEFAULT_DOCTRINE } from '../../helpers/paths.js';

const doctrine = loadDoctrine(DEFAULT_DOCTRINE);
const hostile = 'evil<&"\u0007\u202e>name';
const report = runCheck(doctrine, {
  collection: collectionOf(
    [
      deploymentFrom('safe', 'compose.yml', fixtureFacts('hardened')),
      deploymentFrom(hostile, `dir with space/${hostile}.yml`, fixtureFacts('exposed')),
    ],
    { 'compose.yml': 'a', [`dir with space/${hostile}.yml`]: 'b' },
  ),
});

describe('the formats of a report', () => {
  it('SARIF: one result per failed baseline rule of each deployment, most severe first, located where its facts come from', () => {
    const sarif = toSarif(report, doctrine) as any;
    const run = sarif.runs[0];
    const failed = report.deployments.flatMap((d) => d.summary.failed_rule_ids.map((id) => `${d.name} ${id}`));
    expect(run.results.map((r: any) => `${r.properties.deployment} ${r.ruleId}`)).toEqual(failed);
    expect(run.results.every((r: any) => r.properties.deployments.length === 1)).toBe(true);
    expect(run.tool.driver.rules.map((r: any) => r.id)).toEqual(doctrine.rules.map((r) => r.id));
    for (const r of run.results) {
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      // The file URI is a relative reference: spaces, quotes and the like escaped, no ? or # left to misread.
      expect(r.locations[0].physicalLocation.artifactLocation.uri).toMatch(/^dir%20with%20space\/evil%3C&%22%07%E2%80%AE%3Ename\.yml$/);
      expect(r.locations[0].physicalLocation.region.startLine).toBeGreaterThan(0);
    }
    const fingerprints = run.results.map((r: any) => r.partialFingerprints['signetFinding/v1']);
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
    expect(JSON.stringify(toSarif(report, doctrine))).toBe(JSON.stringify(sarif));
  });

  it('SARIF: a CLIENT rule about the client application that fails alike in several of its deployments is one result', () => {
    const facts = fixtureFacts('exposed');
    const client = runCheck(doctrine, {
      collection: collectionOf(
        ['a', 'b', 'c'].map((n) => deploymentFrom(`client:mcp.json:${n}`, 'mcp.json', facts)),
        { 'mcp.json': '{}' },
      ),
    });
    const results = (toSarif(client, doctrine) as any).runs[0].results as any[];
    const byRule = (id: string) => results.filter((r) => r.ruleId === id);
    // CLIENT-001 reads client application facts only: one result for the three servers.
    expect(client.deployments.every((d) => d.summary.failed_rule_ids.includes('CLIENT-001'))).toBe(true);
    expect(byRule('CLIENT-001').map((r) => r.properties.deployments)).toEqual([
      ['client:mcp.json:a', 'client:mcp.json:b', 'client:mcp.json:c'],
    ]);
    expect(byRule('CLIENT-001')[0].message.text).toMatch(
      /not met by the client of deployments "client:mcp\.json:a", "client:mcp\.json:b", "client:mcp\.json:c"/,
    );
    // CLIENT-009 reads the configuration's entry for each server: one result per deployment.
    expect(byRule('CLIENT-009').map((r) => r.properties.deployments)).toEqual([
      ['client:mcp.json:a'],
      ['client:mcp.json:b'],
      ['client:mcp.json:c'],
    ]);
    // Server rules too.
    expect(byRule('TLS-001')).toHaveLength(3);
  });

  it('JUnit: the same failures, with no markup or control character from the files left raw', () => {
    const xml = toJunit(report, doctrine);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202e]/);
    expect(xml).toContain('name="evil&lt;&amp;&quot;\\u{0007}\\u{202E}&gt;name"');
    const failures = [...xml.matchAll(/<failure type="(\w+)"/g)].length;
    expect(failures).toBe(report.deployments.reduce((n, d) => n + d.summary.failed_rule_ids.length, 0));
  });

  it('text: verdict first, failures by severity, and file text shown with its control and direction characters escaped', () => {
    const text = toText(report, doctrine);
    expect(text.split('\n')[0]).toBe('signet check: FAIL: 1 of 2 deployments fail the baseline: evil<&"\\u{0007}\\u{202E}>name');
    expect(text).not.toMatch(/[\u0007\u202e]/);
    const severities = [...text.matchAll(/^ {2}(CRITICAL|HIGH|MEDIUM|LOW) /gm)].map((m) => m[1]);
    const order = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];
    expect(severities).toEqual([...severities].sort((a, b) => order.indexOf(a!) - order.indexOf(b!)));
    expect(text).toMatch(/\nsafe: PASS \(/);
  });
});
