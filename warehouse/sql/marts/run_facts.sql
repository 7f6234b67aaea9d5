-- run_facts: one row per run with what every metric needs, counted from the run's own call rows
-- (run_server_calls, the one pass over the calls, summed over the servers they went to). Stored as a
-- table at build time, so every mart reads runs, not calls. server is the task's server, or
-- 'cross-server' for a cross-server task: its run-level metrics have a row of their own.
-- materialized: table
-- depends: stg_runs, run_server_calls
-- grain: run_id
-- check: unlisted_calls <= calls and error_calls <= calls
-- check: attempted or not passed
-- check: (steps_used_e12 is not null) = passed and steps_used_ratio between 0 and 1
-- check: observed_error = (error_calls > 0)
with runs as (
    select * from stg_runs
),

server_calls as (
    select * from run_server_calls
),

call_counts as (
    select
        run_id,
        sum(calls)::bigint as calls,
        sum(unlisted_calls)::bigint as unlisted_calls,
        sum(error_calls)::bigint as error_calls
    from server_calls
    group by run_id
),

final as (
    select
        runs.run_id,
        runs.submission_id,
        runs.submitter,
        runs.agent,
        runs.split,
        runs.split_kind,
        runs.month,
        runs.task_id,
        runs.task_hash,
        runs.task_version,
        runs.code_version,
        runs.server,
        runs.servers,
        runs.difficulty,
        runs.category,
        runs.status,
        runs.attempted,
        runs.status = 'passed' as passed,
        runs.category = 'recovery' as is_recovery,
        runs.tool_calls,
        runs.max_steps,
        case when runs.status = 'passed' then runs.tool_calls / runs.max_steps end as steps_used_ratio,
        case when runs.status = 'passed' then steps_used_e12(runs.tool_calls, runs.max_steps) end as steps_used_e12,
        runs.attempted and coalesce(not runs.frame_held, false) as frame_violated,
        runs.frame_violations,
        coalesce(call_counts.calls, 0) as calls,
        coalesce(call_counts.unlisted_calls, 0) as unlisted_calls,
        coalesce(call_counts.error_calls, 0) as error_calls,
        coalesce(call_counts.error_calls, 0) > 0 as observed_error,
        runs.started_at,
        runs.ended_at,
        runs.trial,
        runs.model_requests,
        runs.model_prompt_tokens,
        runs.model_completion_tokens,
        runs.model_cost_nanousd
    from runs
    left join call_counts on call_counts.run_id = runs.run_id
)

select * from final
