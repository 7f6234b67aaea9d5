-- metrics_by_submission_server: the design's metrics for each submission on each server.
-- Counts are kept beside the rates so coarser views can re-aggregate them exactly.
with facts as (
    select * from run_facts
),

counts as (
    select
        submission_id,
        submitter,
        agent,
        split,
        split_kind,
        server,
        count(*) as runs,
        count(*) filter (where attempted) as attempted,
        count(*) filter (where passed) as passed,
        count(*) filter (where not attempted) as infra_errors,
        coalesce(sum(steps_used_e12) filter (where passed), 0)::hugeint as passed_steps_e12_sum,
        count(*) filter (where frame_violated) as frame_violated,
        coalesce(sum(calls) filter (where attempted), 0)::bigint as calls,
        coalesce(sum(unlisted_calls) filter (where attempted), 0)::bigint as unlisted_calls,
        count(*) filter (where attempted and is_recovery) as recovery_attempted,
        count(*) filter (where passed and is_recovery and observed_error) as recovery_passed_after_error,
        count(*) filter (where passed and is_recovery and not observed_error) as recovery_passed_without_error,
        min(started_at) as first_started_at,
        max(ended_at) as last_ended_at
    from facts
    group by submission_id, submitter, agent, split, split_kind, server
),

final as (
    select
        *,
        success_rate(passed, attempted) as success_rate,
        efficiency(passed_steps_e12_sum, passed) as efficiency,
        collateral_damage_rate(frame_violated, attempted) as collateral_damage_rate,
        hallucination_rate(unlisted_calls, calls) as hallucination_rate,
        recovery_rate(recovery_passed_after_error, recovery_attempted, recovery_passed_without_error)
            as recovery_rate
    from counts
)

select * from final
