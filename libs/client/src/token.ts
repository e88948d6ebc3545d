/** A bearer token, or a function answering the current one (asked before every call and connect). */
export type TokenSource = string | (() => string | Promise<string>);

export async function currentToken(source: TokenSource): Promise<string> {
  return typeof source === 'function' ? source() : source;
}
