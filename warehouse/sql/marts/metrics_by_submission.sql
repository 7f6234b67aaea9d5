-- metrics_by_submission: the design's metrics for each submission over all its servers (the score card).
with by_server as (
    select * from metrics_by_submission_server
),

counts as (
    select
        submission_id,
        submitter,
        agent,
        split,
        split_kind,
        count(*) filter (where server <> 'cross-server') as servers,
        sum(runs)::bigint as runs,
        sum(attempted)::bigint as attempted,
        sum(passed)::bigint as passed,
        sum(infra_errors)::bigint as infra_errors,
        sum(passed_steps_e12_sum)::hugeint as passed_steps_e12_sum,
        sum(frame_violated)::bigint as frame_violated,
        sum(calls)::bigint as calls,
        sum(unlisted_calls)::bigint as unlisted_calls,
        sum(recovery_attempted)::bigint as recovery_attempted,
        sum(recovery_passed_after_error)::bigint as recovery_passed_after_error,
        sum(recovery_passed_without_error)::bigint as recovery_passed_without_error,
        min(first_started_at) as submitted_at,
        max(last_ended_at) as last_ended_at
    from by_server
    group by submission_id, submitter, agent, split, split_kind
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
