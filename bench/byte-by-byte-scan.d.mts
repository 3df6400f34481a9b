export declare class ByteByByteScan {
  constructor(limits: { maxDepth: number; maxNodes: number });
  push(chunk: Uint8Array): string | null;
}
