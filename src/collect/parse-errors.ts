// What a skip reason quotes of a parser's error.

/** An error's first line, bounded: what a skip reason quotes of a parser's message. */
export const firstLine = (err: unknown) => (err as Error).message.split('\n')[0]!.slice(0, 200);

/** Why a manifest did not parse; a file holding template actions (`{{ … }}`) needs rendering first. */
export function unparsed(text: string, err: unknown): string {
  const why = firstLine(err);
  return /\{\{-?\s*[.$\w/]/.test(text)
    ? `it holds template actions ({{ … }}), which are not YAML until rendered: check the rendered output (${why})`
    : why;
}
