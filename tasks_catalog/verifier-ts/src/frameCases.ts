/** The CLI's `--frames` mode: judge `[{server, initial, final, frame}]` cases, one answer per case; a
 * cross-server case names `servers` instead, and its `initial` and `final` are keyed by them. */

import { FrameError, frameViolations, frameViolationsAcross, Violation } from "./frame";
import { isObject, Json, JsonObject } from "./values";
import { caseServer, InputError, isStateOf } from "./verdicts";

export type FrameAnswer = { violations: Violation[] } | { error: string };

export function frameAnswers(input: Json, skipKind: string | null = null): FrameAnswer[] {
  if (!Array.isArray(input)) throw new InputError("input must be a JSON array of {server, initial, final, frame}");
  return input.map((item, i) => {
    if (!isObject(item)) throw new InputError(`$[${i}]: expected an object {server, initial, final, frame}`);
    const { initial, final, frame } = item;
    const server = typeof item.server === "string" ? item.server : caseServer(item, `$[${i}]`);
    if (!isStateOf(server, initial) || !isStateOf(server, final)) {
      throw new InputError(typeof server === "string" ? `$[${i}]: initial and final must be dumped states (objects)`
        : `$[${i}]: initial and final must each hold a dumped state for each of ${server.join(", ")}`);
    }
    if (!Array.isArray(frame) || !frame.every(isObject)) return { error: `$[${i}].frame: expected a list of allowances` };
    try {
      if (typeof server !== "string") {
        return { violations: frameViolationsAcross(server, frame as JsonObject[], initial as { [s: string]: JsonObject },
                                                   final as { [s: string]: JsonObject }, skipKind) };
      }
      return { violations: frameViolations(server, frame as JsonObject[], initial as JsonObject, final as JsonObject, skipKind) };
    } catch (exc) {
      if (exc instanceof FrameError) return { error: exc.message };
      throw exc;
    }
  });
}
