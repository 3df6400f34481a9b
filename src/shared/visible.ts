// Text from outside (an output's doctrine name, a file's deployment name, a reason) as a person
// sees it: control, zero-width and direction characters shown as \u{…}, so it can neither send
// escape sequences to a terminal nor hide or reorder the line a verdict is on (pen test L4).
// Portable (no Node built-ins): the verification page uses it too.

const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

export function visible(value: string): string {
  return value.replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`);
}
