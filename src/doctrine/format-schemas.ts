// JSON Schemas of the doctrine's own files (not the facts schema, which the doctrine brings).
import { SHA256_TAG_PATTERN } from '../shared/sha256-tag.js';
import { DOCTRINE_FORMAT, SEVERITIES } from './types.js';

export const RULE_ID = '^[A-Z][A-Z0-9]*-[0-9]{3}$';
export const DOCUMENT_ID = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const CATEGORY = '^[a-z]+(-[a-z]+)*$';

export const doctrineJsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'name', 'title', 'version', 'description', 'facts_schema'],
  properties: {
    format: { const: DOCTRINE_FORMAT },
    name: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 100 },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    version: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$' },
    description: { type: 'string', minLength: 1, maxLength: 2000 },
    facts_schema: { type: 'object' },
    scope: {
      type: 'object',
      additionalProperties: false,
      required: ['areas'],
      properties: {
        areas: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'title', 'out_of_scope', 'required', 'rationale'],
            properties: {
              id: { type: 'string', pattern: CATEGORY },
              title: { type: 'string', minLength: 1, maxLength: 200 },
              out_of_scope: {},
              required: {},
              rationale: { type: 'string', minLength: 1 },
            },
          },
        },
      },
    },
    consistency: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'message', 'check'],
        properties: {
          id: { type: 'string', pattern: RULE_ID },
          message: { type: 'string', minLength: 1, maxLength: 500 },
          check: {},
        },
      },
    },
    deployments: {
      type: 'object',
      additionalProperties: false,
      required: ['description', 'client_facts', 'per_server_client_facts', 'verdict_order'],
      properties: {
        description: { type: 'string', minLength: 1, maxLength: 4000 },
        client_facts: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
        per_server_client_facts: { type: 'array', items: { type: 'string', minLength: 1 } },
        verdict_order: { const: ['fail', 'incomplete', 'limited_scope', 'pass'] },
      },
    },
  },
} as const;

export const ruleFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rules'],
  properties: {
    rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'severity', 'category', 'check', 'rationale', 'remediation', 'references'],
        properties: {
          id: { type: 'string', pattern: RULE_ID },
          title: { type: 'string', minLength: 1, maxLength: 200 },
          severity: { enum: [...SEVERITIES] },
          category: { type: 'string', pattern: CATEGORY },
          advisory: { type: 'boolean' },
          keywords: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 } },
          when: {},
          check: {},
          rationale: { type: 'string', minLength: 1 },
          remediation: { type: 'string', minLength: 1 },
          references: {
            type: 'array',
            minItems: 1,
            items: { type: 'string', pattern: '^(doc:[a-z0-9]+(-[a-z0-9]+)*|https://[^\\s]+)$' },
          },
        },
      },
    },
  },
} as const;

export const frontMatterSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'title'],
  properties: {
    id: { type: 'string', pattern: DOCUMENT_ID },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' } },
  },
} as const;

export const publisherSignatureSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['doctrine_hash', 'signature', 'public_key'],
  properties: {
    doctrine_hash: { type: 'string', pattern: SHA256_TAG_PATTERN },
    signature: { type: 'string', pattern: '^ed25519:[A-Za-z0-9+/]+={0,2}$' },
    public_key: { type: 'string', pattern: '^[A-Za-z0-9+/]+={0,2}$' },
  },
} as const;
