-- stg_turns: one row per request a run's agent made to its model through the model gateway
-- (TurnRecord): when, after how many of the run's MCP calls (calls_before), tokens, latency, how it
-- ended, and the model's text (cut at text_cap bytes; null on private months). Runs whose agent used
-- no model have none; stores landed before turns were kept have none.
-- The build fills {{ source('turns') }}; see stg_runs.
-- grain: run_id, seq
with source as (
    select * from {{ source('turns') }}
),

final as (
    select
        run_id,
        submission_id,
        task_id,
        seq,
        ts,
        calls_before,
        model,
        status,
        finish_reason,
        prompt_tokens,
        completion_tokens,
        tokens_estimated,
        latency_ms,
        tool_calls,
        text,
        text_truncated,
        text_cap
    from source
)

select * from final
