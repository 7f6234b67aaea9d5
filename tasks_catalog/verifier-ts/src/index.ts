/** The TypeScript verifier of MCPBench success predicates. */

export { check, evaluate, evaluateAcross, explain, explainAcross, InvalidPredicate, isServer, PRIMITIVES } from "./predicate";
export { failingClauses } from "./explain";
export type { Explanation, FailedClause } from "./explain";
export type { Problem } from "./predicate";
export { verdicts } from "./verdicts";
export type { Case, Verdict } from "./verdicts";
export { search, translate, PatternError } from "./pattern";
export { countRows, SqlFailure } from "./sql";
export { same, Undecidable } from "./values";
export { declaration, describe, diff, extract, frameViolations, frameViolationsAcross, judge, jsonEqual, renderScalar, FrameError } from "./frame";
export type { Change, Declaration, KindDeclaration, Violation } from "./frame";
