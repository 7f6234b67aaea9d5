-- stg_calls: one row per MCP tools/call the gateway observed (CallRecord), with what the agent was
-- answered (result_text, cut at result_cap bytes: result_truncated) and the fault injected on it; those
-- are null on private months and in calls landed before they were kept.
-- The build fills {{ source('calls') }}; see stg_runs.
-- grain: run_id, seq
with source as (
    select * from {{ source('calls') }}
),

final as (
    select
        run_id,
        submission_id,
        task_id,
        server,
        seq,
        ts,
        tool,
        arguments_json,
        arguments_bytes,
        truncated,
        listed,
        is_error,
        error_kind,
        error_message,
        latency_ms,
        result_bytes,
        result_text,
        result_truncated,
        result_cap,
        fault
    from source
)

select * from final
