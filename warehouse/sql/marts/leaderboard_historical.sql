-- leaderboard_historical: submissions on retired public months (splits 'historical-YYYY-MM'),
-- ranked within each month like the contemporary leaderboard. Dev-set runs never appear here.
-- Success rates carry their 95% Wilson interval and separable_from_next, as on the contemporary board.
with submissions as (
    select * from metrics_by_submission
    where split_kind = 'historical'
),

final as (
    select
        substr(split, length('historical-') + 1) as month,
        rank() over (
            partition by split
            order by success_rate desc nulls last, efficiency asc nulls last, hallucination_rate asc nulls last
        ) as rank,
        submission_id,
        submitter,
        agent,
        split,
        attempted,
        passed,
        success_rate,
        efficiency,
        hallucination_rate,
        recovery_rate,
        infra_errors,
        submitted_at,
        wilson_low(passed, attempted) as success_rate_ci_low,
        wilson_high(passed, attempted) as success_rate_ci_high,
        wilson_low(passed, attempted) > lead(wilson_high(passed, attempted)) over board
            or wilson_high(passed, attempted) < lead(wilson_low(passed, attempted)) over board as separable_from_next
    from submissions
    window board as (
        partition by split
        order by success_rate desc nulls last, efficiency asc nulls last, hallucination_rate asc nulls last,
            submission_id
    )
)

select * from final
order by month desc, rank, submission_id
