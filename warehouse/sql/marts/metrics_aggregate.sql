-- metrics_aggregate: the metrics pooled over every submission of a split, per server and over all
-- servers (server = 'all'). Pooled means run-weighted: every run counts once, whoever submitted it.
with by_server as (
    select * from metrics_by_submission_server
),

counts as (
    select
        split,
        split_kind,
        coalesce(server, 'all') as server,
        count(distinct submission_id) as submissions,
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
        sum(recovery_passed_without_error)::bigint as recovery_passed_without_error
    from by_server
    group by grouping sets ((split, split_kind, server), (split, split_kind))
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
