import type { AppContext } from '../../context.js';
import { SignetError } from '../../errors.js';

export async function runHttp(_ctx: AppContext): Promise<void> {
  throw new SignetError('config_invalid', 'The HTTP transport is not available in this build yet');
}
