// The one place where tool results are turned into canonical bytes by hand rather than by
// canonicalJson over the whole value: speed shortcuts that must stay byte-identical to the
// slow path (tests compare them with RFC 8785's `canonicalize`). doctrine/ returns plain data;
// what is memoised here is keyed by that data's identity.
import type { Evaluation, Finding } from '../doctrine/evaluate.js';
import { canonicalJson, PreCanonical } from '../signing/canonical.js';

/**
 * JCS of each finding, by object. The evaluator hands out one frozen finding object per
 * rule and outcome, so each is canonicalised once, not once per call.
 */
const findingJson = new WeakMap<Finding, string>();

function canonicalFinding(f: Finding): string {
  let json = findingJson.get(f);
  if (json === undefined) findingJson.set(f, (json = canonicalJson(f)));
  return json;
}

/** An evaluation as canonical JSON ({"findings":[...],"summary":{...}}, members in JCS order). */
export function canonicalEvaluation(evaluation: Evaluation): PreCanonical {
  let findings = '';
  for (let i = 0; i < evaluation.findings.length; i++) findings += (i > 0 ? ',' : '') + canonicalFinding(evaluation.findings[i]!);
  return new PreCanonical(`{"findings":[${findings}],"summary":${canonicalJson(evaluation.summary)}}`, () => evaluation);
}

/** The summary alone, as canonical JSON ({"summary":{...}}): what detail "summary" returns. */
export function canonicalSummary(evaluation: Evaluation): PreCanonical {
  return new PreCanonical(`{"summary":${canonicalJson(evaluation.summary)}}`, () => ({ summary: evaluation.summary }));
}

/**
 * A CallToolResult as JSON, with the same members in the same order as
 * JSON.stringify({ content, structuredContent, isError }) gives: the canonical text
 * serialises to itself, so the structured copy needs no parse and no re-stringify.
 */
export function callToolResultJson(signedText: string, isError: boolean): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(signedText)}}],"structuredContent":${signedText},"isError":${isError}}`;
}
