// One error model for everything that leaves the process: a stable machine code,
// a message a user can act on, optional structured details. Never a stack, a path
// outside the doctrine, or a secret.

export type ErrorCode =
  | 'invalid_arguments'
  | 'input_too_large'
  | 'input_too_deep'
  | 'invalid_id'
  | 'not_found'
  | 'unknown_tool'
  | 'doctrine_invalid'
  | 'doctrine_signature_mismatch'
  | 'doctrine_hash_mismatch'
  | 'config_invalid'
  | 'key_invalid'
  | 'key_exists'
  | 'store_invalid'
  | 'internal_error';

export interface ErrorDetail {
  /** Where the problem is: a file, a JSON pointer, a field name. */
  where?: string;
  message: string;
}

export class SignetError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];

  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'SignetError';
    this.code = code;
    this.details = details;
  }
}

export function isSignetError(err: unknown): err is SignetError {
  return err instanceof SignetError;
}

/** What may leave the process for an arbitrary thrown value. */
export function publicError(err: unknown): { code: ErrorCode; message: string; details: ErrorDetail[] } {
  if (isSignetError(err)) return { code: err.code, message: err.message, details: err.details };
  return { code: 'internal_error', message: 'Internal error; the server logged the cause.', details: [] };
}
