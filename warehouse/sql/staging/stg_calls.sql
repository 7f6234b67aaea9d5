-- stg_calls: one row per MCP tools/call the gateway observed (CallRecord).
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
        result_bytes
    from source
)

select * from final
