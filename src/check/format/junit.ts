// JUnit XML for the CI systems that read test reports (Jenkins, GitLab, Azure Pipelines, ...):
// one <testsuite> per deployment, one <testcase> per rule. A failed baseline rule is a
// <failure> (its severity as type, where it comes from and what to do as text); a baseline
// rule the facts leave undetermined is an <error> (the check could not run: it is why the
// verdict is incomplete); not applicable and advisory rules are <skipped>. The shape is the
// Jenkins JUnit schema's (junit-4.xsd), which the tests check with xmllint.
import type { Finding } from '../../doctrine/evaluate.js';
import { factAt } from '../../doctrine/facts.js';
import type { Doctrine } from '../../doctrine/types.js';
import { visible } from '../../shared/visible.js';
import type { Declared } from '../declared.js';
import { placeLabel, placesOf } from '../locate.js';
import type { CheckedDeployment, CheckReport } from '../report.js';

/**
 * XML 1.0 text for a person reading a CI's test view: markup escaped; control, zero-width and
 * direction characters shown as \u{…} (as in the text view); and what XML cannot carry at all
 * (lone surrogates, U+FFFE/FFFF) too.
 */
function xml(text: string): string {
  return visible(text)
    .replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      (c) => {
        return `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`;
      },
    );
}

function failureText(doctrine: Doctrine, d: CheckedDeployment, f: Finding, declared: Declared | null): string {
  const places = placesOf(doctrine, d, f.rule_id, declared);
  const lines = places.map((p) => `  ${p.fact} = ${JSON.stringify(factAt(d.facts, p.fact))} at ${placeLabel(p)}: ${p.why}`);
  return [
    `${f.rule_id} (${f.severity}) failed for deployment "${d.name}": ${f.title}`,
    ...(lines.length > 0 ? ['Where it comes from:', ...lines] : []),
    `What to do: ${f.remediation ?? ''}`,
  ].join('\n');
}

function testcase(doctrine: Doctrine, d: CheckedDeployment, f: Finding, declared: Declared | null): string {
  const open = `    <testcase classname="${xml(d.name)}" name="${xml(`${f.rule_id}: ${f.title}`)}"`;
  let body = '';
  if (f.advisory && f.status !== 'pass') body = `<skipped>${xml(`advisory rule (never part of the verdict): ${f.status}`)}</skipped>`;
  else if (f.status === 'fail')
    body = `<failure type="${f.severity}" message="${xml(f.title)}">${xml(failureText(doctrine, d, f, declared))}</failure>`;
  else if (f.status === 'undetermined')
    body = `<error type="undetermined" message="${xml(`needs facts: ${(f.missing_facts ?? []).join(', ')}`)}">${xml(
      `${f.reason ?? ''}; state them with --facts or collect them from the files`,
    )}</error>`;
  else if (f.status === 'not_applicable') body = `<skipped>${xml(`not applicable: ${f.reason ?? ''}`)}</skipped>`;
  return body ? `${open}>${body}</testcase>` : `${open}/>`;
}

export function toJunit(report: CheckReport, doctrine: Doctrine, declared: Declared | null = null): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const baseline = (d: CheckedDeployment) => d.findings.filter((f) => !f.advisory);
  const count = (d: CheckedDeployment, s: Finding['status']) => baseline(d).filter((f) => f.status === s).length;
  const totals = { tests: 0, failures: 0, errors: 0 };
  for (const d of report.deployments) {
    totals.tests += d.findings.length;
    totals.failures += count(d, 'fail');
    totals.errors += count(d, 'undetermined');
  }
  const unread = report.skipped.length;
  totals.tests += unread;
  totals.errors += unread;
  out.push(
    `<testsuites name="signet check: ${report.verdict}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}">`,
  );
  for (const d of report.deployments) {
    const skipped = d.findings.filter((f) => f.status === 'not_applicable' || (f.advisory && f.status !== 'pass')).length;
    out.push(
      `  <testsuite name="${xml(d.name)}" tests="${d.findings.length}" failures="${count(d, 'fail')}" errors="${count(d, 'undetermined')}" skipped="${skipped}">`,
      '    <properties>',
      `      <property name="verdict" value="${d.verdict}"/>`,
      `      <property name="doctrine" value="${xml(`${report.doctrine.name} ${report.doctrine.version} ${report.doctrine.hash}`)}"/>`,
      '    </properties>',
      ...d.findings.map((f) => testcase(doctrine, d, f, declared)),
      '  </testsuite>',
    );
  }
  // Files found but not read: errors, since they keep the verdict from passing.
  if (unread > 0)
    out.push(
      `  <testsuite name="files not read" tests="${unread}" failures="0" errors="${unread}" skipped="0">`,
      ...report.skipped.map(
        (s) =>
          `    <testcase classname="files not read" name="${xml(s.path)}"><error type="not_read" message="${xml(s.reason)}">${xml(
            `${s.path} was not read: ${s.reason}; fix it, or leave it out of the paths to check`,
          )}</error></testcase>`,
      ),
      '  </testsuite>',
    );
  out.push('</testsuites>', '');
  return out.join('\n');
}
