/** The CLI's `--frames` mode: judge `[{server, initial, final, frame}]` cases, one answer per case. */

import { FrameError, frameViolations, Violation } from "./frame";
import { isObject, Json, JsonObject } from "./values";
import { InputError } from "./verdicts";

export type FrameAnswer = { violations: Violation[] } | { error: string };

export function frameAnswers(input: Json, skipKind: string | null = null): FrameAnswer[] {
  if (!Array.isArray(input)) throw new InputError("input must be a JSON array of {server, initial, final, frame}");
  return input.map((item, i) => {
    if (!isObject(item)) throw new InputError(`$[${i}]: expected an object {server, initial, final, frame}`);
    const { server, initial, final, frame } = item;
    if (typeof server !== "string") throw new InputError(`$[${i}].server: expected a server name`);
    if (!isObject(initial) || !isObject(final)) throw new InputError(`$[${i}]: initial and final must be dumped states (objects)`);
    if (!Array.isArray(frame) || !frame.every(isObject)) return { error: `$[${i}].frame: expected a list of allowances` };
    try {
      return { violations: frameViolations(server, frame as JsonObject[], initial, final, skipKind) };
    } catch (exc) {
      if (exc instanceof FrameError) return { error: exc.message };
      throw exc;
    }
  });
}
