-- run_facts: one row per run with what every metric needs, counted from the run's own call rows.
-- The one pass over the calls: stored as a table at build time, so every mart reads runs, not calls.
-- materialized: table
with runs as (
    select * from stg_runs
),

calls as (
    select * from stg_calls
),

call_counts as (
    select
        run_id,
        count(*) as calls,
        count(*) filter (where not listed) as unlisted_calls,
        count(*) filter (where is_error) as error_calls
    from calls
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
