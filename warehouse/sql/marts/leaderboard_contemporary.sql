-- leaderboard_contemporary: submissions on the current private month (the latest month with
-- private-split runs), ranked as leaderboard_ranks ranks them: those that covered the month
-- (submission_coverage: an attempted run on every task) by success rate, then efficiency (lower is
-- better), then hallucination rate; the others follow with rank null and their coverage. Dev-set,
-- folder and historical runs never appear. Every success rate carries its 95% Wilson interval and
-- separable_from_next (leaderboard_ranks). Trials (k, pass^k, pass@k) and model tokens and cost come
-- from trials_by_submission; the cross-server columns are the submission's cross-server tasks alone
-- (success rate and its interval; null when it ran none). Entries whose task_versions differ judged
-- different versions of some task: they are ranked apart (leaderboard_ranks), each board in its own run
-- of rows.
-- depends: metrics_by_submission, metrics_by_submission_server, submission_coverage, anomaly_submitter_flags, trials_by_submission, leaderboard_ranks
-- grain: submission_id
-- check: (rank is null) = (not covered)
-- check: success_rate between success_rate_ci_low - 1e-9 and success_rate_ci_high + 1e-9
with submissions as (
    select * from metrics_by_submission
    where split_kind = 'private'
),

coverage as (
    select * from submission_coverage
),

flags as (
    select * from anomaly_submitter_flags
),

trials as (
    select * from trials_by_submission
),

ranks as (
    select * from leaderboard_ranks
),

-- the submission's cross-server tasks, scored apart (their runs' row of metrics_by_submission_server)
cross_server as (
    select * from metrics_by_submission_server
    where server = 'cross-server'
),

current_month as (
    select max(split) as split from submissions
),

final as (
    select
        ranks.rank,
        ranks.task_versions,
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
        submissions.collateral_damage_rate,
        submissions.infra_errors,
        submissions.submitted_at,
        flags.submission_id is not null as under_review,
        ranks.success_rate_ci_low,
        ranks.success_rate_ci_high,
        ranks.separable_from_next,
        trials.k as trials,
        trials.pass_hat_k,
        trials.pass_hat_k_ci_low,
        trials.pass_hat_k_ci_high,
        trials.pass_at_k,
        trials.pass_at_k_ci_low,
        trials.pass_at_k_ci_high,
        trials.tokens_per_run,
        trials.cost_usd,
        cross_server.attempted as cross_server_attempted,
        cross_server.success_rate as cross_server_success_rate,
        wilson_low(cross_server.passed, cross_server.attempted) as cross_server_success_rate_ci_low,
        wilson_high(cross_server.passed, cross_server.attempted) as cross_server_success_rate_ci_high,
        coverage.tasks_in_month,
        coverage.tasks_covered,
        coverage.coverage,
        coverage.covered
    from submissions
    join current_month on current_month.split = submissions.split
    join coverage on coverage.submission_id = submissions.submission_id
    join ranks on ranks.submission_id = submissions.submission_id
    left join flags on flags.submission_id = submissions.submission_id
    left join trials on trials.submission_id = submissions.submission_id
    left join cross_server on cross_server.submission_id = submissions.submission_id
)

select * from final
order by task_versions, rank nulls last, coverage desc, submission_id
