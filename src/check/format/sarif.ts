// SARIF 2.1.0 for GitHub code scanning and the other tools that read it (docs/checking.md):
// one reportingDescriptor per doctrine rule, one result per failed baseline rule and
// deployment, located at the file and line whose facts failed it. Deterministic: rules in id
// order, results in deployment order then severity then rule id, no timestamps or GUIDs.
import { createHash } from 'node:crypto';
import { factSide } from '../../doctrine/deployments.js';
import { factAt } from '../../doctrine/facts.js';
import type { Doctrine, Rule, Severity } from '../../doctrine/types.js';
import { VERSION } from '../../version.js';
import type { Declared } from '../declared.js';
import { anchorOf, type Place, placeLabel, placesOf, ruleOf } from '../locate.js';
import type { CheckReport } from '../report.js';

export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** SARIF level by severity: GitHub shows error, warning and note. */
const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { critical: 'error', high: 'error', medium: 'warning', low: 'note' };
/**
 * GitHub's security-severity, a CVSS-like score: over 9.0 is critical, 7.0 to 8.9 high, 4.0 to
 * 6.9 medium, 0.1 to 3.9 low. Each severity takes a score inside its band.
 */
const SECURITY_SEVERITY: Record<Severity, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '3.0' };
const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** A SARIF `name` is an identifier: the title in PascalCase ("Origin header is validated" → OriginHeaderIsValidated). */
function ruleName(title: string): string {
  return title
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

function descriptor(rule: Rule) {
  return {
    id: rule.id,
    name: ruleName(rule.title),
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.rationale },
    help: {
      text: `${rule.rationale}\n\nRemediation: ${rule.remediation}`,
      markdown: `${rule.rationale}\n\n**Remediation.** ${rule.remediation}`,
    },
    defaultConfiguration: { level: LEVEL[rule.severity] },
    properties: {
      tags: ['security', rule.category, ...(rule.advisory ? ['advisory'] : [])],
      precision: 'high',
      'problem.severity': LEVEL[rule.severity] === 'note' ? 'recommendation' : LEVEL[rule.severity],
      'security-severity': SECURITY_SEVERITY[rule.severity],
      severity: rule.severity,
    },
  };
}

/** A relative URI reference for a POSIX path: what GitHub resolves against the checkout. */
function fileUri(path: string): string {
  return encodeURI(path).replace(/[?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function physical(file: string, line: number | null) {
  return { physicalLocation: { artifactLocation: { uri: fileUri(file) }, ...(line !== null ? { region: { startLine: line } } : {}) } };
}

function factText(deployment: CheckReport['deployments'][number], p: Place): string {
  return `${p.fact} = ${JSON.stringify(factAt(deployment.facts, p.fact))} at ${placeLabel(p)}: ${p.why}`;
}

/** The URL the probe asked, from its evidence. */
function probeTarget(report: CheckReport): string | null {
  const p = report.probe;
  return p && typeof p === 'object' && typeof (p as { target?: unknown }).target === 'string' ? (p as { target: string }).target : null;
}

/** Stable across runs and line moves: the rule and the deployments a result is about. */
function fingerprint(ruleId: string, deployments: string[]): string {
  return createHash('sha256')
    .update([ruleId, ...deployments].join('\u0000'))
    .digest('hex');
}

/** A rule every fact of which describes the client application (not the configuration's entry, not the server). */
function clientApplicationRule(doctrine: Doctrine, ruleId: string): boolean {
  const rule = ruleOf(doctrine, ruleId);
  return !!rule && rule.facts.length > 0 && rule.facts.every((f) => factSide(doctrine, f) === 'client');
}

/** The SARIF log of a check, as a plain object (write it with JSON.stringify). */
export function toSarif(report: CheckReport, doctrine: Doctrine, declared: Declared | null = null): Record<string, unknown> {
  const rules = doctrine.rules;
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results: Record<string, unknown>[] = [];
  // A CLIENT rule about the client application (every fact it reads is the client's, not the
  // entry's or the server's) that fails the same way, from the same places, in several
  // deployments of one client is one finding about that client (doctrine 1.3, "One deployment
  // per server"): one result naming every deployment, not one alert per server.
  const shared = new Map<string, { result: Record<string, unknown>; deployments: string[] }>();
  for (const d of report.deployments) {
    const failed = d.findings
      .filter((f) => f.status === 'fail' && !f.advisory)
      .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.rule_id < b.rule_id ? -1 : 1));
    for (const f of failed) {
      const places = placesOf(doctrine, d, f.rule_id, declared);
      const about = clientApplicationRule(doctrine, f.rule_id)
        ? `${f.rule_id}\u0000${JSON.stringify(places.map((p) => [p.file, p.line, p.fact, factAt(d.facts, p.fact)]))}`
        : null;
      const seen = about === null ? undefined : shared.get(about);
      if (seen) {
        seen.deployments.push(d.name);
        const names = seen.deployments.map((n) => `"${n}"`).join(', ');
        const why = places.map((p) => factText(d, p)).join('; ');
        Object.assign(seen.result, {
          message: {
            text: `${f.title}: not met by the client of deployments ${names}${why ? ` (${why})` : ''}. ${f.remediation ?? ''}`.trim(),
          },
          partialFingerprints: { 'signetFinding/v1': fingerprint(f.rule_id, seen.deployments) },
        });
        (seen.result['properties'] as Record<string, unknown>)['deployments'] = [...seen.deployments];
        continue;
      }
      const inFiles = places.filter((p) => p.file !== null);
      const primary = inFiles[0] ?? null;
      // Facts only the probe decided: pinned where the files declare the deployment it reached.
      const anchor = primary ? null : anchorOf(d, declared);
      const probed = anchor && places.some((p) => p.kind === 'probe') ? ` (probed at ${probeTarget(report) ?? 'the endpoint'})` : '';
      const profile = anchor ? places.find((p) => p.kind === 'profile')?.profile : undefined;
      const profiled = profile ? ` (from the profile ${profile})` : '';
      const locations = primary
        ? [physical(primary.file!, primary.line)]
        : [{ ...physical(anchor!.file, anchor!.line), message: { text: `${anchor!.why}${probed}${profiled}` } }];
      const why = places.map((p) => factText(d, p)).join('; ');
      const result: Record<string, unknown> = {
        ruleId: f.rule_id,
        ruleIndex: index.get(f.rule_id),
        level: LEVEL[f.severity],
        message: {
          text: `${f.title}: not met by deployment "${d.name}"${why ? ` (${why})` : ''}. ${f.remediation ?? ''}`.trim(),
        },
        locations,
        ...(inFiles.length > 1
          ? {
              relatedLocations: inFiles.slice(1).map((p, i) => ({
                id: i + 1,
                ...physical(p.file!, p.line),
                message: { text: `${p.fact} (${p.why})` },
              })),
            }
          : {}),
        partialFingerprints: { 'signetFinding/v1': fingerprint(f.rule_id, [d.name]) },
        properties: {
          deployment: d.name,
          deployments: [d.name],
          severity: f.severity,
          facts: places.map((p) => ({ fact: p.fact, at: placeLabel(p) })),
        },
      };
      if (about !== null) shared.set(about, { result, deployments: [d.name] });
      results.push(result);
    }
  }
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Signet',
            semanticVersion: VERSION,
            version: VERSION,
            rules: rules.map(descriptor),
            properties: { doctrine: report.doctrine },
          },
        },
        // Files found but not read (malformed, binary, too large): why the verdict cannot be a pass.
        invocations: [
          {
            executionSuccessful: true,
            toolExecutionNotifications: report.skipped.map((s) => ({
              descriptor: { id: 'signet/file-not-read' },
              level: 'error',
              message: { text: `${s.path} was not read: ${s.reason}` },
              locations: [physical(s.path, null)],
            })),
          },
        ],
        results,
        columnKind: 'utf16CodeUnits',
        properties: {
          verdict: report.verdict,
          skipped: report.skipped,
          deployments: report.deployments.map((d) => ({
            name: d.name,
            verdict: d.verdict,
            undetermined_rule_ids: d.summary.undetermined_rule_ids,
            missing_facts: d.summary.missing_facts,
          })),
        },
      },
    ],
  };
}
