-- leaderboard_contemporary: submissions on the current private month (the latest month with
-- private-split runs), ranked by success rate, then efficiency (lower is better), then hallucination
-- rate. Dev-set and historical runs never appear here.
-- Every success rate carries its 95% Wilson interval; separable_from_next is false when this entry's
-- interval overlaps the next one's (the two are not separable at this sample size; null on the last).
-- Trials (k, pass^k, pass@k) and model tokens and cost come from trials_by_submission.
with submissions as (
    select * from metrics_by_submission
    where split_kind = 'private'
),

flags as (
    select * from anomaly_submitter_flags
),

trials as (
    select * from trials_by_submission
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
        flags.submission_id is not null as under_review,
        wilson_low(submissions.passed, submissions.attempted) as success_rate_ci_low,
        wilson_high(submissions.passed, submissions.attempted) as success_rate_ci_high,
        wilson_low(submissions.passed, submissions.attempted) > lead(wilson_high(submissions.passed, submissions.attempted))
            over board
            or wilson_high(submissions.passed, submissions.attempted) < lead(wilson_low(submissions.passed, submissions.attempted))
            over board as separable_from_next,
        trials.k as trials,
        trials.pass_hat_k,
        trials.pass_hat_k_ci_low,
        trials.pass_hat_k_ci_high,
        trials.pass_at_k,
        trials.pass_at_k_ci_low,
        trials.pass_at_k_ci_high,
        trials.tokens_per_run,
        trials.cost_usd
    from submissions
    join current_month on current_month.split = submissions.split
    left join flags on flags.submission_id = submissions.submission_id
    left join trials on trials.submission_id = submissions.submission_id
    window board as (
        order by submissions.success_rate desc nulls last, submissions.efficiency asc nulls last,
            submissions.hallucination_rate asc nulls last, submissions.submission_id
    )
)

select * from final
order by rank, submission_id
