// The body-shape scan as it was before it jumped through strings (shared/json-shape.ts): every
// byte through the loop. The benchmark's baseline (body-scan.mjs) and the reading the unit test
// holds the faster scan to (test/unit/http/json-shape.test.ts); its refusals say the same words.
export class ByteByByteScan {
  depth = 0;
  nodes = 0;
  inString = false;
  escaped = false;

  /** @param {{ maxDepth: number, maxNodes: number }} limits */
  constructor(limits) {
    this.limits = limits;
  }

  /** @param {Uint8Array} chunk @returns {string | null} why the body is refused, or null */
  push(chunk) {
    const { maxDepth, maxNodes } = this.limits;
    let { depth, nodes, inString, escaped } = this;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
      } else if (b === 0x22) inString = true;
      else if (b === 0x5b || b === 0x7b) {
        if (++depth > maxDepth) return `the body nests deeper than ${maxDepth} levels`;
        if (++nodes > maxNodes) return `the body holds more than ${maxNodes} JSON values`;
      } else if (b === 0x5d || b === 0x7d) depth--;
      else if (b === 0x2c && ++nodes > maxNodes) return `the body holds more than ${maxNodes} JSON values`;
    }
    this.depth = depth;
    this.nodes = nodes;
    this.inString = inString;
    this.escaped = escaped;
    return null;
  }
}
