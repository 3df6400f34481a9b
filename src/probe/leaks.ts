// What an error answer must not carry (doctrine HTTP-008): stack traces of the common
// runtimes, absolute file paths, and exception text a runtime writes (not a message a server
// chose). One pattern per kind, named, so a finding says what it saw.
const LEAKS: { what: string; pattern: RegExp }[] = [
  { what: 'a JavaScript stack trace', pattern: /\bat (?:async )?[\w$.<>[\] ]*\(?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\s)]*:\d+:\d+\)?/ },
  { what: 'a Python traceback', pattern: /Traceback \(most recent call last\)|File "[^"]+", line \d+/ },
  { what: 'a Java stack trace', pattern: /\bat [\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)/ },
  { what: 'a Go stack trace', pattern: /goroutine \d+ \[[a-z ]+\]:/ },
  { what: 'a .NET stack trace', pattern: /\bat [\w.`<>]+\(.*\) in .+:line \d+/ },
  { what: 'a file path', pattern: /(?:^|[\s"'(=:])\/(?:home|usr|var|opt|srv|app|root|tmp|workspace|Users)\/[\w.@+-]+\/[\w./@+-]+/ },
  { what: 'a file path', pattern: /\b[A-Za-z]:\\(?:[\w .-]+\\)+[\w .-]+/ },
  { what: 'a node_modules path', pattern: /node_modules[\\/]/ },
  // V8's and Python's parser messages, not a server's own wording about invalid JSON.
  {
    what: 'raw JSON parser text',
    pattern: /Unexpected token|in JSON at position \d+|Unexpected end of JSON input|JSONDecodeError|Expecting value: line \d+/,
  },
  {
    what: 'raw exception text',
    pattern: /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|NullPointerException|KeyError|AttributeError|ValueError): /,
  },
  { what: 'SQL error text', pattern: /SQLSTATE\[|syntax error at or near|ORA-\d{5}|SQLITE_ERROR/ },
];

/** What kind of internal detail `text` holds, or undefined. */
export function leakIn(text: string): string | undefined {
  for (const l of LEAKS) if (l.pattern.test(text)) return l.what;
  return undefined;
}
