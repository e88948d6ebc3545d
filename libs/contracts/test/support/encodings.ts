/** JSON as an encoder that escapes everything but ASCII writes it (Python's json.dumps by default). */
export const asciiJson = (value: unknown, indent?: number | string) =>
  JSON.stringify(value, null, indent).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Every way the size tests write a body: compact UTF-8, escaped, escaped and indented by 4 or a tab. */
export const encodings = (value: unknown): string[] => [JSON.stringify(value), asciiJson(value), asciiJson(value, 4), asciiJson(value, '\t')];

/** ASCII, Latin, CJK, a code point outside the BMP (one character for a schema, 12 bytes escaped), a control character (6 bytes escaped) */
export const CHARACTERS = ['a', 'é', '中', '😀', '\u0001'];
