/**
 * The search key of a display name. Search is a prefix match on this key, so the same
 * function must produce the stored key and the query key.
 *
 * NFKC folds compatibility forms (full-width "ＡＢＣ", ligatures "ﬁ", superscripts) into
 * their plain letters; upper- then lower-casing approximates Unicode case folding, which
 * JavaScript lacks (it maps "ß" to "ss", so "STRASSE" finds "Straße"); the final sigma is
 * folded to σ so a prefix ending in Σ still matches the middle of a word; ß becomes ss
 * (the capital ẞ lower-cases to ß, not ss) and the dot lower-casing leaves on İ (i + U+0307)
 * goes, so "GROẞ" meets "gross" and "ilker" finds "İlker"; trimming drops the spaces people
 * type by accident. NFKC runs again because casing can denormalise.
 */
export function displayNameKey(displayName: string): string {
  return displayName
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .replaceAll('ß', 'ss')
    .replaceAll('i\u0307', 'i')
    .normalize('NFKC')
    .trim();
}

/**
 * The index range holding every key that starts with `prefix`: [prefix, prefix + U+10FFFF).
 * Stores compare strings by their UTF-8 bytes, and U+10FFFF (F4 8F BF BF) is the largest
 * code point there is, so unlike U+FFFF it also sorts after emoji and other astral
 * characters. No regular expression is involved, so nothing in the prefix is special.
 */
export function prefixRange(prefix: string): { $gte: string; $lt: string } {
  return { $gte: prefix, $lt: `${prefix}\u{10FFFF}` };
}
