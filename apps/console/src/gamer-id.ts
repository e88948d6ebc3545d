/** A gamer id as the API takes it in a path (a UUID): anything else would answer 400. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isGamerId(text: string): boolean {
  return UUID.test(text);
}
