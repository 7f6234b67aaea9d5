-- leaderboard_historical: submissions on retired public months (split 'Historical-YYYY-MM': the
-- month's published plaintext), ranked within each month as leaderboard_ranks ranks them, like the
-- contemporary leaderboard: only submissions that covered the month get a rank; the others follow
-- with rank null and their coverage. Dev-set and folder runs never appear here. Success rates carry
-- their 95% Wilson interval and separable_from_next, as on the contemporary board.
-- Trials (k, pass^k, pass@k) and model tokens and cost come from trials_by_submission, as there; the
-- cross-server columns are the submission's cross-server tasks alone (null when it ran none).
-- Entries whose task_versions differ are ranked apart, each board in its own run of rows.
-- depends: metrics_by_submission, metrics_by_submission_server, submission_coverage, trials_by_submission, leaderboard_ranks
-- grain: submission_id
-- check: (rank is null) = (not covered)
-- check: split = 'Historical-' || month
with submissions as (
    select * from metrics_by_submission
    where split_kind = 'historical'
),

coverage as (
    select * from submission_coverage
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

final as (
    select
        coverage.month,
        ranks.rank,
        ranks.task_versions,
        submissions.submission_id,
        submissions.submitter,
        submissions.agent,
        submissions.split,
        submissions.attempted,
        submissions.passed,
        submissions.success_rate,
        submissions.efficiency,
        submissions.hallucination_rate,
        submissions.recovery_rate,
        submissions.collateral_damage_rate,
        submissions.infra_errors,
        submissions.submitted_at,
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
    join coverage on coverage.submission_id = submissions.submission_id
    join ranks on ranks.submission_id = submissions.submission_id
    left join trials on trials.submission_id = submissions.submission_id
    left join cross_server on cross_server.submission_id = submissions.submission_id
)

select * from final
order by month desc, task_versions, rank nulls last, coverage desc, submission_id
