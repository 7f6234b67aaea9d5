/**
 * The CLI's `--judge` mode: verdicts and frame judgements in one call, each dumped state sent once.
 *
 * Input `{"states": [state, ...], "verdicts": [{server, state, predicate}], "frames": [{server, initial,
 * final, frame}]}`, where `state`, `initial` and `final` are indexes into `states`. The gate judges
 * every task's initial state and each final state, and compares each final state with the initial one:
 * sent case by case, a task's initial state went out once per case, each final state twice, and a
 * world's state is some hundreds of kilobytes of JSON. Answers `{"verdicts": [...], "frames": [...]}`,
 * each as the plain and `--frames` modes answer it.
 */

import { FrameAnswer, frameAnswers } from "./frameCases";
import { InputError, parseCases, Verdict, verdicts } from "./verdicts";
import { isObject, Json } from "./values";

export interface JointAnswer {
  verdicts: Verdict[];
  frames: FrameAnswer[];
}

export function jointAnswers(input: Json, broken: string | null = null): JointAnswer {
  if (!isObject(input) || !Array.isArray(input.states) || !Array.isArray(input.verdicts) || !Array.isArray(input.frames)) {
    throw new InputError("input must be an object {states: [...], verdicts: [...], frames: [...]}");
  }
  const states = input.states;
  const state = (where: string, ref: Json | undefined): Json => {
    if (typeof ref !== "number" || !Number.isInteger(ref) || ref < 0 || ref >= states.length) {
      const range = states.length === 0 ? "$.states is empty" : `0 to ${states.length - 1}`;
      throw new InputError(`${where}: expected the index of a state in $.states (${range})`);
    }
    return states[ref] as Json;
  };
  const verdictCases = input.verdicts.map((c, i) =>
    isObject(c) ? { ...c, state: state(`$.verdicts[${i}].state`, c.state) } : c);
  const frameCases = input.frames.map((c, i) =>
    isObject(c) ? { ...c, initial: state(`$.frames[${i}].initial`, c.initial), final: state(`$.frames[${i}].final`, c.final) } : c);
  const frameBreak = broken !== null && broken.startsWith("frame:") ? broken.slice(6) : null;
  return {
    verdicts: verdicts(parseCases(verdictCases), frameBreak === null ? broken : null),
    frames: frameAnswers(frameCases, frameBreak),
  };
}
