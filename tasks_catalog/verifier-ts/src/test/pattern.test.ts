import { test } from "node:test";
import * as assert from "node:assert/strict";

import { PatternError, search, translate } from "../pattern";

test("dollar matches before a final newline as in Python", () => {
  assert.equal(search("4\\.19$", "release 4.19\n"), true);
  assert.equal(search("4\\.19$", "release 4.19\n\n"), false);
  assert.equal(search("4\\.19\\Z", "release 4.19\n"), false);
  assert.equal(search("one$", "line one\nline two"), false);
});

test("dot matches everything but a newline, one code point at a time", () => {
  assert.equal(search("a.b", "a\rb"), true);
  assert.equal(search("a.b", "a\u2028b"), true);
  assert.equal(search("a.b", "a\nb"), false);
  assert.equal(search("^.$", "\u{1F600}"), true);
});

test("class escapes are Unicode as in Python", () => {
  assert.equal(search("^\\d$", "\u0663"), true);
  assert.equal(search("^\\w+$", "na\u00efve"), true);
  assert.equal(search("\\b\u00efve", "na\u00efve"), false);
  assert.equal(search("a\\sb", "a\u001cb"), true);
  assert.equal(search("a\\sb", "a\ufeffb"), false);
  assert.equal(search("^[\\d]+$", "12\u0663"), true);
});

test("braces and brackets that Python reads literally stay literal", () => {
  assert.equal(search("{name}", "Hello {name}"), true);
  assert.equal(search("a{,2}b", "aab"), true);
  assert.equal(search("[]]", "x]"), true);
  assert.equal(search("a}", "a}"), true);
});

test("patterns outside the portable subset are rejected", () => {
  for (const p of ["(?<=a)b", "(?P<n>a)", "(?i)abc", "a++", "(?>a)", "[\\W]", "\\N{DASH}", "\\q", "a{2,1}", "*a"]) {
    assert.throws(() => translate(p), PatternError, p);
  }
});

test("absent text never matches", () => {
  assert.equal(search(".*", null), false);
});
