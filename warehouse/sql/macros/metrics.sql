-- The design's metric definitions, once. Every metrics mart computes its rates with these, from counts.
-- Every rate is integer counts divided once, so identical runs give identical bits whatever the
-- number of threads or the order DuckDB sums in (a float sum is not associative; an integer one is).

-- success rate = passed / attempted (infra errors are not attempted)
create or replace macro success_rate(passed, attempted) as passed / nullif(attempted, 0);

-- the share of its budget a passed run used (tool calls / max_steps) as an exact integer in units of
-- 1e-12, rounded half up: summed as integers, divided once in efficiency()
create or replace macro steps_used_e12(tool_calls, max_steps) as
    (tool_calls::hugeint * 2000000000000 + max_steps) // (2 * max_steps);

-- efficiency = mean(tool calls / max_steps) over passed runs, as a percentage (lower is better)
create or replace macro efficiency(passed_steps_e12_sum, passed) as
    (passed_steps_e12_sum * 100)::double / nullif(passed::hugeint * 1000000000000, 0)::double;

-- hallucination rate = calls to tools not in available_tools / all calls
create or replace macro hallucination_rate(unlisted_calls, calls) as unlisted_calls / nullif(calls, 0);

-- recovery rate = recovery runs passed with an observed error
--                 / (recovery runs attempted - recovery runs passed without any observed error)
create or replace macro recovery_rate(passed_after_error, attempted, passed_without_error) as
    passed_after_error / nullif(attempted - passed_without_error, 0);

-- collateral damage rate = attempted runs that changed state outside their task's frame / attempted
create or replace macro collateral_damage_rate(frame_violated, attempted) as frame_violated / nullif(attempted, 0);

-- The 95% Wilson score interval of k successes in n trials (z = 1.959963984540054, z^2 = 3.841458820694124),
-- from the integer counts; null when n = 0. Used for every success rate reported (pass@1 over runs,
-- pass^k and pass@k over tasks). With K trials per task, pass@1's interval treats the K runs of a task as
-- independent, which understates its width when tasks differ much more than trials do.
create or replace macro wilson_low(k, n) as
    case when n > 0 then greatest(0.0, (k + 1.920729410347062
        - 1.959963984540054 * sqrt(k * (n - k) / n + 0.960364705173531)) / (n + 3.841458820694124)) end;
create or replace macro wilson_high(k, n) as
    case when n > 0 then least(1.0, (k + 1.920729410347062
        + 1.959963984540054 * sqrt(k * (n - k) / n + 0.960364705173531)) / (n + 3.841458820694124)) end;

-- model cost in USD from the integer nano-dollars the model gateway metered (one division)
create or replace macro cost_usd(cost_nanousd) as cost_nanousd / 1000000000;
