// The view a person reads in a terminal: the verdict first, then each deployment with its
// failures by severity, each with where it comes from and what to do, then what is left to
// decide. Text from the files (names, values, reasons) has control and direction characters
// shown as \u{…}, as `signet verify` does, so a file cannot rewrite the line a verdict is on.

import type { Verdict } from '../../doctrine/evaluate.js';
import { factAt } from '../../doctrine/facts.js';
import type { Doctrine } from '../../doctrine/types.js';
import { SEVERITIES } from '../../doctrine/types.js';
import { PROBE_FACTS } from '../../probe/findings.js';
import { visible } from '../../shared/visible.js';
import type { Declared } from '../declared.js';
import { declareGuide, effectText, factsToDeclare } from '../guide.js';
import { placeLabel, placesOf } from '../locate.js';
import type { CheckedDeployment, CheckReport } from '../report.js';

const WORD: Record<Verdict, string> = { fail: 'FAIL', incomplete: 'INCOMPLETE', limited_scope: 'LIMITED SCOPE', pass: 'PASS' };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function headline(report: CheckReport): string {
  const n = report.deployments.length;
  if (n === 0) {
    const read = report.files.map((f) => `${f.path} (${f.kind})`).join(', ');
    return `signet check: INCOMPLETE: the files describe no MCP server${read ? ` (read: ${visible(read)})` : ''}; give the files that deploy or configure one, or declared facts`;
  }
  const worst = report.deployments.filter((d) => d.verdict === report.verdict).map((d) => d.name);
  const unread = report.skipped.length;
  // Every deployment's own verdict is better: the files left unread are what keeps the review incomplete.
  if (worst.length === 0 && unread > 0)
    return `signet check: ${WORD[report.verdict]}: ${plural(unread, 'file')} found in the directories could not be read (listed below), so the review cannot pass; fix ${unread === 1 ? 'it' : 'them'} or leave ${unread === 1 ? 'it' : 'them'} out of the paths`;
  const one = n === 1;
  const some = `${worst.length} of ${n} deployments`;
  const what: Record<Verdict, string> = {
    pass: one ? 'the deployment meets the baseline' : `all ${n} deployments meet the baseline`,
    fail: one ? 'the deployment fails the baseline' : `${some} fail the baseline`,
    incomplete: one ? 'the facts cannot decide the verdict yet' : `the facts cannot decide ${some} yet`,
    limited_scope: one
      ? 'the deployment declares part of its minimum scope out of scope'
      : `${some} declare part of their minimum scope out of scope`,
  };
  return `signet check: ${WORD[report.verdict]}: ${what[report.verdict]}${one ? ` (${visible(worst.join(', '))})` : `: ${visible(worst.join(', '))}`}`;
}

function deploymentBlock(doctrine: Doctrine, d: CheckedDeployment, declared: Declared | null): string[] {
  const s = d.summary;
  const failedBy = SEVERITIES.filter((sev) => s.failed_by_severity[sev] > 0).map((sev) => `${s.failed_by_severity[sev]} ${sev}`);
  const parts = [
    s.fail > 0 || failedBy.length > 0
      ? `${plural(s.failed_rule_ids.length, 'baseline rule')} failed${failedBy.length ? ` (${failedBy.join(', ')})` : ''}`
      : null,
    s.undetermined_rule_ids.length > 0 ? `${s.undetermined_rule_ids.length} undetermined` : null,
    `${s.checked} checked`,
  ].filter((p) => p !== null);
  const out = [`${visible(d.name)}: ${WORD[d.verdict]} (${parts.join(', ')})`];
  const failed = new Map(d.findings.filter((f) => f.status === 'fail' && !f.advisory).map((f) => [f.rule_id, f]));
  for (const id of s.failed_rule_ids) {
    const f = failed.get(id)!;
    out.push(`  ${f.severity.toUpperCase()} ${f.rule_id} ${visible(f.title)}`);
    for (const p of placesOf(doctrine, d, id, declared)) {
      out.push(
        `    from: ${p.fact} = ${visible(JSON.stringify(factAt(d.facts, p.fact)) ?? '')} at ${visible(placeLabel(p))}: ${visible(p.why)}`,
      );
    }
    out.push(`    fix:  ${visible(f.remediation ?? '')}`);
  }
  if (s.undetermined_rule_ids.length > 0) {
    const ids = s.undetermined_rule_ids;
    out.push(
      `  undetermined: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? `, and ${ids.length - 20} more (--format json lists them)` : ''}`,
    );
    out.push(...guideLines(doctrine, d));
  }
  if (d.verdict === 'limited_scope')
    out.push(`  declared out of scope, but part of this deployment's minimum: ${s.scope.minimum_unmet.join(', ')}`);
  if (s.advisories.failed_rule_ids.length > 0)
    out.push(`  advisory (never part of the verdict) failed: ${s.advisories.failed_rule_ids.join(', ')}`);
  const c = d.counts;
  out.push(
    `  facts: ${c.files} from the files${c.profile ? `, ${c.profile} from the Signet profile` : ''}, ${c.probed} probed, ${c.declared} declared, ${c.undecided} undecided`,
  );
  for (const i of d.inexpressible) out.push(`  not expressible as a fact: ${visible(i.what)} (${visible(i.file)}:${i.line})`);
  return out;
}

/** What to declare to complete the verdict: the gates first, then what the rules that apply need (src/check/guide.ts). */
function guideLines(doctrine: Doctrine, d: CheckedDeployment): string[] {
  const g = declareGuide(doctrine, d);
  const asked = factsToDeclare(g).length;
  const out = [
    `    to complete the verdict, declare ${plural(asked, 'fact')} now (signet check --declare-template FILE writes them with their allowed values)${g.conditional.length ? `, and at most ${g.conditional.length} more if your answers keep their rules applicable` : ''}:`,
  ];
  if (g.gates.length) {
    out.push(`    first, ${plural(g.gates.length, 'fact')} that decide${g.gates.length === 1 ? 's' : ''} whether rules apply:`);
    for (const gate of g.gates)
      out.push(
        `      ${gate.fact}${gate.effects.length ? `: ${gate.effects.map(effectText).join('; ')}` : ` (${plural(gate.rules.length, 'rule')})`}`,
      );
  }
  if (g.needed.length) {
    out.push(`    ${g.gates.length ? 'then' : 'the'} ${plural(g.needed.length, 'fact')} the rules that apply need:`);
    const byArea = new Map<string, string[]>();
    for (const { fact } of g.needed) {
      const [area, ...rest] = fact.split('.');
      byArea.set(area!, [...(byArea.get(area!) ?? []), rest.join('.')]);
    }
    for (const [area, facts] of [...byArea].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      out.push(`      ${area}: ${facts.sort().join(', ')}`);
  }
  const probed = factsToDeclare(g).filter((f) => (PROBE_FACTS as readonly string[]).includes(f));
  if (probed.length && factAt(d.facts, 'transport.kind') !== 'stdio')
    out.push(`    ${probed.length} of these a probe of the running endpoint may decide: signet check --probe URL`);
  return out;
}

export function toText(report: CheckReport, doctrine: Doctrine, declared: Declared | null = null): string {
  const out = [
    headline(report),
    `doctrine ${visible(report.doctrine.name)} ${visible(report.doctrine.version)} (${report.doctrine.hash}), ${plural(report.files.length, 'file')} read`,
  ];
  for (const f of report.skipped) out.push(`skipped ${visible(f.path)}: ${visible(f.reason)}`);
  for (const n of report.notes) out.push(`note on ${visible(n.file)}: ${visible(n.what)}`);
  for (const d of report.deployments) out.push('', ...deploymentBlock(doctrine, d, declared));
  return `${out.join('\n')}\n`;
}
