/**
 * Patterns: regular expressions in the portable subset of Python `re` and ECMAScript, matched with
 * Python's `re.search` semantics (anywhere unless anchored, case-sensitive).
 *
 * A pattern is not handed to `RegExp` as written: the two engines read several constructs
 * differently, so it is translated to an ECMAScript pattern (flag `u`, code points, like Python's
 * `str`) that matches exactly what Python matches:
 *
 * | Python (str pattern)            | translated to                        | why                                       |
 * |---------------------------------|--------------------------------------|-------------------------------------------|
 * | `$` (no MULTILINE)              | `(?=\n?$)`                           | Python's `$` also matches before a final `\n` |
 * | `.`                             | `[^\n]`                              | JS's `.` also stops at `\r`, U+2028, U+2029 |
 * | `\d` `\D`                       | `\p{Nd}` `\P{Nd}`                    | Python's `\d` is any Unicode decimal digit |
 * | `\w` `\W` `\b` `\B`             | `[\p{L}\p{N}_]` and lookarounds       | Python's word characters are Unicode      |
 * | `\s` `\S`                       | Python's 29 whitespace code points   | the two `\s` differ (U+001C..U+001F, U+0085, U+FEFF) |
 * | `\A` `\Z`                       | `^` `$` (JS, no `m` flag)            | JS has neither                            |
 * | `{,n}`, a literal `{`/`}`/`]`   | `{0,n}`, `\{`, `\}`, `\]`            | literal in Python, syntax errors under `u` |
 * | `\a`, `\U0001F600`, `\0`        | `\x07`, `\u{1F600}`, `\u{0}`          | no such escapes in JS                     |
 *
 * Constructs outside the subset are rejected (a static error, as the Python side does for
 * lookbehind, named groups and inline flags): `\W`/`\S` inside a character class, possessive
 * quantifiers and atomic groups (Python 3.11+), comments `(?#...)`, `\N{...}`, backreferences past
 * `\9`, escapes of surrogates. Remaining known difference: the Unicode version of the character
 * tables (Python 3.11: 14.0; Node 20: 15.x), which matters only for letters added in 15.0.
 */

export class PatternError extends Error {
  override name = "PatternError";
}

const SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WORD = "\\p{L}\\p{N}_";
const W = `[${WORD}]`;
const BOUNDARY = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;
const NOT_BOUNDARY = `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
/** Characters that must stay escaped to be literal (ECMAScript SyntaxCharacter and '/'). */
const SYNTAX = new Set("^$\\.*+?()[]{}|/".split(""));
const CLASS_SYNTAX = new Set("^$\\.*+?()[]{}|/-".split(""));
const HEX = /^[0-9a-fA-F]+$/;

function codePoint(cp: number): string {
  if (cp >= 0xd800 && cp <= 0xdfff) throw new PatternError("escapes of surrogate code points are outside the portable subset");
  return `\\u{${cp.toString(16)}}`;
}

/** Translate escape `\c...` at `p[i]` (the backslash) into ECMAScript; returns [text, next index]. */
function escape(p: string, i: number, inClass: boolean): [string, number] {
  const c = p[i + 1];
  if (c === undefined) throw new PatternError("bad escape (end of pattern)");
  const fixed = (len: number, what: string): number => {
    const digits = p.slice(i + 2, i + 2 + len);
    if (digits.length !== len || !HEX.test(digits)) throw new PatternError(`incomplete escape \\${c}: ${what}`);
    return parseInt(digits, 16);
  };
  switch (c) {
    case "d": return [inClass ? "\\p{Nd}" : "\\p{Nd}", i + 2];
    case "D": return [inClass ? "\\P{Nd}" : "\\P{Nd}", i + 2];
    case "w": return [inClass ? WORD : W, i + 2];
    case "s": return [inClass ? SPACE : `[${SPACE}]`, i + 2];
    case "W":
    case "S":
      if (inClass) throw new PatternError(`\\${c} inside a character class is outside the portable subset`);
      return [c === "W" ? `[^${WORD}]` : `[^${SPACE}]`, i + 2];
    case "b": return [inClass ? "\\x08" : BOUNDARY, i + 2];
    case "B":
      if (inClass) throw new PatternError("bad escape \\B in a character class");
      return [NOT_BOUNDARY, i + 2];
    case "A":
    case "Z":
      if (inClass) throw new PatternError(`bad escape \\${c} in a character class`);
      return [c === "A" ? "^" : "$", i + 2];
    case "n": case "t": case "r": case "f": case "v":
      return [`\\${c}`, i + 2];
    case "a": return ["\\x07", i + 2];
    case "x": return [codePoint(fixed(2, "two hex digits")), i + 4];
    case "u": return [codePoint(fixed(4, "four hex digits")), i + 6];
    case "U": {
      const cp = fixed(8, "eight hex digits");
      if (cp > 0x10ffff) throw new PatternError("bad escape \\U: beyond U+10FFFF");
      return [codePoint(cp), i + 10];
    }
    case "N": throw new PatternError("\\N{...} is outside the portable subset");
  }
  if (c === "0") {
    // Python: \0 then up to two more octal digits is an octal escape.
    let j = i + 2;
    while (j < i + 4 && p[j] !== undefined && /[0-7]/.test(p[j] as string)) j++;
    return [codePoint(parseInt(p.slice(i + 1, j), 8)), j];
  }
  if (/[1-9]/.test(c)) {
    if (inClass || /[0-9]/.test(p[i + 2] ?? "")) throw new PatternError("octal escapes and backreferences past \\9 are outside the portable subset");
    return [`\\${c}`, i + 2];
  }
  if (/[A-Za-z]/.test(c)) throw new PatternError(`bad escape \\${c}`);
  const cp = p.codePointAt(i + 1) as number;
  const ch = String.fromCodePoint(cp);
  const literal = (inClass ? CLASS_SYNTAX : SYNTAX).has(ch) ? `\\${ch}` : ch;
  return [literal, i + 1 + ch.length];
}

const QUANTIFIER = /^\{(\d*)(,?)(\d*)\}/;

/** The ECMAScript source (for `new RegExp(source, "u")`) that matches what Python's `re` matches
 * with `pattern`. Throws `PatternError` for a pattern outside the portable subset. */
export function translate(pattern: string): string {
  let out = "";
  let i = 0;
  let canRepeat = false;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === "\\") {
      const [text, next] = escape(pattern, i, false);
      out += text;
      i = next;
      canRepeat = true;
      continue;
    }
    if (c === "[") {
      let j = i + 1;
      out += "[";
      if (pattern[j] === "^") { out += "^"; j++; }
      if (pattern[j] === "]") { out += "\\]"; j++; }
      let closed = false;
      while (j < pattern.length) {
        const d = pattern[j] as string;
        if (d === "]") { closed = true; j++; break; }
        if (d === "\\") {
          const [text, next] = escape(pattern, j, true);
          if (/^\\[dDws]$/.test(pattern.slice(j, next)) && pattern[next] === "-" && pattern[next + 1] !== "]") {
            throw new PatternError(`bad character range ${pattern.slice(j, next + 2)}`);
          }
          out += text;
          j = next;
          continue;
        }
        if (d === "[") {
          throw new PatternError("a '[' inside a character class is outside the portable subset (escape it as \\[)");
        }
        if ((d === "&" || d === "~" || d === "|") && pattern[j + 1] === d) {
          throw new PatternError(`'${d}${d}' inside a character class is outside the portable subset`);
        }
        if (d === "-" && pattern[j + 1] === "-") {
          throw new PatternError("'--' inside a character class is outside the portable subset");
        }
        const ch = String.fromCodePoint(pattern.codePointAt(j) as number);
        out += ch;
        j += ch.length;
      }
      if (!closed) throw new PatternError("unterminated character set");
      out += "]";
      i = j;
      canRepeat = true;
      continue;
    }
    if (c === "(") {
      if (pattern[i + 1] === "?") {
        const kind = pattern[i + 2];
        if (kind === ":" || kind === "=" || kind === "!") {
          out += `(?${kind}`;
          i += 3;
          canRepeat = false;
          continue;
        }
        if (kind === "<" && (pattern[i + 3] === "=" || pattern[i + 3] === "!")) {
          throw new PatternError("lookbehind is outside the portable subset");
        }
        if (kind === "P" || kind === "<") throw new PatternError("named groups are outside the portable subset");
        if (kind === "#") throw new PatternError("comments (?#...) are outside the portable subset");
        if (kind === ">") throw new PatternError("atomic groups are outside the portable subset");
        throw new PatternError("inline flags and conditionals are outside the portable subset");
      }
      out += "(";
      i += 1;
      canRepeat = false;
      continue;
    }
    if (c === ")") { out += ")"; i += 1; canRepeat = true; continue; }
    if (c === "*" || c === "+" || c === "?" || c === "{") {
      let text = c;
      let next = i + 1;
      if (c === "{") {
        const m = QUANTIFIER.exec(pattern.slice(i));
        if (!m || (m[1] === "" && m[2] === "" && m[3] === "")) {
          // Not a quantifier: Python reads the brace literally.
          out += "\\{";
          i += 1;
          canRepeat = true;
          continue;
        }
        text = `{${m[1] === "" ? "0" : m[1]}${m[2]}${m[3]}}`;
        next = i + m[0].length;
        if (m[1] !== "" && m[3] !== "" && Number(m[3]) < Number(m[1])) throw new PatternError("min repeat greater than max repeat");
      }
      if (!canRepeat) throw new PatternError("nothing to repeat");
      if (pattern[next] === "+") throw new PatternError("possessive quantifiers are outside the portable subset");
      if (pattern[next] === "?") { text += "?"; next += 1; }
      if (pattern[next] === "*" || pattern[next] === "+" || pattern[next] === "{" && QUANTIFIER.test(pattern.slice(next))) {
        throw new PatternError("multiple repeat");
      }
      out += text;
      i = next;
      canRepeat = false;
      continue;
    }
    if (c === "}" || c === "]") { out += `\\${c}`; i += 1; canRepeat = true; continue; }
    if (c === ".") { out += "[^\\n]"; i += 1; canRepeat = true; continue; }
    if (c === "$") { out += "(?=\\n?$)"; i += 1; canRepeat = false; continue; }
    if (c === "^") { out += "^"; i += 1; canRepeat = false; continue; }
    if (c === "|") { out += "|"; i += 1; canRepeat = false; continue; }
    const ch = String.fromCodePoint(pattern.codePointAt(i) as number);
    out += SYNTAX.has(ch) ? `\\${ch}` : ch;
    i += ch.length;
    canRepeat = true;
  }
  return out;
}

const compiled = new Map<string, RegExp>();

/** The compiled translation of `pattern` (cached). Throws `PatternError` outside the subset. */
export function compile(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re === undefined) {
    const source = translate(pattern);
    try {
      re = new RegExp(source, "u");
    } catch (exc) {
      throw new PatternError(`not a valid regular expression: ${(exc as Error).message}`);
    }
    compiled.set(pattern, re);
  }
  return re;
}

/** The one regex semantics of predicates: Python's `re.search`, case-sensitive; absent text never matches. */
export function search(pattern: string, text: string | null | undefined): boolean {
  return typeof text === "string" && compile(pattern).test(text);
}
