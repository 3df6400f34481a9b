// Text matched literally inside a RegExp built from names the files give (a Service, an image, a package).

/** `s` with every character a RegExp gives a meaning escaped. */
export const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
