-- leaderboard_historical: submissions on retired public months (splits 'historical-YYYY-MM'),
-- ranked within each month like the contemporary leaderboard. Dev-set runs never appear here.
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
        submitted_at
    from submissions
)

select * from final
order by month desc, rank, submission_id
