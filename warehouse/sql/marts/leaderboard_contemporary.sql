-- leaderboard_contemporary: submissions on the current private month (the latest month with
-- private-split runs), ranked by success rate, then efficiency (lower is better), then hallucination
-- rate. Dev-set and historical runs never appear here.
with submissions as (
    select * from metrics_by_submission
    where split_kind = 'private'
),

flags as (
    select * from anomaly_submitter_flags
),

current_month as (
    select max(split) as split from submissions
),

final as (
    select
        rank() over (
            order by submissions.success_rate desc nulls last,
                submissions.efficiency asc nulls last,
                submissions.hallucination_rate asc nulls last
        ) as rank,
        submissions.submission_id,
        submissions.submitter,
        submissions.agent,
        submissions.split as month,
        submissions.attempted,
        submissions.passed,
        submissions.success_rate,
        submissions.efficiency,
        submissions.hallucination_rate,
        submissions.recovery_rate,
        submissions.infra_errors,
        submissions.submitted_at,
        flags.submission_id is not null as under_review
    from submissions
    join current_month on current_month.split = submissions.split
    left join flags on flags.submission_id = submissions.submission_id
)

select * from final
order by rank, submission_id
