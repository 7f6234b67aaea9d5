-- stg_runs: one row per landed run (RunRecord). split_kind (dev, private, historical, folder) was
-- decided once, when the run was recorded (runstore.split.Split): nothing here parses a split.
-- The build fills {{ source('runs') }} with where the run Parquet lives (a local glob or a table
-- copied from a pyarrow dataset on S3); no other file knows.
-- Runs landed before a column existed read it as its default: a zero-row relation that declares the
-- newer columns is unioned by name (task_version 1, code_version '').
-- grain: run_id
with source as (
    select * from {{ source('runs') }}
    union all by name
    select null::bigint as task_version, null::varchar as code_version where false
),

renamed as (
    select
        run_id,
        submission_id,
        submitter,
        agent,
        split,
        month,
        task_id,
        task_hash,
        server,
        difficulty,
        category,
        goal,
        status,
        passed,
        predicate_passed,
        over_budget,
        timed_out,
        agent_error,
        exit_code,
        max_steps,
        timeout_s,
        tool_calls,
        errors_observed,
        faults_injected,
        infra_error,
        sandbox,
        started_at,
        ended_at,
        duration_s,
        agent_s,
        harness_ms,
        final_state_digest,
        end_reason,
        stderr_tail,
        goals_published,
        frame_held,
        frame_violations,
        end_reason_detail,
        harness_wait_s,
        trial,
        model_requests,
        model_errors,
        model_retries,
        model_refused,
        model_prompt_tokens,
        model_completion_tokens,
        model_tokens_estimated,
        model_latency_ms,
        model_cost_nanousd,
        split_kind,
        label,
        explanation,
        -- the task's servers (one for a single-server task); a run landed before the field was kept has
        -- only its server
        coalesce(servers, [server]) as servers,
        coalesce(task_version, 1) as task_version,
        coalesce(code_version, '') as code_version,
        status <> 'infra_error' as attempted
    from source
),

final as (
    select * from renamed
)

select * from final
