-- The design's metric definitions, once. Every metrics mart computes its rates with these, from counts.
-- success rate = passed / attempted (infra errors are not attempted)
create or replace macro success_rate(passed, attempted) as passed / nullif(attempted, 0);

-- efficiency = mean(tool calls / max_steps) over passed runs, as a percentage (lower is better)
create or replace macro efficiency(passed_steps_ratio_sum, passed) as 100 * passed_steps_ratio_sum / nullif(passed, 0);

-- hallucination rate = calls to tools not in available_tools / all calls
create or replace macro hallucination_rate(unlisted_calls, calls) as unlisted_calls / nullif(calls, 0);

-- recovery rate = recovery runs passed with an observed error
--                 / (recovery runs attempted - recovery runs passed without any observed error)
create or replace macro recovery_rate(passed_after_error, attempted, passed_without_error) as
    passed_after_error / nullif(attempted - passed_without_error, 0);
